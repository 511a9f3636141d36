package seqlock

import (
	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/event"
)

// Option configures a Mutex (or a Queue), and every lock of the later
// chapters: 05's rwlock.New, 06's reentrant.New, 07's leader.New and 09's
// semaphore.New take these same Options. A chapter with an option of its
// own (09's WithRevocable) makes it with WithValue, so it travels in the
// same list.
type Option func(*options)

type options struct {
	observer          event.Observer
	noDisconnectCheck bool
	data              []byte
	acl               []zk.ACL
	contenders        []string
	values            map[any]any // WithValue: the later chapters' own options
}

func configure(opts []Option) options {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// ObserverOf is the observer opts set (WithObserver; nil, which ignores
// what it is told, if none), for a chapter that reports events of its own
// beside the core's: 06's re-entries, 07's leaders, 09's lease count.
func ObserverOf(opts []Option) event.Observer { return configure(opts).observer }

// WithValue carries an option of a chapter built on the core in the same
// list as the core's, as context.WithValue carries a value: key is a value
// of the chapter's own unexported type, so two chapters never collide. The
// core ignores it; the chapter reads it back with ValueOf.
func WithValue(key, value any) Option {
	return func(opts *options) {
		if opts.values == nil {
			opts.values = map[any]any{}
		}
		opts.values[key] = value
	}
}

// ValueOf is the value the last WithValue(key, …) in opts set, nil if none.
func ValueOf(opts []Option, key any) any { return configure(opts).values[key] }

// WithObserver makes the lock report every request, watch, notification,
// acquisition, release and loss to o.
func WithObserver(o event.Observer) Option { return func(opts *options) { opts.observer = o } }

// WithoutDisconnectCheck turns off half of what Lost watches for: the
// hold is then lost only when its session is known to have expired, which
// a holder cut off from ZooKeeper learns only once it reconnects — after
// the server may have given the lock to someone else. It is the flaw
// chapters 06 and 07 measure; a real program leaves the check on.
func WithoutDisconnectCheck() Option { return func(opts *options) { opts.noDisconnectCheck = true } }

// WithData stores b in our lock node, as Curator does (typically who holds
// it: a host name, a process id). Participants returns it.
func WithData(b []byte) Option { return func(opts *options) { opts.data = b } }

// WithACL gives the nodes the lock creates (its node, and the lock
// directory if missing) the ACL acl. The default is creator-only when the
// Session has credentials (WithDigest), else open to anyone.
func WithACL(acl []zk.ACL) Option { return func(opts *options) { opts.acl = acl } }

// WithContenders counts the nodes named …<name><sequence>, for each name,
// as contenders in the same queue, beside our own name. 05's read and write
// sides queue together this way, as Curator's read/write lock does.
func WithContenders(names ...string) Option {
	return func(opts *options) { opts.contenders = append(opts.contenders, names...) }
}
