package seqlock

import (
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/event"
)

// Option configures a Mutex (or a Queue).
type Option func(*options)

type options struct {
	observer       event.Observer
	sessionTimeout time.Duration
	timeoutGiven   bool
	data           []byte
	acl            []zk.ACL
	contenders     []string
}

// WithObserver makes the lock report every request, watch, notification,
// acquisition, release and loss to o.
func WithObserver(o event.Observer) Option { return func(opts *options) { opts.observer = o } }

// WithSessionTimeout tells the lock the session timeout d of its conn, so
// that a holder cut off from ZooKeeper can tell it has lost the lock before
// the server gives it to someone else (see hold.go). Conns dialled by
// lockstep (internal/zkconn) need no option: the lock reads what the server
// granted. d <= 0 turns the check off: the holder then learns of the loss
// only when the conn reconnects and hears that its session expired — the
// flaw chapters 06 and 07 measure.
func WithSessionTimeout(d time.Duration) Option {
	return func(opts *options) { opts.sessionTimeout, opts.timeoutGiven = max(d, 0), true }
}

// WithData stores b in our lock node, as Curator does (typically who holds
// it: a host name, a process id). Participants returns it.
func WithData(b []byte) Option { return func(opts *options) { opts.data = b } }

// WithACL gives the nodes the lock creates (its node, and the lock
// directory if missing) the ACL acl. The default is creator-only when the
// conn was dialled with digest auth (ZK_AUTH), else open to anyone.
func WithACL(acl []zk.ACL) Option { return func(opts *options) { opts.acl = acl } }

// WithContenders counts the nodes named …<name><sequence>, for each name,
// as contenders in the same queue, beside our own name. 05's read and write
// sides queue together this way, as Curator's read/write lock does.
func WithContenders(names ...string) Option {
	return func(opts *options) { opts.contenders = append(opts.contenders, names...) }
}
