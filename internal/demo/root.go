package demo

import (
	"errors"
	"fmt"
	"os"
	"path"
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/internal/randhex"
	"github.com/lockstep-zk/lockstep/internal/znode"
)

// RootEnv names the node under which a run makes its own root when it may
// not write at the top of the server's tree: in a class, the learner's
// own subtree, where only their identity (ZK_AUTH) may create. The
// workshop runner sets it, and internal/zktest reads the same variable
// for the tests' roots. It must exist.
const RootEnv = "ZK_ROOT"

// Base is ZK_ROOT: "" when it is unset (the top of the tree).
func Base() (string, error) {
	b := strings.TrimSpace(os.Getenv(RootEnv))
	if b == "" || b == "/" {
		return "", nil
	}
	if !strings.HasPrefix(b, "/") || path.Clean(b) != b {
		return "", fmt.Errorf("%s=%q: want an absolute znode path such as /lockstep-class/learners/ada/work", RootEnv, b)
	}
	return b, nil
}

// RunRoot is a run's own root, /lockstep/<kind>/run-<random>, below
// ZK_ROOT when it is set: n random bytes, in hex, keep the runs one server
// sees at once apart.
func RunRoot(kind string, n int) (string, error) {
	b, err := Base()
	if err != nil {
		return "", err
	}
	return path.Join("/", b, "lockstep", kind, "run-"+randhex.String(n)), nil
}

// errNodesLeft is RemoveRunRoot's failure: the demo's last line must not
// say the run's nodes are gone.
var errNodesLeft = errors.New("this run's nodes may be left")

// RemoveRunRoot deletes a run's root (RunRoot) and what is below it, then
// its parents while they are empty (another run's may not be), up to
// ZK_ROOT, which stays: it is the learner's, not the run's. It says when
// the root could not be deleted (the server went away, say).
func RemoveRunRoot(conn *zk.Conn, root string) error {
	if err := znode.DeleteTree(conn, root); err != nil {
		return fmt.Errorf("%w under %s: %w", errNodesLeft, root, err)
	}
	base, _ := Base() // RunRoot checked it
	for d := path.Dir(root); d != "/" && d != base && strings.HasPrefix(d, base+"/"); d = path.Dir(d) {
		if conn.Delete(d, -1) != nil {
			return nil // not empty (another run), or gone already
		}
	}
	return nil
}
