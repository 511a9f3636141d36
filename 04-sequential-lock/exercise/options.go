package seqlock

import (
	"time"

	"github.com/lockstep-zk/lockstep/event"
)

// Option configures a Mutex.
type Option func(*options)

type options struct {
	observer       event.Observer
	sessionTimeout time.Duration
	data           []byte
}

// WithObserver makes the Mutex report every request, watch, notification,
// acquisition, release and loss to o.
func WithObserver(o event.Observer) Option { return func(opts *options) { opts.observer = o } }

// WithSessionTimeout gives the Mutex the session timeout d the conn was
// opened with, so that a holder cut off from ZooKeeper can tell it has lost
// the lock before the server gives it to someone else (see hold.go). Without
// it, the holder learns of the loss only when the conn reconnects and hears
// that its session expired.
func WithSessionTimeout(d time.Duration) Option {
	return func(opts *options) { opts.sessionTimeout = d }
}

// WithData stores b in our lock node, as Curator does (typically who holds
// it: a host name, a process id). Participants returns it.
func WithData(b []byte) Option { return func(opts *options) { opts.data = b } }
