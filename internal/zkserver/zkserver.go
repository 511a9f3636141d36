// Package zkserver gives demos and tests a running ZooKeeper with one call.
//
// Start looks, in this order, for:
//
//  1. ZK_SERVERS (comma-separated host:port): used as is, nothing is started;
//  2. a Docker engine (DOCKER_HOST, or a docker.sock that answers): the
//     Docker helper, internal/cmd/zkdocker, starts the official zookeeper
//     image through testcontainers-go. It runs as a child process (go run,
//     built the first time), so that no binary linking this package links a
//     Docker client; if it fails, Start says why and goes on to 3;
//  3. a local ZooKeeper install (Debian's zookeeper package, Homebrew, or
//     ZOOKEEPER_HOME) and java: QuorumPeerMain runs as a child process on a
//     free loopback port, in a fresh temporary directory;
//
// and otherwise returns ErrNoZooKeeper, whose message says what to install.
// LOCKSTEP_ZK=docker or LOCKSTEP_ZK=local forces path 2 or 3.
//
// This is plumbing, not a lesson: chapters only call Start and Close.
package zkserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/lockstep-zk/lockstep/internal/zksession"
)

// ErrNoZooKeeper means no server was configured and none could be started.
var ErrNoZooKeeper = errors.New(`zkserver: no ZooKeeper available. Do one of:
  - set ZK_SERVERS=host:port[,host:port...] to use a server you already run;
  - start a Docker engine (the zookeeper:` + DockerTag + ` image is then started for you);
  - install ZooKeeper and Java: "sudo apt-get install zookeeper" (Debian/Ubuntu),
    "brew install zookeeper" (macOS), or unpack Apache ZooKeeper and set ZOOKEEPER_HOME;
  - or run "make test" / "make demo", which install Debian's package when run as root`)

// Source says where a Server came from.
type Source int

const (
	FromEnv    Source = iota + 1 // ZK_SERVERS
	FromDocker                   // a container started by the Docker helper (testcontainers-go)
	FromLocal                    // a QuorumPeerMain child process
)

func (s Source) String() string {
	switch s {
	case FromEnv:
		return "ZK_SERVERS"
	case FromDocker:
		return "docker"
	case FromLocal:
		return "local install"
	}
	return fmt.Sprintf("Source(%d)", int(s))
}

// Server is a reachable ZooKeeper (standalone or an ensemble's client ports).
type Server struct {
	// Servers is the list to pass to zk.Connect.
	Servers []string
	// Source says which path of Start produced it.
	Source Source
	// Detail describes it for humans: the install found, or the image.
	Detail string
	// Config is how a server started here is configured; Unknown for
	// ZK_SERVERS (internal/zktest asks such a server what it allows).
	Config Config
	// Version is what the server says it runs ("3.8.0"); "" if unknown.
	Version string

	closeOnce sync.Once
	stop      func()
	dir       string // FromLocal: the server's temporary directory
}

// ConnectString is Servers joined by commas, as ZK_SERVERS and zkCli.sh want it.
func (s *Server) ConnectString() string { return strings.Join(s.Servers, ",") }

// Close stops what Start started (nothing for ZK_SERVERS). It is safe to call
// on a nil Server and more than once, so it can be registered as cleanup
// before the error from Start is checked.
func (s *Server) Close() {
	if s == nil {
		return
	}
	s.closeOnce.Do(func() {
		if s.stop != nil {
			s.stop()
		}
	})
}

// Start returns a running ZooKeeper; see the package comment for the order.
func Start(ctx context.Context) (*Server, error) {
	return start(ctx, systemProbes())
}

func start(ctx context.Context, pr probes) (*Server, error) {
	p, err := choose(ctx, pr)
	if err != nil {
		return nil, err
	}
	switch p.source {
	case FromEnv:
		if err := reachable(ctx, p.servers); err != nil {
			return nil, err
		}
		return &Server{Servers: p.servers, Source: FromEnv, Detail: "ZK_SERVERS=" + strings.Join(p.servers, ","),
			Version: versionOf(ctx, p.servers[0])}, nil
	case FromDocker:
		srv, err := startDocker(ctx, pr.helper)
		if err == nil {
			return srv, nil
		}
		if p.install, err = fallBack(pr, err); err != nil {
			return nil, err
		}
	}
	return startLocal(ctx, p.install)
}

// fallBack is what follows a Docker step that failed although an engine
// was found: the local install, as when there is no engine at all, unless
// LOCKSTEP_ZK=docker allows only Docker.
func fallBack(pr probes, dockerErr error) (Install, error) {
	if strings.EqualFold(strings.TrimSpace(pr.getenv("LOCKSTEP_ZK")), "docker") {
		return Install{}, dockerErr
	}
	why := strings.TrimPrefix(dockerErr.Error(), "zkserver: Docker: ")
	inst, err := pr.findLocal()
	if err != nil {
		return Install{}, fmt.Errorf("%w\n(looked for: docker: %s; local install: %v)", ErrNoZooKeeper, why, err)
	}
	progress("Docker: %s; using the local install instead", why)
	return inst, nil
}

// Progress is where Start says what it starts and how long that takes, as
// the first run of a demo or of the tests would otherwise sit silent for
// seconds (or, pulling an image, a minute). Nil keeps quiet.
var Progress io.Writer = os.Stderr

func progress(format string, args ...any) {
	if Progress != nil {
		fmt.Fprintf(Progress, "zkserver: "+format+"\n", args...)
	}
}

func orUnknown(version string) string {
	if version == "" {
		return "(version unknown)"
	}
	return version
}

// plan is what choose decided.
type plan struct {
	source  Source
	servers []string // FromEnv
	install Install  // FromLocal
}

// probes are the facts choose looks at, and the Docker helper Start runs
// when choose picks Docker; tests replace them.
type probes struct {
	getenv    func(string) string
	dockerUp  func(context.Context) error
	findLocal func() (Install, error)
	helper    helperCommand
}

func systemProbes() probes {
	return probes{getenv: os.Getenv, dockerUp: dockerAvailable, findLocal: FindInstall, helper: goRunHelper}
}

// choose picks the first path that can work. It starts nothing.
func choose(ctx context.Context, p probes) (plan, error) {
	if env := p.getenv("ZK_SERVERS"); strings.TrimSpace(env) != "" {
		servers, err := ParseServers(env)
		if err != nil {
			return plan{}, err
		}
		return plan{source: FromEnv, servers: servers}, nil
	}
	force := strings.ToLower(strings.TrimSpace(p.getenv("LOCKSTEP_ZK")))
	if force != "" && force != "docker" && force != "local" {
		return plan{}, fmt.Errorf("zkserver: LOCKSTEP_ZK=%q: want docker or local", force)
	}
	var reasons []string
	if force != "local" {
		err := p.dockerUp(ctx)
		if err == nil {
			return plan{source: FromDocker}, nil
		}
		reasons = append(reasons, "docker: "+err.Error())
	}
	if force != "docker" {
		inst, err := p.findLocal()
		if err == nil {
			return plan{source: FromLocal, install: inst}, nil
		}
		reasons = append(reasons, "local install: "+err.Error())
	}
	if force != "" {
		reasons = append(reasons, "LOCKSTEP_ZK="+force+" allows only that way; unset it to try the others")
	}
	return plan{}, fmt.Errorf("%w\n(looked for: %s)", ErrNoZooKeeper, strings.Join(reasons, "; "))
}

// ErrUnreachable means ZK_SERVERS names servers none of which accepts a
// connection: a typo, or a server that is down. Nothing is installed or
// started in its place.
var ErrUnreachable = errors.New("zkserver: no server in ZK_SERVERS accepts a connection")

// reachable checks that at least one of servers accepts a TCP connection
// (any ZooKeeper does, whatever its four-letter-word whitelist), so that a
// typo in ZK_SERVERS is one clear error instead of every test timing out.
func reachable(ctx context.Context, servers []string) error {
	var errs []string
	for _, s := range servers {
		dctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		var d net.Dialer
		conn, err := d.DialContext(dctx, "tcp", s)
		cancel()
		if err == nil {
			conn.Close()
			return nil
		}
		errs = append(errs, err.Error())
	}
	return fmt.Errorf("%w (ZK_SERVERS=%s): %s; fix or unset ZK_SERVERS", ErrUnreachable, strings.Join(servers, ","), strings.Join(errs, "; "))
}

// ParseServers splits a comma-separated host:port list and checks each
// entry; a chroot ("host:2181/app") is refused, naming it.
func ParseServers(list string) ([]string, error) {
	var out []string
	for _, s := range strings.Split(list, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if err := zksession.CheckServers([]string{s}); err != nil {
			return nil, err // a chroot: refused before anything dials
		}
		i := strings.LastIndex(s, ":")
		if i <= 0 || i == len(s)-1 {
			return nil, fmt.Errorf("zkserver: server %q: want host:port", s)
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("zkserver: empty server list %q", list)
	}
	return out, nil
}

// Which says which path Start would take, without starting anything.
func Which(ctx context.Context) (string, error) {
	p, err := choose(ctx, systemProbes())
	if err != nil {
		return "", err
	}
	switch p.source {
	case FromEnv:
		if err := reachable(ctx, p.servers); err != nil {
			return "", err
		}
		v := versionOf(ctx, p.servers[0])
		return "ZK_SERVERS=" + strings.Join(p.servers, ",") + " (ZooKeeper " + orUnknown(v) + "): used as it is, nothing is started", nil
	case FromDocker:
		return "Docker: each demo and each test package starts ZooKeeper in a container of " + Image() +
			" through the Docker helper (go run " + helperPackage + "); " + firstUse() + ", later starts take 5–15 s", nil
	default:
		return "local install: " + p.install.Where + ", java " + p.install.Java + ": each demo and each test package starts ZooKeeper " +
			orUnknown(p.install.Version()) + " from it (2–10 s each)", nil
	}
}
