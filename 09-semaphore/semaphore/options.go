package semaphore

import (
	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/lockopt"
)

// Option is chapter 04's option: New takes seqlock.WithObserver (which
// hears the gate's and the leases' requests, watches, acquisitions,
// releases and losses, and the lease count), seqlock.WithData (stored in
// each lease node: who holds it), seqlock.WithACL and
// seqlock.WithoutDisconnectCheck, and this chapter's WithRevocable, in one
// list.
type Option = seqlock.Option

// WithRevocable makes every lease listen for revocation requests (Revoke):
// Lease.Revoked closes when one arrives. It costs one watch per lease.
func WithRevocable() Option { return func(o *lockopt.Options) { o.Revocable = true } }

// options is what New reads from its Options for itself; the rest is for
// the queue core.
type options struct {
	observer  event.Observer
	revocable bool
}

func configure(opts []Option) options {
	o := lockopt.Of(opts)
	return options{observer: o.Observer, revocable: o.Revocable}
}
