package classroom

import (
	"context"
	"fmt"
	"path"

	"github.com/go-zookeeper/zk"

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
