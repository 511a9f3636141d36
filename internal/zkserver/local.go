package zkserver

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// TickTime of the servers started here. Short, so that session-expiry tests
// are fast: the shortest session a client may ask for is 2 ticks (400 ms).
const TickTime = 200 * time.Millisecond

// StartTimeout bounds how long one server may take to begin serving (the
// Docker helper waits as long for each of its containers).
const StartTimeout = 60 * time.Second

// member is one ZooKeeper server running as a child process.
type member struct {
	install    Install
	dir        string // holds zoo.cfg, data/ and server.log
	cleanDir   string // what the watchdog removes if we die: dir, or the ensemble's
	id         int    // myid; 0 for standalone
	clientPort int
	config     Config // Fast or Stock
	proc       *process
	host       string // the client port's address; "" is 127.0.0.1 (kept.go)
	keep       bool   // the data outlives the process: nothing is removed (kept.go)
}

func (m *member) addr() string {
	host := m.host
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, strconv.Itoa(m.clientPort))
}

// writeConfig writes zoo.cfg (and myid for an ensemble member).
// peers are "server.N=..." lines; empty for a standalone server.
func (m *member) writeConfig(peers []string) error {
	data := filepath.Join(m.dir, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		return err
	}
	var cfg []string
	if m.config == Stock {
		stock, err := stockConfig(m.install)
		if err != nil {
			return err
		}
		cfg = append(stock, "dataDir="+data, "clientPort="+strconv.Itoa(m.clientPort))
	} else {
		cfg = fastConfig(data, m.clientPort)
	}
	cfg = append(cfg, peers...)
	if err := os.WriteFile(filepath.Join(m.dir, "zoo.cfg"), []byte(strings.Join(cfg, "\n")+"\n"), 0o644); err != nil {
		return err
	}
	if m.id > 0 {
		return os.WriteFile(filepath.Join(data, "myid"), []byte(strconv.Itoa(m.id)+"\n"), 0o644)
	}
	return nil
}

// fastConfig is the zoo.cfg of a Fast server.
func fastConfig(data string, clientPort int) []string {
	return []string{
		"tickTime=" + strconv.Itoa(int(TickTime/time.Millisecond)),
		"initLimit=20",
		"syncLimit=10",
		"dataDir=" + data,
		"clientPort=" + strconv.Itoa(clientPort),
		"clientPortAddress=127.0.0.1",
		"maxClientCnxns=0",        // tests and the bench open hundreds of sessions
		"maxSessionTimeout=60000", // default is 20 ticks = 4 s
		"4lw.commands.whitelist=*",
		"admin.enableServer=false",
		"forceSync=no", // throw-away data: don't wait for fsync
	}
}

// start launches the JVM. With wait, it returns once the server serves.
func (m *member) start(ctx context.Context, wait bool) error {
	args := []string{
		"-Xmx256m", "-XX:+UseSerialGC", "-Xshare:auto",
		"-Dzookeeper.admin.enableServer=false",
		// Empty container nodes (the lock dirs) are removed every 500 ms
		// instead of every minute, so tests can watch it happen.
		"-Dznode.container.checkIntervalMs=500",
		"-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
	}
	if m.config == Stock {
		args = nil // as installed: no JVM options at all
	}
	args = append(args,
		"-cp", m.install.Classpath,
		"org.apache.zookeeper.server.quorum.QuorumPeerMain",
		filepath.Join(m.dir, "zoo.cfg"),
	)
	clean := m.cleanDir
	if clean == "" {
		clean = m.dir
	}
	if m.keep {
		clean = ""
	}
	p, err := startProcess(m.install.Java, args, filepath.Join(m.dir, "server.log"), clean)
	if err != nil {
		return fmt.Errorf("zkserver: start %s: %w", m.install.Java, err)
	}
	m.proc = p
	if !wait {
		return nil
	}
	return m.waitServing(ctx)
}

func (m *member) waitServing(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, StartTimeout)
	defer cancel()
	if err := waitServing(ctx, m.addr(), m.proc.exited); err != nil {
		return fmt.Errorf("%w\n--- %s ---\n%s", err, filepath.Join(m.dir, "server.log"), tail(filepath.Join(m.dir, "server.log"), 20))
	}
	return nil
}

func (m *member) stop() {
	if m.proc != nil {
		m.proc.kill()
		m.proc = nil
	}
}

// startLocal runs a Fast standalone server from inst on a free loopback port.
func startLocal(ctx context.Context, inst Install) (*Server, error) {
	return startLocalConfig(ctx, inst, Fast)
}

func startLocalConfig(ctx context.Context, inst Install, config Config) (*Server, error) {
	dir, err := os.MkdirTemp("", "lockstep-zk-")
	if err != nil {
		return nil, err
	}
	ports, err := freePorts(1)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	m := &member{install: inst, dir: dir, clientPort: ports[0], config: config}
	cleanup := func() { m.stop(); os.RemoveAll(dir) }
	if err := m.writeConfig(nil); err != nil {
		cleanup()
		return nil, err
	}
	progress("starting ZooKeeper %s (%s configuration) from the %s on %s; this takes 2–10 s…",
		orUnknown(inst.Version()), config, inst.Where, m.addr())
	if err := m.start(ctx, true); err != nil {
		cleanup()
		return nil, err
	}
	return &Server{Servers: []string{m.addr()}, Source: FromLocal, Detail: inst.Where, Config: config,
		Version: versionOf(ctx, m.addr()), stop: cleanup, dir: dir}, nil
}

// FreePorts asks the kernel for n free loopback ports; see freePorts. The
// Docker helper uses it for an ensemble's fixed host ports.
func FreePorts(n int) ([]int, error) { return freePorts(n) }

// freePorts asks the kernel for n free loopback ports. They are released
// before the server binds them, so a rare collision is possible; the server
// then fails to start and says so in its log.
func freePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("zkserver: find a free port: %w", err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// tail returns the last n lines of a file, for error messages.
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
