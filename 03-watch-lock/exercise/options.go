package watchlock

import "github.com/lockstep-zk/lockstep/event"

// Option configures a Lock.
type Option func(*Lock)

// WithObserver makes the lock report what it does (see package event).
func WithObserver(o event.Observer) Option {
	return func(l *Lock) { l.obs = o }
}
