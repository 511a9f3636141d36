package reliability_test

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"

	"github.com/go-zookeeper/zk"
)

// A fencedStore is the resource a lock protects, made safe the way Martin
// Kleppmann's "How to do distributed locking" asks: every write carries the
// writer's fencing token, and the store refuses a token lower than the
// highest it has already accepted. A holder that lost the lock without
// knowing it (a GC pause, a SIGSTOP) comes back with an old token and is
// turned away, however late its write arrives.
//
// With fenced false it is the naive store the articles start from: it
// accepts every write, so the last write wins even when it is stale.
type fencedStore struct {
	fenced bool

	mu       sync.Mutex
	highest  int64
	accepted []write // in the order they were accepted
	refused  []write
}

type write struct {
	token int64
	value string
}

// errStaleToken is what the store answers a write whose token is too old.
var errStaleToken = errors.New("store: stale fencing token")

func (s *fencedStore) Write(token int64, value string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	w := write{token, value}
	if s.fenced && token < s.highest {
		s.refused = append(s.refused, w)
		return fmt.Errorf("%w: %d < %d", errStaleToken, token, s.highest)
	}
	s.highest = max(s.highest, token)
	s.accepted = append(s.accepted, w)
	return nil
}

// Last is the value of the last accepted write: what a reader sees.
func (s *fencedStore) Last() write {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.accepted) == 0 {
		return write{}
	}
	return s.accepted[len(s.accepted)-1]
}

// Violations counts accepted writes whose token is lower than one accepted
// before it: a writer that was let in after a newer holder. It is 0 for a
// fenced store by construction — a second, independent look at the log.
func (s *fencedStore) Violations() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for i := 1; i < len(s.accepted); i++ {
		if s.accepted[i].token < s.accepted[i-1].token {
			n++
		}
	}
	return n
}

func (s *fencedStore) Counts() (accepted, refused int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.accepted), len(s.refused)
}

// ServeHTTP lets a child process write: POST /?token=N&value=V answers 204
// when accepted, 409 with the reason when refused.
func (s *fencedStore) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	token, err := strconv.ParseInt(r.URL.Query().Get("token"), 10, 64)
	if err != nil {
		http.Error(w, "bad token", http.StatusBadRequest)
		return
	}
	if err := s.Write(token, r.URL.Query().Get("value")); err != nil {
		http.Error(w, err.Error(), http.StatusConflict)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// fencedSet is the other fence, inside ZooKeeper itself: one multi that
// checks the holder's own lock node still exists (version -1: any version)
// and sets the data. ZooKeeper applies both or neither, in its one total
// order, so the set lands only while the lock node — and so the lock — is
// still ours. A holder whose session expired gets zk.ErrNoNode (or
// zk.ErrSessionExpired) and writes nothing.
func fencedSet(conn *zk.Conn, lockNode, path string, data []byte) error {
	res, err := conn.Multi(
		&zk.CheckVersionRequest{Path: lockNode, Version: -1},
		&zk.SetDataRequest{Path: path, Data: data, Version: -1},
	)
	for _, r := range res {
		if err == nil && r.Error != nil {
			err = r.Error
		}
	}
	if err != nil {
		return fmt.Errorf("fenced set of %s (lock node %s): %w", path, lockNode, err)
	}
	return nil
}
