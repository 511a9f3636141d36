package rwlock

import (
	"time"

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

// WithSessionTimeout is seqlock.WithSessionTimeout. By default a holder
// uses the session timeout the server granted its conn, and closes Lost
// once the conn has had no session for a sixth of it — before the server
// can expire the session and let a writer in. d <= 0 turns that check off:
// a cut-off holder then learns of its loss only when it reconnects.
func WithSessionTimeout(d time.Duration) Option {
	return func(opts *options) { opts.core = append(opts.core, seqlock.WithSessionTimeout(d)) }
}

// WithData stores b in each of our lock nodes (who holds it), as Curator does.
func WithData(b []byte) Option {
	return func(opts *options) { opts.core = append(opts.core, seqlock.WithData(b)) }
}

// WithACL gives the nodes the lock creates the ACL acl (see seqlock.WithACL).
func WithACL(acl []zk.ACL) Option {
	return func(opts *options) { opts.core = append(opts.core, seqlock.WithACL(acl)) }
}
