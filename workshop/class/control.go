package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// serve listens on a Unix socket in the class directory; stop connects to
// it, asks serve to end and reads back what serve removed. A socket, not a
// process id kept in a file: a stale id could name another process.
const controlSocket = "serve.sock"

// control is serve's side of the socket.
type control struct {
	l       net.Listener
	stopped chan struct{} // closed when a stop request comes
	once    sync.Once
	mu      sync.Mutex
	waiting []net.Conn // stop requests waiting for the summary
}

// serving says whether a serve answers on dir's socket.
func serving(dir string) bool {
	c, err := net.DialTimeout("unix", filepath.Join(dir, controlSocket), time.Second)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

func listenControl(dir string) (*control, error) {
	p := filepath.Join(dir, controlSocket)
	if serving(dir) {
		return nil, fmt.Errorf("serve: %s is already served: stop it first (go run ./workshop/class stop -dir %s)", dir, dir)
	}
	os.Remove(p) // left by a serve that was killed
	l, err := net.Listen("unix", p)
	if err != nil {
		return nil, fmt.Errorf("serve: control socket %s: %w", p, err)
	}
	c := &control{l: l, stopped: make(chan struct{})}
	go c.accept()
	return c, nil
}

func (c *control) accept() {
	for {
		conn, err := c.l.Accept()
		if err != nil {
			return
		}
		go func() {
			line, err := bufio.NewReader(conn).ReadString('\n')
			if err != nil || strings.TrimSpace(line) != "stop" {
				conn.Close() // a probe (serving), or not ours
				return
			}
			c.mu.Lock()
			c.waiting = append(c.waiting, conn)
			c.mu.Unlock()
			c.once.Do(func() { close(c.stopped) })
		}()
	}
}

// finish sends the summary to whoever asked to stop and closes the socket.
func (c *control) finish(summary string) {
	c.l.Close()
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, conn := range c.waiting {
		io.WriteString(conn, summary)
		conn.Close()
	}
}

// askStop is stop's side: it returns serve's summary once serve has ended.
func askStop(dir string, limit time.Duration) (string, error) {
	conn, err := net.DialTimeout("unix", filepath.Join(dir, controlSocket), time.Second)
	if err != nil {
		return "", errNotServing
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(limit))
	if _, err := io.WriteString(conn, "stop\n"); err != nil {
		return "", err
	}
	b, err := io.ReadAll(conn)
	if err != nil {
		return string(b), fmt.Errorf("stop: serve did not say it ended within %v: %w", limit, err)
	}
	return string(b), nil
}

var errNotServing = errors.New("no serve answers")
