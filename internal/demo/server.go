package demo

import (
	"context"
	"fmt"
	"io"

	"github.com/lockstep-zk/lockstep/internal/zkserver"
)

// Servers resolves -servers: the flag, or a server from zkserver.Start
// ($ZK_SERVERS, Docker, a local install). stop must be called when done.
func Servers(ctx context.Context, flagValue string, out io.Writer) (servers []string, stop func(), err error) {
	if flagValue != "" {
		s, err := zkserver.ParseServers(flagValue)
		return s, func() {}, err
	}
	srv, err := zkserver.Start(ctx)
	if err != nil {
		return nil, func() {}, err
	}
	fmt.Fprintf(out, "ZooKeeper at %s (%s)\n", srv.ConnectString(), srv.Source)
	return srv.Servers, srv.Close, nil
}
