// Command zkcheck says which ZooKeeper the demos and tests will use. It
// exits 1 when there is none and installing one would help, and 2 when the
// configuration is at fault (ZK_SERVERS unreachable, LOCKSTEP_ZK), so that
// scripts/ensure-zookeeper installs only when installing is the answer.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/lockstep-zk/lockstep/internal/zkserver"
)

func main() {
	which, err := zkserver.Which(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		if errors.Is(err, zkserver.ErrNoZooKeeper) && os.Getenv("LOCKSTEP_ZK") == "" {
			os.Exit(1)
		}
		os.Exit(2)
	}
	fmt.Println("ZooKeeper:", which)
}
