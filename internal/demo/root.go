package demo

import (
	"fmt"
	"os"
	"path"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/internal/znode"
)

// removeRoot deletes the run's root and what is below it, then its parents
// up to /lockstep while they are empty (another run's may not be).
func removeRoot(conn *zk.Conn, root string) {
	if err := znode.DeleteTree(conn, root); err != nil {
		fmt.Fprintf(os.Stderr, "warning: could not delete %s: %v\n", root, err)
		return
	}
	for d := path.Dir(root); d != "/"; d = path.Dir(d) {
		if conn.Delete(d, -1) != nil {
			return // not empty (another run), or gone already
		}
	}
}
