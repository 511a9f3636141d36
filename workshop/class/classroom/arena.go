package classroom

import (
	"context"
	"fmt"
	"path"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/internal/zksession"
	"github.com/lockstep-zk/lockstep/workshop/class/arena"
)

// The class's arena (package arena) lives beside learners:
//
//	<root>
//	├── learners …
//	└── arena          host: all · class code: read
//	    ├── lock       host: all · class code: create, delete, read
//	    ├── counter    host: all · class code: read, write
//	    ├── caught     host: all · class code: create, read
//	    └── paused     while the host pauses it
//
// Whoever holds the class code plays: the arena asks for no learner's
// secret, and the names in it are what the workers say. It does not touch
// anyone's progress; it shows whose lock lets two in.
const arenaNode = "arena"

// ArenaPath is the class's arena directory under root.
func ArenaPath(root string) string { return path.Join(root, arenaNode) }

// OpenArena creates the class's arena if it is not there yet (a class
// served again keeps its counter and what was caught) and returns it on
// the host's session: Pause, Resume, TakeOut, Caught.
func (h *Host) OpenArena(ctx context.Context, code, adminSecret string) (*arena.Arena, error) {
	a, err := arena.Open(h.conn.Conn, ArenaPath(h.root))
	if err != nil {
		return nil, err
	}
	host := zk.DigestACL(zk.PermAll, HostUser, adminSecret)
	players := zk.DigestACL(zk.PermAll, CodeUser, code) // the arena sets each node's permissions
	if err := a.Create(ctx, host, players); err != nil {
		return nil, fmt.Errorf("classroom: %w", err)
	}
	return a, nil
}

// ArenaAuth is the identity a worker's sessions add (conn.AddAuth("digest",
// …)) to play in the arena of the class with code: the class code's.
func ArenaAuth(code string) []byte { return []byte(CodeUser + ":" + code) }

// Play is one learner in the class's arena until ctx ends or rounds
// (0: no end) are played: the lock is seqlock's (04's — in a worker the
// runner built from a learner's file, the learner's own), on a session of
// its own, and the counter on another (the resource's client, as in
// chapter 08); both authenticate with the class code. each, if not nil,
// is called after every round. A lock session that expires ends the play
// with seqlock.ErrSessionExpired (the lid test: the write after it was
// refused and recorded first).
func Play(ctx context.Context, jl JoinLine, name string, rounds int, dwell, session time.Duration, each func(arena.Outcome)) error {
	if err := CheckName(name); err != nil {
		return err
	}
	s, err := seqlock.NewSession(ctx, jl.Servers, seqlock.WithSessionTimeout(session))
	if err != nil {
		return err
	}
	defer s.Close()
	counterConn, events, err := zksession.Connect(ctx, jl.Servers, 30*time.Second)
	if err != nil {
		return err
	}
	go zksession.Drain(events)
	defer counterConn.Close()
	for _, err := range []error{
		s.Conn().AddAuth("digest", ArenaAuth(jl.Code)),
		counterConn.AddAuth("digest", ArenaAuth(jl.Code)),
	} {
		if err != nil {
			return fmt.Errorf("classroom: arena: authenticate: %w", err)
		}
	}
	a, err := arena.Open(counterConn, ArenaPath(jl.Root))
	if err != nil {
		return err
	}
	m, err := seqlock.New(s, a.LockDir(), arena.LockOptions(name)...)
	if err != nil {
		return err
	}
	w := &arena.Worker{Name: name, Lock: m, Arena: a, Inside: func(ctx context.Context) error {
		select {
		case <-time.After(dwell):
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}}
	return w.Run(ctx, rounds, each)
}
