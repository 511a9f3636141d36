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
	data := fs.String("data", "", "where ZooKeeper keeps the class's data, kept across serves (default: the one kept in -dir, else <dir>/zookeeper)")
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
	switch {
	case set["data"]:
		st.Data = *data
	case st.Data == "":
		st.Data = filepath.Join(*dir, "zookeeper")
	}
	if st.Data, err = filepath.Abs(st.Data); err != nil {
		return err
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
	defer func() { ensemble.Close() }()
	if env := strings.TrimSpace(os.Getenv("ZK_SERVERS")); env != "" {
		servers, err := zkserver.ParseServers(env)
		if err != nil {
			return err
		}
		st.External, st.Servers, st.JoinServers, st.Ports = true, servers, servers, nil
		fmt.Fprintf(stdout, "using ZK_SERVERS=%s as it is: nothing is started, and the join line names these servers as written\n", env)
	} else {
		// ZooKeeper itself listens on the room's address and ports, and
		// keeps its data in st.Data: a class served again is the same
		// ZooKeeper, everyone's progress in it.
		ports := make([]int, 3)
		for i := range ports {
			switch {
			case first > 0:
				ports[i] = first + i
			case first < 0:
				ports[i] = st.Ports[i]
			}
		}
		ensemble, err = zkserver.StartKeptEnsemble(ctx, zkserver.Kept{Dir: st.Data, Addr: st.Addr, Ports: ports})
		if err != nil {
			return fmt.Errorf("serve: start the class's ensemble: %w (another -port, or -port 0 for free ones, if a port is taken)", err)
		}
		st.External, st.Servers, st.JoinServers, st.Ports = false, ensemble.Servers, ensemble.Servers, nil
		for _, s := range ensemble.Servers {
			_, p, _ := net.SplitHostPort(s)
			n, _ := strconv.Atoi(p)
			st.Ports = append(st.Ports, n)
		}
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
		// ZooKeeper's kept data has the class; the snapshot puts back
		// only what it lacks (data lost, or another -data).
		n, err := h.Import(ctx, snap, st.AdminSecret)
		if err != nil {
			return err
		}
		if n > 0 {
			fmt.Fprintf(stdout, "put back %d of the %d learners kept in %s (ZooKeeper's data lacked them; their laptops join again with the same line)\n", n, len(snap.Learners), filepath.Join(*dir, snapshotFile))
		}
	}
	st.Started = time.Now().UTC()
	if err := writeState(*dir, st); err != nil {
		return err
	}

	what := "a 3-server ZooKeeper ensemble (" + ensembleSource(ensemble) + ") on this machine, listening on " + st.Addr + " for the room, its data kept in " + st.Data
	if st.External {
		what = "ZK_SERVERS"
	}
	fmt.Fprintf(stdout, "class %q served by %s; class directory %s\n\n", st.Name, what, *dir)
	fmt.Fprintf(stdout, "Learners join with this line (it carries the class code, not the admin secret):\n\n  %s\n\n", st.joinLine())
	fmt.Fprintf(stdout, "The host's screen: go run ./workshop/class watch -dir %s   ·   end: Ctrl-C here, or go run ./workshop/class stop -dir %s\n\n", *dir, *dir)

	err = keep(ctx, h, st, *dir, stdout)
	h.Close()
	ensemble.Close()
	removed := "started nothing (ZK_SERVERS), so it removed nothing; the class tree stays there"
	if !st.External {
		removed = "stopped the 3 ZooKeeper servers (the room's ports " + strings.Join(st.JoinServers, ", ") + " are closed); removed nothing: " +
			"ZooKeeper's data, with everyone's progress, is kept in " + st.Data
	}
	summary = fmt.Sprintf("class ended: serve %s; kept %s (class code, admin secret, a copy of everyone's progress in %s): serve again with -dir %s to go on\n",
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
