package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/internal/zktest"
)

// A Session is one ZooKeeper session, and the bench opens no other: a
// contender whose session the server expired fails its row, saying why.
func TestAContenderWhoseSessionExpiredFailsTheRowSayingSo(t *testing.T) {
	lo, _ := zktest.SessionBounds(t)
	s, proxy := zktest.DialSessionViaProxy(t, seqlock.NewSession, seqlock.WithSessionTimeout(lo))
	m, err := seqlock.New(s, zktest.Root(t)+"/lock")
	if err != nil {
		t.Fatal(err)
	}
	zktest.Expire(t, s.Conn(), proxy)
	zktest.Await(t, s.Done(), "the Session never ended after its expiry")

	acquired, _, _, err := runContender(zktest.Context(t), m, 3, 0)
	if acquired != 0 || !errors.Is(err, seqlock.ErrSessionExpired) || !strings.Contains(err.Error(), "session expired during the row") {
		t.Fatalf("acquired %d, err %v: want none, and seqlock.ErrSessionExpired said as the row's failure", acquired, err)
	}
}
