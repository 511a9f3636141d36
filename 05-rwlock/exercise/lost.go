package rwlock

import (
	"errors"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/event"
)

// hold starts watching our own node. A holder has nothing else to watch,
// yet it must learn when the lock is gone: ZooKeeper tells the watch if the
// node is deleted, and go-zookeeper tells every watch when the session
// expires. (A disconnection alone tells nobody anything; WithSessionTimeout
// covers it.) A data watch (GetW), as for the blocker: if our node is
// already gone, GetW says so with ErrNoNode and leaves no watch behind.
func (s *Side) hold(node string) error {
	s.emit(event.Event{Kind: event.Request, Op: "get", Node: node})
	_, _, changed, err := s.m.conn.GetW(node)
	if errors.Is(err, zk.ErrNoNode) {
		err = fmt.Errorf("%w: our node %s is gone", ErrLost, node)
	}
	if err != nil {
		return s.abandon(node, fmt.Errorf("watch our node %s: %w", node, err))
	}
	s.emit(event.Event{Kind: event.WatchSet, Op: "get", Node: node})
	lost, stop := make(chan struct{}), make(chan struct{})
	s.m.mu.Lock()
	s.lost, s.stop = lost, stop
	s.m.mu.Unlock()
	go s.guard(node, changed, lost, stop)
	return nil
}

// guard closes lost if the hold ends without Unlock.
func (s *Side) guard(node string, changed <-chan zk.Event, lost, stop chan struct{}) {
	var tick <-chan time.Time
	var down time.Time // when we first saw the connection without a session
	if d := s.m.opts.sessionTimeout; d > 0 {
		t := time.NewTicker(min(d/20, 100*time.Millisecond))
		defer t.Stop()
		tick = t.C
	}
	why := ""
	for why == "" {
		select {
		case <-stop:
			return
		case ev := <-changed:
			select {
			case <-stop:
				return // our own Unlock deleted the node
			default:
			}
			s.emit(event.Event{Kind: event.Notified, Node: node, Detail: ev.Type.String()})
			why = "node deleted"
			if ev.Err != nil {
				why = ev.Err.Error()
			}
		case now := <-tick:
			switch {
			case s.m.conn.State() == zk.StateHasSession:
				down = time.Time{}
			case down.IsZero():
				down = now
			case now.Sub(down) >= s.m.opts.sessionTimeout/6:
				// As in chapter 04: go-zookeeper notices a silent link
				// after 2/3 of the session timeout, and the server may
				// expire us d after it last heard from us, so about d/3
				// is left when we first see no session. Give up after
				// half of it; the other half is margin.
				why = "disconnected for a sixth of the session timeout"
			}
		}
	}
	s.emit(event.Event{Kind: event.Lost, Node: node, Detail: why})
	close(lost)
}

// Lost is closed when the current (or last) hold ends without Unlock: the
// session expired, the node was deleted, or (with WithSessionTimeout(d))
// the connection was down for d/6.
func (s *Side) Lost() <-chan struct{} {
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	return s.lost
}
