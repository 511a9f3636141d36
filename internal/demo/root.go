package demo

import (
	"errors"
	"fmt"
	"path"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/internal/znode"
)

// errNodesLeft is removeRoot's failure: the demo's last line must not say
// the run's nodes are gone.
var errNodesLeft = errors.New("this run's nodes may be left")

// removeRoot deletes the run's root and what is below it, then its parents
// up to /lockstep while they are empty (another run's may not be). It says
// when the root could not be deleted (the server went away, say).
func removeRoot(conn *zk.Conn, root string) error {
	if err := znode.DeleteTree(conn, root); err != nil {
		return fmt.Errorf("%w under %s: %w", errNodesLeft, root, err)
	}
	for d := path.Dir(root); d != "/"; d = path.Dir(d) {
		if conn.Delete(d, -1) != nil {
			return nil // not empty (another run), or gone already
		}
	}
	return nil
}
