package semaphore

import (
	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/event"
)

// Options is what a Semaphore's Options set; the zero Options is the
// default.
type Options struct {
	// Lock are chapter 04's options, for the gate and for each lease
	// (WithLockOptions): seqlock.WithObserver hears the gate's and the
	// leases' requests, watches, acquisitions, releases and losses, and
	// the lease count; seqlock.WithData is stored in each lease node.
	Lock []seqlock.Option
	// Revocable: every lease listens for revocation requests
	// (WithRevocable).
	Revocable bool
}

// An Option sets some of a Semaphore's Options.
type Option func(*Options)

// WithLockOptions passes chapter 04's options to the gate and to each
// lease: semaphore.New(s, dir, n, semaphore.WithLockOptions(seqlock.WithObserver(o))).
func WithLockOptions(opts ...seqlock.Option) Option {
	return func(o *Options) { o.Lock = append(o.Lock, opts...) }
}

// WithRevocable makes every lease listen for revocation requests (Revoke):
// Lease.Revoked closes when one arrives. It costs one watch per lease.
func WithRevocable() Option { return func(o *Options) { o.Revocable = true } }

// options is what New reads from its Options for itself; the lock options
// are for the gate and the leases.
type options struct {
	observer  event.Observer // the last seqlock.WithObserver of Options.Lock
	revocable bool
}

func configure(opts []Option) (options, []seqlock.Option) {
	var o Options
	for _, opt := range opts {
		opt(&o)
	}
	var lock seqlock.Options
	for _, opt := range o.Lock {
		opt(&lock)
	}
	return options{observer: lock.Observer, revocable: o.Revocable}, o.Lock
}
