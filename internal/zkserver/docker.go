package zkserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"time"
)

// DockerTag pins the official image used when a Docker engine is available.
const DockerTag = "3.9.3"

// DockerImage is the image reference the Docker path starts (through the
// helper, internal/cmd/zkdocker, which holds the rest of its configuration).
const DockerImage = "zookeeper:" + DockerTag

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
	if getenv("DOCKER_HOST") == "" && getenv("TESTCONTAINERS_DOCKER_SOCKET_OVERRIDE") == "" {
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
	progress("starting ZooKeeper %s in Docker (%s); the first time builds the Docker helper (about a minute) and pulls the image (about 100 MB, up to a minute), then 5–15 s…", DockerTag, DockerImage)
	h, err := startHelper(ctx, command, 1)
	if err != nil {
		return nil, err
	}
	return &Server{Servers: h.addrs, Source: FromDocker, Detail: DockerImage, Config: Fast, Version: DockerTag, stop: h.close}, nil
}
