// Command zkcheck says which ZooKeeper the demos and tests will use, or
// exits 1 with what to install. scripts/ensure-zookeeper runs it.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/lockstep-zk/lockstep/internal/zkserver"
)

func main() {
	which, err := zkserver.Which(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println("ZooKeeper:", which)
}
