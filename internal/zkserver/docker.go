package zkserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// DockerTag pins the official image used when a Docker engine is available.
const DockerTag = "3.9.3"

// DockerImage is the image reference the Docker path starts (through the
// helper, internal/cmd/zkdocker, which holds the rest of its configuration),
// unless LOCKSTEP_ZK_IMAGE names another (see Image).
const DockerImage = "zookeeper:" + DockerTag

// Image is the image the Docker path starts: LOCKSTEP_ZK_IMAGE when set (a
// local build, a mirror behind a corporate registry, the stand-in that
// scripts/docker-zookeeper builds from Debian's packages), else DockerImage.
// Any image that honours the official image's environment (ZOO_MY_ID,
// ZOO_SERVERS, ZOO_TICK_TIME, ZOO_CFG_EXTRA, JVMFLAGS …) will do.
func Image() string {
	if img := strings.TrimSpace(os.Getenv("LOCKSTEP_ZK_IMAGE")); img != "" {
		return img
	}
	return DockerImage
}

// dockerSockets are where engines usually listen when DOCKER_HOST is unset.
func dockerSockets() []string {
	home, _ := os.UserHomeDir()
	return []string{
		"/var/run/docker.sock",
		filepath.Join(home, ".docker", "run", "docker.sock"),
		filepath.Join(home, ".colima", "default", "docker.sock"),
		filepath.Join(home, ".rd", "docker.sock"),
	}
}

var errNoDocker = errors.New("no Docker engine (DOCKER_HOST unset and no docker.sock found)")

// dockerAvailable is the cheap check that comes before the Docker helper is
// built and run: without DOCKER_HOST or a socket file it answers at once,
// and a socket nothing listens on (an engine that is stopped) is refused
// in a millisecond instead of after building the helper.
func dockerAvailable(ctx context.Context) error {
	return dockerAvailableWith(ctx, os.Getenv, fileExists, dialDocker)
}

func dockerAvailableWith(ctx context.Context, getenv func(string) string, exists func(string) bool, ping func(context.Context) error) error {
	// TESTCONTAINERS_DOCKER_SOCKET_OVERRIDE is not an engine: in
	// testcontainers-go it is the socket path mounted into its reaper.
	if getenv("DOCKER_HOST") == "" {
		found := false
		for _, s := range dockerSockets() {
			if exists(s) {
				found = true
				break
			}
		}
		if !found {
			return errNoDocker
		}
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := ping(ctx); err != nil {
		return fmt.Errorf("docker engine does not answer: %w", err)
	}
	return nil
}

// dialDocker connects to the engine's socket (DOCKER_HOST's unix:// or
// tcp:// address, else the first socket file found) and hangs up: whether
// anything listens is all the cheap check wants to know. An address it
// cannot dial itself (ssh://, npipe://) is left to the helper.
func dialDocker(ctx context.Context) error {
	network, addr := "", ""
	if h := os.Getenv("DOCKER_HOST"); h != "" {
		u, err := url.Parse(h)
		if err != nil {
			return fmt.Errorf("DOCKER_HOST=%q: %w", h, err)
		}
		switch u.Scheme {
		case "unix":
			network, addr = "unix", u.Path
		case "tcp":
			network, addr = "tcp", u.Host
		default:
			return nil
		}
	} else {
		for _, s := range dockerSockets() {
			if fileExists(s) {
				network, addr = "unix", s
				break
			}
		}
		if addr == "" {
			return nil
		}
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return err
	}
	return conn.Close()
}

// startDocker runs the helper for one server and waits until it serves.
func startDocker(ctx context.Context, command helperCommand) (*Server, error) {
	progress("starting ZooKeeper in Docker (%s); %s, then 5–15 s…", Image(), firstUse())
	h, err := startHelper(ctx, command, "-n", "1")
	if err != nil {
		return nil, err
	}
	return &Server{Servers: h.addrs, Source: FromDocker, Detail: Image(), Config: Fast,
		Version: versionOf(ctx, h.addrs[0]), stop: h.close}, nil
}

// firstUse says what the first Docker run does before the server starts:
// go run builds the helper, and an image the engine lacks is pulled.
func firstUse() string {
	return "the first run builds the Docker helper (about a minute) and pulls the image if the engine lacks it (about 100 MB)"
}
