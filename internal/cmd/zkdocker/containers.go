package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/moby/moby/api/types/container"
	dockernet "github.com/moby/moby/api/types/network"
	"github.com/testcontainers/testcontainers-go"
	tclog "github.com/testcontainers/testcontainers-go/log"
	"github.com/testcontainers/testcontainers-go/network"
	"github.com/testcontainers/testcontainers-go/wait"

	"github.com/lockstep-zk/lockstep/internal/zkserver"
)

// containerEnv configures the official image like the local servers: short
// ticks, all four-letter words, no admin server, fast container-node cleanup.
func containerEnv() map[string]string {
	return map[string]string{
		"ZOO_TICK_TIME":              strconv.Itoa(int(zkserver.TickTime / time.Millisecond)),
		"ZOO_INIT_LIMIT":             "20",
		"ZOO_SYNC_LIMIT":             "10",
		"ZOO_MAX_CLIENT_CNXNS":       "0",
		"ZOO_4LW_COMMANDS_WHITELIST": "*",
		"ZOO_ADMINSERVER_ENABLED":    "false",
		"ZOO_CFG_EXTRA":              "maxSessionTimeout=60000 forceSync=no",
		// A stopped container's address stops answering at all (no
		// refusal, unlike a dead local process). An election's sender
		// then waits on each connection to it (cnxTimeout, 5 s by
		// default), and the votes between the live members go out a
		// round late each time, rounds that back off from 200 ms up to
		// maxNotificationInterval (60 s): a failover took 8.8 s. Both are
		// cut to what a local ensemble's failover costs.
		//
		// The JVM also remembers a failed name lookup for 10 s
		// (networkaddress.cache.negative.ttl in the JDK's java.security).
		// Members find each other by name (zk1…zkN), and a name exists on
		// the Docker network only while its container runs: a member that
		// looked up a peer before the peer started, or while it was
		// stopped, could not connect to it for up to 10 s after. When that
		// peer won the election after a leader was killed, its follower
		// failed to reach it ("UnknownHostException: zk3") twice, and the
		// failover took 8.9 s instead of 0.3–0.9 s (2 runs in 10). The
		// JVM reads dnsSecurity instead: no caching of names.
		"JVMFLAGS": "-Xmx256m -Dznode.container.checkIntervalMs=500 -Dzookeeper.cnxTimeout=500 -Dzookeeper.fastleader.maxNotificationInterval=1000" +
			" -Djava.security.properties=" + dnsSecurityPath,
	}
}

// dnsSecurity overrides the JDK's java.security in every container: a name
// is looked up again each time, found or not, as a peer that stops and
// starts again may come back with another address.
const (
	dnsSecurityPath = "/tmp/lockstep-dns.security"
	dnsSecurity     = "networkaddress.cache.ttl=0\nnetworkaddress.cache.negative.ttl=0\n"
)

// clientPort is the port ZooKeeper serves clients on inside a container.
const clientPort = "2181/tcp"

// containerOptions is every container's configuration. hostPort 0 lets the
// engine pick the host port; otherwise the client port is bound to that
// host port, so that a member stopped and started again keeps its address.
// A fixed host port is a port binding in the host config: an exposed port
// names only the container's side ("2181/tcp"; testcontainers-go refuses
// "HOST:2181/tcp" there).
func containerOptions(env map[string]string, hostPort int) []testcontainers.ContainerCustomizer {
	opts := []testcontainers.ContainerCustomizer{
		testcontainers.WithEnv(env),
		testcontainers.WithExposedPorts(clientPort),
		testcontainers.WithWaitStrategy(wait.ForListeningPort(clientPort).WithStartupTimeout(zkserver.StartTimeout)),
		testcontainers.WithFiles(testcontainers.ContainerFile{
			Reader: strings.NewReader(dnsSecurity), ContainerFilePath: dnsSecurityPath, FileMode: 0o644,
		}),
	}
	if hostPort != 0 {
		opts = append(opts, testcontainers.WithHostConfigModifier(func(hc *container.HostConfig) {
			hc.PortBindings = dockernet.PortMap{
				dockernet.MustParsePort(clientPort): {{HostPort: strconv.Itoa(hostPort)}},
			}
		}))
	}
	return opts
}

// endpoint is a container's client address as testcontainers sees it: the
// engine's host (not always 127.0.0.1: a remote DOCKER_HOST, or a client
// that itself runs in a container) and the host port mapped to 2181.
func endpoint(ctx context.Context, ctr testcontainers.Container) (string, error) {
	addr, err := ctr.PortEndpoint(ctx, clientPort, "")
	if err != nil {
		return "", fmt.Errorf("%s client port: %w", zkserver.Image(), err)
	}
	return addr, nil
}

// cleanupWithoutRyuk is what a user is told when testcontainers' reaper is
// off (TESTCONTAINERS_RYUK_DISABLED=true, or ryuk.disabled in
// ~/.testcontainers.properties): the helper still removes its containers
// when the run ends or is interrupted, but a helper killed with SIGKILL leaves
// them, with their volumes (and an ensemble's network).
const cleanupWithoutRyuk = "Ryuk, testcontainers' reaper, is off: if this run is killed (SIGKILL) its containers stay;" +
	" remove them with: " + zkserver.DockerCleanup + " (see docs/troubleshooting.md)"

// ping asks the engine whether it answers, before anything is pulled.
func ping(ctx context.Context) error {
	p, err := testcontainers.NewDockerProvider()
	if err != nil {
		return err
	}
	return p.Health(ctx) // Health closes the provider
}

// engine makes sure a Docker engine answers before anything is started,
// with testcontainers' own log silenced (it would bury our one line), and
// says before anything exists when nobody will remove what a killed helper
// leaves (Ryuk disabled).
func engine(ctx context.Context) error {
	tclog.SetDefault(tclog.NewNoopLogger())
	pctx, pcancel := context.WithTimeout(ctx, 5*time.Second)
	err := ping(pctx)
	pcancel()
	if err != nil {
		return fmt.Errorf("docker engine does not answer: %w", err)
	}
	if testcontainers.ReadConfig().Config.RyukDisabled {
		fmt.Fprintln(os.Stderr, cleanupWithoutRyuk)
	}
	return nil
}

// containers are the servers this helper started: one, or an ensemble on
// its own Docker network.
type containers struct {
	addrs []string
	ctrs  []testcontainers.Container
	nw    *testcontainers.DockerNetwork
}

// assemble checks the engine, lets start run the containers into cl, and
// waits until every address in cl.addrs serves (a listening port is not yet
// a serving server: see zkserver.WaitServing). If any step fails it stops
// whatever start had started, and returns the error.
func assemble(ctx context.Context, start func(cl *containers) error) (*containers, error) {
	if err := engine(ctx); err != nil {
		return nil, err
	}
	cl := &containers{}
	err := start(cl)
	if err == nil {
		wctx, cancel := context.WithTimeout(ctx, zkserver.StartTimeout)
		defer cancel()
		for _, addr := range cl.addrs {
			if err = zkserver.WaitServing(wctx, addr); err != nil {
				break
			}
		}
	}
	if err != nil {
		cl.close()
		return nil, err
	}
	return cl, nil
}

// startContainers runs n servers of the pinned image and waits until each
// serves. n is 1 (a random host port) or an odd number ≥ 3 (fixed host
// ports, so that a restarted member keeps its address).
func startContainers(ctx context.Context, n int) (*containers, error) {
	if n != 1 && (n < 3 || n%2 == 0) {
		return nil, fmt.Errorf("%d servers: want 1, or an odd number ≥ 3", n)
	}
	return assemble(ctx, func(cl *containers) (err error) {
		if n == 1 {
			ctr, err := testcontainers.Run(ctx, zkserver.Image(), containerOptions(containerEnv(), 0)...)
			if ctr != nil {
				cl.ctrs = append(cl.ctrs, ctr)
			}
			if err != nil {
				return fmt.Errorf("start %s: %w", zkserver.Image(), err)
			}
			addr, err := endpoint(ctx, ctr)
			if err != nil {
				return err
			}
			cl.addrs = []string{addr}
		} else {
			if cl.nw, err = network.New(ctx); err != nil {
				return fmt.Errorf("docker network: %w", err)
			}
			// Ports free on this host; with a remote engine they are only
			// likely free there, and a taken one fails the member's start.
			ports, err := zkserver.FreePorts(n)
			if err != nil {
				return err
			}
			for i := range n {
				env := containerEnv()
				env["ZOO_MY_ID"] = strconv.Itoa(i + 1)
				env["ZOO_SERVERS"] = zooServers(n)
				alias := fmt.Sprintf("zk%d", i+1)
				opts := append(containerOptions(env, ports[i]), network.WithNetwork([]string{alias}, cl.nw))
				ctr, err := testcontainers.Run(ctx, zkserver.Image(), opts...)
				if ctr != nil {
					cl.ctrs = append(cl.ctrs, ctr)
				}
				if err != nil {
					return fmt.Errorf("start ensemble member %s: %w", alias, err)
				}
				addr, err := endpoint(ctx, ctr)
				if err != nil {
					return err
				}
				cl.addrs = append(cl.addrs, addr)
			}
		}
		return nil
	})
}

// Where a kept member's files go in the container: the official image's
// dataDir (its ZOO_DATA_DIR, a volume) and zoo.cfg (ZOO_CONF_DIR; with one
// there, the image's entrypoint writes none from the ZOO_* variables).
const (
	keptDataDir = "/data"
	keptConfig  = "/conf/zoo.cfg"
)

// startKeptContainers runs a kept ensemble (zkserver.StartKeptEnsemble on
// Docker): member i in container zk<i+1> on a network of their own, its
// host directory spec.Members[i].Data bind-mounted as /data, its client
// port published on spec.Addr:spec.Members[i].Port, running as spec.User.
// Each member's zoo.cfg is zkserver.KeptConfig, as from a local install.
func startKeptContainers(ctx context.Context, spec zkserver.HelperKept) (*containers, error) {
	n := len(spec.Members)
	if n < 3 || n%2 == 0 {
		return nil, fmt.Errorf("kept ensemble of %d members: want an odd number ≥ 3", n)
	}
	hostIP, err := netip.ParseAddr(spec.Addr)
	if err != nil {
		return nil, fmt.Errorf("kept ensemble: address %q: %w", spec.Addr, err)
	}
	for _, m := range spec.Members {
		if !filepath.IsAbs(m.Data) || m.Port <= 0 {
			return nil, fmt.Errorf("kept member %+v: want an absolute data directory and a port", m)
		}
	}
	return assemble(ctx, func(cl *containers) (err error) {
		if cl.nw, err = network.New(ctx); err != nil {
			return fmt.Errorf("docker network: %w", err)
		}
		var peers []string
		for i := range n {
			peers = append(peers, fmt.Sprintf("server.%d=zk%d:2888:3888", i+1, i+1))
		}
		cfg := strings.Join(zkserver.KeptConfig(keptDataDir, "", 2181, peers), "\n") + "\n"
		// The members start side by side: an engine that copies the image
		// for each container (the vfs storage driver) takes seconds per copy,
		// and a member serves only once a quorum is up anyway.
		ctrs := make([]testcontainers.Container, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i, m := range spec.Members {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ctrs[i], errs[i] = runKeptMember(ctx, cl.nw, spec, hostIP, cfg, i, m)
			}()
		}
		wg.Wait()
		for i, ctr := range ctrs {
			if ctr != nil {
				cl.ctrs = append(cl.ctrs, ctr)
			}
			cl.addrs = append(cl.addrs, net.JoinHostPort(spec.Addr, strconv.Itoa(spec.Members[i].Port)))
		}
		if err := errors.Join(errs...); err != nil {
			return err
		}
		return nil
	})
}

// runKeptMember runs member i of a kept ensemble (see startKeptContainers).
func runKeptMember(ctx context.Context, nw *testcontainers.DockerNetwork, spec zkserver.HelperKept, hostIP netip.Addr, cfg string, i int, m zkserver.HelperKeptMember) (testcontainers.Container, error) {
	alias := fmt.Sprintf("zk%d", i+1)
	env := map[string]string{"ZOO_MY_ID": strconv.Itoa(i + 1), "JVMFLAGS": containerEnv()["JVMFLAGS"]}
	opts := []testcontainers.ContainerCustomizer{
		testcontainers.WithEnv(env),
		testcontainers.WithExposedPorts(clientPort),
		// No wait strategy: the client port is published on spec.Addr
		// alone, which testcontainers' own dial (to its idea of the
		// host) may not reach; startKeptContainers waits on the address.
		testcontainers.WithFiles(
			testcontainers.ContainerFile{Reader: strings.NewReader(dnsSecurity), ContainerFilePath: dnsSecurityPath, FileMode: 0o644},
			testcontainers.ContainerFile{Reader: strings.NewReader(cfg), ContainerFilePath: keptConfig, FileMode: 0o644},
		),
		testcontainers.WithConfigModifier(func(c *container.Config) { c.User = spec.User }),
		testcontainers.WithHostConfigModifier(func(hc *container.HostConfig) {
			hc.PortBindings = dockernet.PortMap{
				dockernet.MustParsePort(clientPort): {{HostIP: hostIP, HostPort: strconv.Itoa(m.Port)}},
			}
			hc.Binds = append(hc.Binds, m.Data+":"+keptDataDir)
		}),
		network.WithNetwork([]string{alias}, nw),
	}
	ctr, err := testcontainers.Run(ctx, zkserver.Image(), opts...)
	if err != nil {
		return ctr, fmt.Errorf("start kept ensemble member %s: %w", alias, err)
	}
	return ctr, nil
}

// zooServers is the ZOO_SERVERS value for an ensemble of n containers
// reachable on the Docker network as zk1…zkN.
func zooServers(n int) string {
	var s []string
	for i := 1; i <= n; i++ {
		s = append(s, fmt.Sprintf("server.%d=zk%d:2888:3888;2181", i, i))
	}
	return strings.Join(s, " ")
}

func (cl *containers) Addrs() []string { return cl.addrs }

// Stop kills member i at once, like a crash.
func (cl *containers) Stop(ctx context.Context, i int) error {
	timeout := time.Duration(0)
	return cl.ctrs[i].Stop(ctx, &timeout)
}

// Start starts a stopped member again, with its data.
func (cl *containers) Start(ctx context.Context, i int) error {
	return cl.ctrs[i].Start(ctx)
}

// Close removes every container and the network.
func (cl *containers) Close() { cl.close() }

// close says what it could not remove: the user then knows what is left
// and the command that removes it.
func (cl *containers) close() {
	for _, c := range cl.ctrs {
		if err := testcontainers.TerminateContainer(c); err != nil {
			fmt.Fprintf(os.Stderr, "zkdocker: remove container %.12s: %v; to remove what is left: %s\n", c.GetContainerID(), err, zkserver.DockerCleanup)
		}
	}
	if cl.nw != nil {
		if err := cl.nw.Remove(context.Background()); err != nil {
			fmt.Fprintf(os.Stderr, "zkdocker: remove network %s: %v; to remove what is left: %s\n", cl.nw.Name, err, zkserver.DockerCleanup)
		}
	}
}
