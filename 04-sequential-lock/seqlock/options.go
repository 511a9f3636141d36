package seqlock

import (
	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/event"
)

// Options is what a lock's Options set; the zero Options is the default.
// The locks built on a Mutex (rwlock, reentrant, leader, semaphore) take
// the same Options and read them here.
type Options struct {
	Observer          event.Observer // WithObserver; nil hears nothing
	NoDisconnectCheck bool           // WithoutDisconnectCheck
	Data              []byte         // WithData: stored in each lock node
	ACL               []zk.ACL       // WithACL; nil: the Session's default
	Contenders        []string       // WithContenders: other names in the same queue
}

// An Option sets some of a lock's Options: the With… functions below, or
// any func of your own.
type Option func(*Options)

// WithObserver makes the lock report every request, watch, notification,
// acquisition, release and loss to o. The lock waits for o each time it
// calls it, Unlock included (see event.Observer): o must be quick.
func WithObserver(o event.Observer) Option { return func(opts *Options) { opts.Observer = o } }

// WithoutDisconnectCheck turns off half of what Lost watches for: the
// hold is then lost only when its session is known to have expired, which
// a holder cut off from ZooKeeper learns only once it reconnects — after
// the server may have given the lock to someone else. Leave the check on;
// this option exists to measure what it prevents.
func WithoutDisconnectCheck() Option { return func(opts *Options) { opts.NoDisconnectCheck = true } }

// WithData stores b in our lock node, as Curator does (typically who holds
// it: a host name, a process id). Participants returns it.
func WithData(b []byte) Option { return func(opts *Options) { opts.Data = b } }

// WithACL gives the nodes the lock creates (its node, and the lock
// directory if missing) the ACL acl. The default is creator-only when the
// Session has credentials (WithDigest), else open to anyone.
func WithACL(acl []zk.ACL) Option { return func(opts *Options) { opts.ACL = acl } }

// WithContenders counts the nodes named …<name><sequence>, for each name,
// as contenders in the same queue, beside our own name: a read/write lock's
// two sides queue together this way, as Curator's do.
func WithContenders(names ...string) Option {
	return func(opts *Options) { opts.Contenders = append(opts.Contenders, names...) }
}
