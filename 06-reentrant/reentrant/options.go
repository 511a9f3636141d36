package reentrant

import (
	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/05-rwlock/rwlock"
	"github.com/lockstep-zk/lockstep/event"
)

// Option configures a Mutex or an RWMutex.
type Option func(*config)

type config struct {
	obs     event.Observer
	noCheck bool // WithoutDisconnectCheck
	data    []byte
	acl     []zk.ACL
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
	opts := []seqlock.Option{seqlock.WithObserver(c.obs), seqlock.WithData(c.data), seqlock.WithACL(c.acl)}
	if c.noCheck {
		opts = append(opts, seqlock.WithoutDisconnectCheck())
	}
	return opts
}

func (c config) rwlock() []rwlock.Option {
	opts := []rwlock.Option{rwlock.WithObserver(c.obs), rwlock.WithData(c.data), rwlock.WithACL(c.acl)}
	if c.noCheck {
		opts = append(opts, rwlock.WithoutDisconnectCheck())
	}
	return opts
}

// WithObserver makes the lock report what it does (see package event):
// chapter 04's requests, watches, acquisitions and releases, plus an Info
// event for each re-entry and each Unlock that only lowers the depth.
func WithObserver(o event.Observer) Option { return func(c *config) { c.obs = o } }

// WithoutDisconnectCheck is seqlock.WithoutDisconnectCheck. By default
// the lock declares a hold lost once its Session has had no session for a
// sixth of the granted timeout — so that re-entry is refused during a
// partition before the server can have given the lock to someone else.
// WithoutDisconnectCheck turns that check off: the flaw
// TestReentryDuringAPartition measures.
func WithoutDisconnectCheck() Option { return func(c *config) { c.noCheck = true } }

// WithACL gives the nodes the lock creates the ACL acl (seqlock.WithACL).
func WithACL(acl []zk.ACL) Option { return func(c *config) { c.acl = acl } }

// WithData sets the data of our lock node (for example who we are), as
// seqlock.WithData does; seqlock.Participants shows it.
func WithData(b []byte) Option { return func(c *config) { c.data = b } }
