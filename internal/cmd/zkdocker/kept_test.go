//go:build linux

package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lockstep-zk/lockstep/internal/zkserver"
)

// A kept ensemble's containers run as the user zkserver names (the host's
// uid:gid): every file ZooKeeper writes in the bind-mounted data
// directories belongs to that user, who can remove them all (stop
// -forget) without root. A member stopped and started again serves on its
// published address. This needs a real engine and root (to make a
// directory for another uid and to act as it): LOCKSTEP_ZK=docker, as
// make test-docker sets (elsewhere the image may need a pull).
func TestKeptMembersWriteAsTheHostUser(t *testing.T) {
	if os.Getenv("LOCKSTEP_ZK") != "docker" || os.Getuid() != 0 {
		t.Skip("needs LOCKSTEP_ZK=docker with an engine (make test-docker) and root")
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skip("needs setpriv to act as another user")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	const uid = 4242
	base := t.TempDir()
	for _, d := range []string{filepath.Dir(base), base} { // made 0700 for root: let uid pass through
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	home := filepath.Join(base, "home") // the user's own: they may remove what is in it
	class := filepath.Join(home, "class")
	spec := zkserver.HelperKept{Addr: "127.0.0.3", User: fmt.Sprintf("%d:%d", uid, uid)}
	for i := range 3 {
		data := filepath.Join(class, fmt.Sprintf("zk%d", i+1), "data")
		if err := os.MkdirAll(data, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(data, "myid"), []byte(strconv.Itoa(i+1)+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		l, err := net.Listen("tcp", "127.0.0.3:0")
		if err != nil {
			t.Fatal(err)
		}
		spec.Members = append(spec.Members, zkserver.HelperKeptMember{Port: l.Addr().(*net.TCPAddr).Port, Data: data})
		l.Close()
	}
	if out, err := exec.Command("chown", "-R", fmt.Sprintf("%d:%d", uid, uid), home).CombinedOutput(); err != nil {
		t.Fatalf("chown: %v %s", err, out)
	}
	cl, err := startKeptContainers(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	defer func() {
		if !closed {
			cl.Close()
		}
	}()
	if err := cl.Stop(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if err := cl.Start(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if err := zkserver.WaitServing(ctx, cl.Addrs()[0]); err != nil {
		t.Fatalf("member 0 started again: %v", err)
	}
	cl.Close()
	closed = true
	var others []string
	var n int
	filepath.Walk(class, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		n++
		if st, ok := fi.Sys().(*syscall.Stat_t); !ok || st.Uid != uid {
			others = append(others, p)
		}
		return nil
	})
	if _, err := os.Stat(filepath.Join(class, "zk1", "data", "version-2")); err != nil {
		t.Fatalf("ZooKeeper wrote nothing in the bind mount: %v", err)
	}
	if len(others) > 0 {
		t.Errorf("%d of %d files do not belong to uid %d: %s", len(others), n, uid, strings.Join(others, ", "))
	}
	out, err := exec.Command(setpriv, "--reuid", strconv.Itoa(uid), "--regid", strconv.Itoa(uid), "--clear-groups", "rm", "-rf", class).CombinedOutput()
	if err != nil {
		t.Fatalf("uid %d removing %s: %v %s", uid, class, err, out)
	}
	if _, err := os.Stat(class); !os.IsNotExist(err) {
		t.Fatalf("%s is still there after uid %d removed it (%v)", class, uid, err)
	}
}
