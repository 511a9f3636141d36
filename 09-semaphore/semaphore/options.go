package semaphore

import (
	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/event"
)

// Option configures a Semaphore.
type Option func(*options)

type options struct {
	observer  event.Observer
	acl       []zk.ACL
	revocable bool
	core      []seqlock.Option // passed on to the gate and the lease queue
}

// WithObserver reports every request, watch, notification, acquisition,
// release and loss (the gate's and the leases') to o.
func WithObserver(o event.Observer) Option {
	return func(opts *options) {
		opts.observer = o
		opts.core = append(opts.core, seqlock.WithObserver(o))
	}
}

// WithoutDisconnectCheck is seqlock.WithoutDisconnectCheck: by default a
// lease is declared lost after a sixth of the granted session timeout
// without a session; with it, only once the session is known to have
// expired.
func WithoutDisconnectCheck() Option {
	return func(opts *options) { opts.core = append(opts.core, seqlock.WithoutDisconnectCheck()) }
}

// WithData stores b in each lease node (who holds it); Holders' nodes carry it.
func WithData(b []byte) Option {
	return func(opts *options) { opts.core = append(opts.core, seqlock.WithData(b)) }
}

// WithACL gives the semaphore's nodes the ACL acl (see seqlock.WithACL).
func WithACL(acl []zk.ACL) Option {
	return func(opts *options) {
		opts.acl = acl
		opts.core = append(opts.core, seqlock.WithACL(acl))
	}
}

// WithRevocable makes every lease listen for revocation requests (Revoke):
// Lease.Revoked closes when one arrives. It costs one watch per lease.
func WithRevocable() Option { return func(opts *options) { opts.revocable = true } }
