package rwlock

import (
	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/event"
)

// Option configures an RWMutex: both its sides.
type Option func(*options)

type options struct {
	core []seqlock.Option // passed on to chapter 04's queue core, for each side
}

// WithObserver makes both sides report every request, watch, notification,
// acquisition, release and loss to o.
func WithObserver(o event.Observer) Option {
	return func(opts *options) { opts.core = append(opts.core, seqlock.WithObserver(o)) }
}

// WithoutDisconnectCheck is seqlock.WithoutDisconnectCheck. By default a
// holder closes Lost once its Session has had no session for a sixth of
// the granted timeout — before the server can expire it and let a writer
// in. Without the check, a cut-off holder learns of its loss only when it
// reconnects.
func WithoutDisconnectCheck() Option {
	return func(opts *options) { opts.core = append(opts.core, seqlock.WithoutDisconnectCheck()) }
}

// WithData stores b in each of our lock nodes (who holds it), as Curator does.
func WithData(b []byte) Option {
	return func(opts *options) { opts.core = append(opts.core, seqlock.WithData(b)) }
}

// WithACL gives the nodes the lock creates the ACL acl (see seqlock.WithACL).
func WithACL(acl []zk.ACL) Option {
	return func(opts *options) { opts.core = append(opts.core, seqlock.WithACL(acl)) }
}
