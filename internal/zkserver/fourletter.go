package zkserver

import (
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"time"
)

// FourLetter sends one of ZooKeeper's four-letter words (ruok, srvr, mntr,
// cons, …) to addr and returns the reply. The server must whitelist it
// (4lw.commands.whitelist); the servers this package starts allow all.
func FourLetter(ctx context.Context, addr, word string) (string, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	deadline := time.Now().Add(2 * time.Second)
	if dl, ok := ctx.Deadline(); ok && dl.Before(deadline) {
		deadline = dl
	}
	conn.SetDeadline(deadline)
	if _, err := io.WriteString(conn, word); err != nil {
		return "", err
	}
	b, err := io.ReadAll(conn)
	if err != nil {
		return "", fmt.Errorf("zkserver: %s to %s: %w", word, addr, err)
	}
	return string(b), nil
}

// Mode returns what srvr reports as "Mode:": standalone, leader or follower.
// A server that answers but is not serving yet returns an error.
func Mode(ctx context.Context, addr string) (string, error) {
	out, err := FourLetter(ctx, addr, "srvr")
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(out, "\n") {
		if m, ok := strings.CutPrefix(line, "Mode: "); ok {
			return strings.TrimSpace(m), nil
		}
	}
	return "", fmt.Errorf("zkserver: %s is not serving yet: %q", addr, strings.TrimSpace(out))
}

// Mntr parses the mntr four-letter word into a map (zk_packets_received, …).
func Mntr(ctx context.Context, addr string) (map[string]string, error) {
	out, err := FourLetter(ctx, addr, "mntr")
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(line, "\t"); ok {
			m[k] = strings.TrimSpace(v)
		}
	}
	if len(m) == 0 {
		return nil, fmt.Errorf("zkserver: mntr on %s: %q", addr, strings.TrimSpace(out))
	}
	return m, nil
}

// WaitServing returns once addr serves requests, or with ctx's error.
func WaitServing(ctx context.Context, addr string) error { return waitServing(ctx, addr, nil) }

// waitServing polls srvr until addr serves requests. ruok is not enough:
// a server answers "imok" before it has loaded its database.
func waitServing(ctx context.Context, addr string, alive func() error) error {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	var last error
	for {
		if _, err := Mode(ctx, addr); err == nil {
			return nil
		} else {
			last = err
		}
		if alive != nil {
			if err := alive(); err != nil {
				return err
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("zkserver: %s not serving: %w (last: %v)", addr, ctx.Err(), last)
		case <-tick.C:
		}
	}
}
