package zkserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/testcontainers/testcontainers-go"
	tclog "github.com/testcontainers/testcontainers-go/log"
	"github.com/testcontainers/testcontainers-go/wait"
)

// DockerTag pins the official image used when a Docker engine is available.
const DockerTag = "3.9.3"

// DockerImage is the image reference the Docker path starts.
const DockerImage = "zookeeper:" + DockerTag

// containerEnv configures the official image like the local servers: short
// ticks, all four-letter words, no admin server, fast container-node cleanup.
func containerEnv() map[string]string {
	return map[string]string{
		"ZOO_TICK_TIME":              strconv.Itoa(int(TickTime / time.Millisecond)),
		"ZOO_INIT_LIMIT":             "20",
		"ZOO_SYNC_LIMIT":             "10",
		"ZOO_MAX_CLIENT_CNXNS":       "0",
		"ZOO_4LW_COMMANDS_WHITELIST": "*",
		"ZOO_ADMINSERVER_ENABLED":    "false",
		"ZOO_CFG_EXTRA":              "maxSessionTimeout=60000 forceSync=no",
		"JVMFLAGS":                   "-Xmx256m -Dznode.container.checkIntervalMs=500",
	}
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

// dockerAvailable says whether a Docker engine answers. Without DOCKER_HOST
// or a socket file it answers at once, without asking testcontainers-go
// (which would log its own complaints).
func dockerAvailable(ctx context.Context) error {
	return dockerAvailableWith(ctx, os.Getenv, fileExists, pingDocker)
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

func pingDocker(ctx context.Context) error {
	tclog.SetDefault(tclog.NewNoopLogger())
	p, err := testcontainers.NewDockerProvider()
	if err != nil {
		return err
	}
	return p.Health(ctx) // Health closes the provider
}

// startContainer runs the pinned image and waits until it serves.
func startContainer(ctx context.Context) (*Server, error) {
	progress("starting ZooKeeper %s in Docker (%s); the first time pulls the image (about 100 MB, up to a minute), then 5–15 s…", DockerTag, DockerImage)
	ctr, err := testcontainers.Run(ctx, DockerImage,
		testcontainers.WithEnv(containerEnv()),
		testcontainers.WithExposedPorts("2181/tcp"),
		testcontainers.WithWaitStrategy(wait.ForListeningPort("2181/tcp").WithStartupTimeout(startTimeout)),
	)
	stop := func() {
		if ctr != nil {
			testcontainers.TerminateContainer(ctr)
		}
	}
	if err != nil {
		stop()
		return nil, fmt.Errorf("zkserver: start %s: %w", DockerImage, err)
	}
	addr, err := ctr.PortEndpoint(ctx, "2181/tcp", "")
	if err != nil {
		stop()
		return nil, fmt.Errorf("zkserver: %s port: %w", DockerImage, err)
	}
	wctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	if err := waitServing(wctx, addr, nil); err != nil {
		stop()
		return nil, err
	}
	return &Server{Servers: []string{addr}, Source: FromDocker, Detail: DockerImage, Config: Fast, Version: DockerTag, stop: stop}, nil
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
