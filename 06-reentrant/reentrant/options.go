package reentrant

import (
	"time"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/05-rwlock/rwlock"
	"github.com/lockstep-zk/lockstep/event"
)

// Option configures a Mutex or an RWMutex.
type Option func(*config)

type config struct {
	obs     event.Observer
	session *time.Duration // nil: the granted session timeout
	data    []byte
}

func configure(opts []Option) config {
	var c config
	for _, o := range opts {
		o(&c)
	}
	return c
}

// seqlock and rwlock are the options of the lock underneath.
func (c config) seqlock() []seqlock.Option {
	opts := []seqlock.Option{seqlock.WithObserver(c.obs), seqlock.WithData(c.data)}
	if c.session != nil {
		opts = append(opts, seqlock.WithSessionTimeout(*c.session))
	}
	return opts
}

func (c config) rwlock() []rwlock.Option {
	opts := []rwlock.Option{rwlock.WithObserver(c.obs), rwlock.WithData(c.data)}
	if c.session != nil {
		opts = append(opts, rwlock.WithSessionTimeout(*c.session))
	}
	return opts
}

// WithObserver makes the lock report what it does (see package event):
// chapter 04's requests, watches, acquisitions and releases, plus an Info
// event for each re-entry and each Unlock that only lowers the depth.
func WithObserver(o event.Observer) Option { return func(c *config) { c.obs = o } }

// WithSessionTimeout is seqlock.WithSessionTimeout. By default the lock
// uses the session timeout the server granted the conn, and declares a hold
// lost once the conn has had no session for a sixth of it — so that
// re-entry is refused during a partition before the server can have given
// the lock to someone else. WithSessionTimeout(0) turns that check off: the
// flaw TestReentryDuringAPartition measures.
func WithSessionTimeout(d time.Duration) Option { return func(c *config) { c.session = &d } }

// WithData sets the data of our lock node (for example who we are), as
// seqlock.WithData does; seqlock.Participants shows it.
func WithData(b []byte) Option { return func(c *config) { c.data = b } }
