package seqlock

import (
	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/lockopt"
)

// Option configures a Mutex, and every lock of the later
// chapters: 05's rwlock.New, 06's reentrant.New, 07's leader.New and 09's
// semaphore.New take these same Options. What they set is an
// internal/lockopt.Options: a later chapter reads it there, and one with an
// option of its own (09's WithRevocable) sets its field, so it travels in
// the same list.
type Option func(*options)

type options = lockopt.Options

// WithObserver makes the lock report every request, watch, notification,
// acquisition, release and loss to o. The lock waits for o each time it
// calls it, Unlock included (see event.Observer): o must be quick.
func WithObserver(o event.Observer) Option { return func(opts *options) { opts.Observer = o } }

// WithoutDisconnectCheck turns off half of what Lost watches for: the
// hold is then lost only when its session is known to have expired, which
// a holder cut off from ZooKeeper learns only once it reconnects — after
// the server may have given the lock to someone else. It is the flaw
// chapters 06 and 07 measure; a real program leaves the check on.
func WithoutDisconnectCheck() Option { return func(opts *options) { opts.NoDisconnectCheck = true } }

// WithData stores b in our lock node, as Curator does (typically who holds
// it: a host name, a process id). Participants returns it.
func WithData(b []byte) Option { return func(opts *options) { opts.Data = b } }

// WithACL gives the nodes the lock creates (its node, and the lock
// directory if missing) the ACL acl. The default is creator-only when the
// Session has credentials (WithDigest), else open to anyone.
func WithACL(acl []zk.ACL) Option { return func(opts *options) { opts.ACL = acl } }

// WithContenders counts the nodes named …<name><sequence>, for each name,
// as contenders in the same queue, beside our own name. 05's read and write
// sides queue together this way, as Curator's read/write lock does.
func WithContenders(names ...string) Option {
	return func(opts *options) { opts.Contenders = append(opts.Contenders, names...) }
}
