package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lockstep-zk/lockstep/internal/zkserver"
	"github.com/lockstep-zk/lockstep/workshop/class/classroom"
)

// serve starts the class and runs until ctx ends (Ctrl-C, stop).
func serve(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", "lockstep-class", "the class directory: code, admin secret, snapshot of everyone's progress (keep it to serve the same class again)")
	addr := fs.String("addr", "", "the address learners reach this machine at, bound for the room (default: the one kept in -dir, else 127.0.0.1)")
	port := fs.Int("port", -1, "the first of three ports for the room, one per ZooKeeper server; 0 picks free ones (default: the ones kept in -dir, else 2181)")
	root := fs.String("root", classroom.DefaultRoot, "the class tree's root znode")
	name := fs.String("name", "lockstep workshop", "the class's name, shown on the host's screen")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("serve: unexpected argument %q", fs.Arg(0))
	}

	st, err := readState(*dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		st = classState{Name: *name, Root: *root, Code: classroom.NewCode(), AdminSecret: classroom.NewAdminSecret(), Addr: "127.0.0.1"}
	case err != nil:
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if set["addr"] {
		st.Addr = *addr
	}
	if set["name"] {
		st.Name = *name
	}
	if set["root"] && *root != st.Root {
		return fmt.Errorf("serve: %s keeps the class at %s; -root %s would be another class: use another -dir", *dir, st.Root, *root)
	}
	if ip := net.ParseIP(st.Addr); ip == nil || ip.IsUnspecified() {
		return fmt.Errorf("serve: -addr %q: give the IP address learners reach this machine at (the room's Wi-Fi address, e.g. 192.168.1.10), not a name or 0.0.0.0", st.Addr)
	}
	first := 2181
	switch {
	case set["port"]:
		first = *port
	case len(st.Ports) == 3:
		first = -1 // the kept ones
	}
	if err := os.MkdirAll(*dir, 0o700); err != nil {
		return err
	}
	ctl, err := listenControl(*dir)
	if err != nil {
		return err
	}
	summary := ""
	defer func() { ctl.finish(summary) }()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-ctl.stopped:
			cancel()
		case <-ctx.Done():
		}
	}()

	// The servers: ZK_SERVERS as the host runs them, or an ensemble of ours.
	var ensemble *zkserver.Ensemble
	var forwarders []*forwarder
	defer func() {
		for _, f := range forwarders {
			f.Close()
		}
		ensemble.Close()
	}()
	if env := strings.TrimSpace(os.Getenv("ZK_SERVERS")); env != "" {
		servers, err := zkserver.ParseServers(env)
		if err != nil {
			return err
		}
		st.External, st.Servers, st.JoinServers, st.Ports = true, servers, servers, nil
		fmt.Fprintf(stdout, "using ZK_SERVERS=%s as it is: nothing is started, and the join line names these servers as written\n", env)
	} else {
		ensemble, err = zkserver.StartEnsemble(ctx, 3)
		if err != nil {
			return fmt.Errorf("serve: start the class's ensemble: %w", err)
		}
		st.External, st.Servers, st.JoinServers = false, ensemble.Servers, nil
		var ports []int
		for i, member := range ensemble.Servers {
			p := 0
			switch {
			case first > 0:
				p = first + i
			case first < 0:
				p = st.Ports[i]
			}
			f, err := listen(net.JoinHostPort(st.Addr, strconv.Itoa(p)), member)
			if err != nil {
				return fmt.Errorf("serve: bind the room's port for server %d: %w (another -port, or -port 0 for free ones)", i+1, err)
			}
			forwarders = append(forwarders, f)
			st.JoinServers = append(st.JoinServers, f.Addr())
			ports = append(ports, f.Port())
		}
		st.Ports = ports
	}

	h, err := classroom.OpenHost(ctx, st.Servers, st.Root, st.AdminSecret)
	if err != nil {
		return err
	}
	defer func() { h.Close() }()
	if !st.External {
		if err := h.Lockdown(ctx, st.AdminSecret); err != nil {
			return err
		}
	}
	if err := h.Create(ctx, st.Name, st.Code, st.AdminSecret); err != nil {
		return err
	}
	// The arena is there from the start: a learner whose 04 passes may
	// enter it before the host has looked at it.
	if _, err := h.OpenArena(ctx, st.Code, st.AdminSecret); err != nil {
		return err
	}
	snap, kept, err := readSnapshot(*dir)
	if err != nil {
		return err
	}
	if kept {
		n, err := h.Import(ctx, snap, st.AdminSecret)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "put back %d of the %d learners kept in %s (their laptops join again with the same line)\n", n, len(snap.Learners), filepath.Join(*dir, snapshotFile))
	}
	st.Started = time.Now().UTC()
	if err := writeState(*dir, st); err != nil {
		return err
	}

	what := "a 3-server ZooKeeper ensemble (" + ensembleSource(ensemble) + ") on this machine, reached from the room at " + st.Addr
	if st.External {
		what = "ZK_SERVERS"
	}
	fmt.Fprintf(stdout, "class %q served by %s; class directory %s\n\n", st.Name, what, *dir)
	fmt.Fprintf(stdout, "Learners join with this line (it carries the class code, not the admin secret):\n\n  %s\n\n", st.joinLine())
	fmt.Fprintf(stdout, "The host's screen: go run ./workshop/class watch -dir %s   ·   end: Ctrl-C here, or go run ./workshop/class stop -dir %s\n\n", *dir, *dir)

	err = keep(ctx, h, st, *dir, stdout)
	h.Close()
	for _, f := range forwarders {
		f.Close()
	}
	forwarders = nil
	ensemble.Close()
	removed := "started nothing (ZK_SERVERS), so it removed nothing; the class tree stays there"
	if !st.External {
		where := "a temporary directory"
		if ensembleSource(ensemble) == "docker" {
			where = "their containers"
		}
		removed = "stopped the 3 ZooKeeper servers and removed their data (" + where + "); closed the room's ports " + strings.Join(st.JoinServers, ", ")
	}
	summary = fmt.Sprintf("class ended: serve %s; kept %s (class code, admin secret, everyone's progress in %s): serve again with -dir %s to go on\n",
		removed, *dir, snapshotFile, *dir)
	fmt.Fprint(stdout, "\n"+summary)
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

func ensembleSource(e *zkserver.Ensemble) string {
	if e == nil {
		return ""
	}
	return e.Source.String()
}

// keep follows the class while it runs: a line per learner who joins,
// comes back or goes, and the snapshot rewritten at most once a second
// after a change. Everything it learns comes from the host's watches.
func keep(ctx context.Context, h *classroom.Host, st classState, dir string, stdout io.Writer) error {
	changes := make(chan classroom.Change, 64)
	watched := make(chan error, 1)
	go func() { watched <- h.Watch(ctx, changes) }()
	var save <-chan time.Time
	saveSnapshot := func(ctx context.Context) {
		s, err := h.Export(ctx)
		if err == nil {
			err = writeFile(filepath.Join(dir, snapshotFile), s)
		}
		if err != nil {
			fmt.Fprintf(stdout, "%s snapshot not written: %v\n", time.Now().Format("15:04:05"), err)
		}
	}
	defer func() {
		// The last snapshot, whatever ended the class.
		c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		saveSnapshot(c)
	}()
	seen := map[string]bool{}
	for {
		select {
		case c := <-changes:
			stamp := c.Seen.Format("15:04:05")
			switch c.Kind {
			case classroom.Online:
				if seen[c.Name] {
					fmt.Fprintf(stdout, "%s %s is back\n", stamp, c.Name)
				} else {
					fmt.Fprintf(stdout, "%s %s is here\n", stamp, c.Name)
				}
				seen[c.Name] = true
			case classroom.Offline:
				if seen[c.Name] {
					fmt.Fprintf(stdout, "%s %s is gone (session closed or expired); their progress stays\n", stamp, c.Name)
				}
			case classroom.Left:
				fmt.Fprintf(stdout, "%s %s was removed from the class\n", stamp, c.Name)
			}
			if save == nil {
				save = time.After(time.Second)
			}
		case <-save:
			save = nil
			saveSnapshot(ctx)
		case err := <-watched:
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("the host's watch ended: %w", err)
		case <-ctx.Done():
			<-watched
			return ctx.Err()
		}
	}
}

// forwarder is one of the room's ports: it passes each connection to one
// server of the ensemble, which listens on loopback only.
type forwarder struct {
	l        net.Listener
	upstream string
	wg       sync.WaitGroup
	mu       sync.Mutex
	conns    map[net.Conn]bool
}

func listen(addr, upstream string) (*forwarder, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	f := &forwarder{l: l, upstream: upstream, conns: map[net.Conn]bool{}}
	f.wg.Add(1)
	go f.accept()
	return f, nil
}

func (f *forwarder) Addr() string { return f.l.Addr().String() }
func (f *forwarder) Port() int    { return f.l.Addr().(*net.TCPAddr).Port }

func (f *forwarder) accept() {
	defer f.wg.Done()
	for {
		c, err := f.l.Accept()
		if err != nil {
			return
		}
		f.wg.Add(1)
		go f.pipe(c)
	}
}

// pipe joins a learner's connection to the server. A server that is down
// refuses: the learner's client moves on to the next in its line.
func (f *forwarder) pipe(c net.Conn) {
	defer f.wg.Done()
	defer c.Close()
	up, err := net.DialTimeout("tcp", f.upstream, 2*time.Second)
	if err != nil {
		return
	}
	defer up.Close()
	if !f.track(c, up) {
		return
	}
	defer f.untrack(c, up)
	done := make(chan struct{}, 2)
	go func() { io.Copy(up, c); done <- struct{}{} }()
	go func() { io.Copy(c, up); done <- struct{}{} }()
	<-done
	c.Close()
	up.Close()
	<-done
}

func (f *forwarder) track(cs ...net.Conn) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.conns == nil {
		return false
	}
	for _, c := range cs {
		f.conns[c] = true
	}
	return true
}

func (f *forwarder) untrack(cs ...net.Conn) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range cs {
		delete(f.conns, c)
	}
}

// Close stops listening, cuts every connection and waits for the pipes.
func (f *forwarder) Close() {
	f.l.Close()
	f.mu.Lock()
	for c := range f.conns {
		c.Close()
	}
	f.conns = nil
	f.mu.Unlock()
	f.wg.Wait()
}
