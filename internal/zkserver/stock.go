package zkserver

import (
	"context"
	"fmt"
	"os"
	"strings"
)

// Config says how a server this package starts is configured.
type Config int

const (
	// Unknown: a server from ZK_SERVERS; ask it (see internal/zktest).
	Unknown Config = iota
	// Fast is how demos and tests run by default: tickTime 200 ms (sessions
	// of 400 ms to 60 s), every four-letter word allowed, empty containers
	// reaped every 500 ms.
	Fast
	// Stock is ZooKeeper as installed: the install's own sample zoo.cfg with
	// only dataDir and clientPort changed (and the server.N lines of an
	// ensemble), no JVM properties. For Debian's 3.8 and the tarball's
	// sample that means tickTime 2000 (sessions of 4 to 40 s), only srvr
	// among the four-letter words, and empty containers reaped once a minute.
	Stock
)

func (c Config) String() string {
	switch c {
	case Fast:
		return "fast"
	case Stock:
		return "stock"
	}
	return "unknown"
}

// ParseConfig reads "fast" or "stock".
func ParseConfig(s string) (Config, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "fast":
		return Fast, nil
	case "stock":
		return Stock, nil
	}
	return Unknown, fmt.Errorf("zkserver: configuration %q: want fast or stock", s)
}

// sampleConfig is zoo_sample.cfg as Apache ships it (Debian's example is the
// same), for an install that has none.
const sampleConfig = `tickTime=2000
initLimit=10
syncLimit=5
dataDir=/tmp/zookeeper
clientPort=2181
`

// stockConfig returns the install's sample configuration, one setting a
// line, less dataDir and clientPort (which every server here sets itself).
func stockConfig(inst Install) ([]string, error) {
	text := sampleConfig
	if inst.StockConfig != "" {
		b, err := os.ReadFile(inst.StockConfig)
		if err != nil {
			return nil, fmt.Errorf("zkserver: stock configuration: %w", err)
		}
		text = string(b)
	}
	var out []string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, _, _ := strings.Cut(line, "=")
		switch strings.TrimSpace(key) {
		case "dataDir", "clientPort":
			continue
		}
		if strings.HasPrefix(key, "server.") { // a sample's own ensemble lines
			continue
		}
		out = append(out, line)
	}
	return out, nil
}

// StartLocalWith starts a standalone server from the local install (never
// ZK_SERVERS or Docker) in the given configuration; scripts/stock-zookeeper
// uses it through internal/cmd/zkserve, and tests that need a stock server.
func StartLocalWith(ctx context.Context, cfg Config) (*Server, error) {
	inst, err := FindInstall()
	if err != nil {
		return nil, fmt.Errorf("%w\n(looked for: local install: %v)", ErrNoZooKeeper, err)
	}
	return startLocalConfig(ctx, inst, cfg)
}

// StartLocalEnsembleWith starts n local servers in the given configuration.
func StartLocalEnsembleWith(ctx context.Context, n int, cfg Config) (*Ensemble, error) {
	if n < 3 || n%2 == 0 {
		return nil, fmt.Errorf("zkserver: ensemble of %d servers: want an odd number ≥ 3", n)
	}
	inst, err := FindInstall()
	if err != nil {
		return nil, fmt.Errorf("%w\n(looked for: local install: %v)", ErrNoZooKeeper, err)
	}
	return startLocalEnsemble(ctx, inst, n, cfg)
}

// versionOf asks a running server its version with srvr (allowed on every
// server): "Zookeeper version: 3.8.0-…, built on …" gives "3.8.0".
func versionOf(ctx context.Context, addr string) string {
	out, err := FourLetter(ctx, addr, "srvr")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(line, "Zookeeper version: "); ok {
			v, _, _ = strings.Cut(v, ",")
			v, _, _ = strings.Cut(v, "-")
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// Version asks the server at addr its version ("3.8.0"); "" if it won't say.
func Version(ctx context.Context, addr string) string { return versionOf(ctx, addr) }
