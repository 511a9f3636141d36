// Package lockopt is what the options of chapter 04's lock set
// (seqlock.Option is a func(*Options)), readable by the chapters built on
// it: 06, 07 and 09 read the observer, 09 its revocable flag, without
// seqlock exporting an accessor to its users for them.
package lockopt

import (
	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/event"
)

// Options is what a list of seqlock.Options set.
type Options struct {
	Observer          event.Observer // WithObserver; nil ignores what it is told
	NoDisconnectCheck bool           // WithoutDisconnectCheck
	Data              []byte         // WithData: stored in each lock node
	ACL               []zk.ACL       // WithACL; nil: the Session's default
	Contenders        []string       // WithContenders: other names in the same queue
	Revocable         bool           // 09's WithRevocable; the core ignores it
}

// Of applies opts, in order, to zero Options.
func Of[O ~func(*Options)](opts []O) Options {
	var o Options
	for _, opt := range opts {
		opt(&o)
	}
	return o
}
