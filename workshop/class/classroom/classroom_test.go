package classroom_test

import (
	"context"
	"errors"
	"net"
	"os"
	"path"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/internal/zksession"
	"github.com/lockstep-zk/lockstep/internal/zktest"
	"github.com/lockstep-zk/lockstep/workshop/class/classroom"
)

func TestMain(m *testing.M) { zktest.Main(m) }

// class is a class tree made for one test under its own root.
type class struct {
	root, code, admin string
	line              string
	host              *classroom.Host
}

func newClass(tb testing.TB, servers []string) class {
	tb.Helper()
	if os.Getenv(zksession.AuthEnv) != "" {
		tb.Skip("the class makes its own digest identities; run without ZK_AUTH")
	}
	c := class{root: zktest.Root(tb) + "/class", code: classroom.NewCode(), admin: classroom.NewAdminSecret()}
	h, err := classroom.OpenHost(zktest.Context(tb), servers, c.root, c.admin)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(h.Close)
	if err := h.Create(zktest.Context(tb), "test class", c.code, c.admin); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { zktest.DeleteTree(h.Conn(), c.root) }) // before zktest.Root's own clean-up, as the host
	c.host = h
	c.line = classroom.JoinLine{Servers: servers, Root: c.root, Code: c.code}.String()
	return c
}

func secrets(tb testing.TB) classroom.FileSecrets {
	return classroom.FileSecrets(path.Join(tb.TempDir(), "class-secrets.json"))
}

// join joins or fails the test.
func join(tb testing.TB, line, name string, s classroom.SecretStore, opts ...classroom.Option) *classroom.Learner {
	tb.Helper()
	l, err := classroom.Join(zktest.Context(tb), line, name, s, opts...)
	if err != nil {
		tb.Fatalf("join as %q: %v", name, err)
	}
	tb.Cleanup(func() { l.Close() })
	return l
}

func TestJoin(t *testing.T) {
	servers := zktest.Servers(t)
	passing := classroom.Progress{Chapter: "04", State: classroom.Passing, ChapterStart: time.Now().UTC().Truncate(time.Second), LastVerdict: time.Now().UTC().Truncate(time.Second)}

	t.Run("the first to take a name owns it; another laptop is told it is taken and changes nothing", func(t *testing.T) {
		c := newClass(t, servers)
		ada := join(t, c.line, "ada", secrets(t))
		if err := ada.Report(zktest.Context(t), passing); err != nil {
			t.Fatal(err)
		}
		before := zktest.Tree(t, c.host.Conn(), c.root)
		other := secrets(t)
		_, err := classroom.Join(zktest.Context(t), c.line, "ada", other)
		if !errors.Is(err, classroom.ErrNameTaken) {
			t.Fatalf("second laptop as ada: %v, want ErrNameTaken", err)
		}
		t.Logf("the second laptop is told: %v", err)
		if after := zktest.Tree(t, c.host.Conn(), c.root); !equal(before, after) {
			t.Fatalf("the tree changed:\n  %s\nnow:\n  %s", zktest.Describe(before), zktest.Describe(after))
		}
		if _, kept, _ := other.Secret(c.code, "ada"); kept {
			t.Fatal("the second laptop kept a secret for a name it does not own")
		}
		got, err := ada.Progress(zktest.Context(t))
		if err != nil || got != passing {
			t.Fatalf("ada's progress: %+v, %v; want %+v", got, err, passing)
		}
	})

	t.Run("a second process with a taken name cannot change the owner's progress", func(t *testing.T) {
		c := newClass(t, servers)
		ada := join(t, c.line, "ada", secrets(t))
		if err := ada.Report(zktest.Context(t), passing); err != nil {
			t.Fatal(err)
		}
		// The intruder knows the class code and the tree; it authenticates
		// as "ada" with a secret of its own and writes directly.
		conn := dialAs(t, servers, "ada:guessed", "class:"+c.code)
		progress := c.root + "/learners/ada/progress"
		if _, err := conn.Set(progress, []byte(`{"chapter":"09","state":"passing"}`), -1); !errors.Is(err, zk.ErrNoAuth) {
			t.Fatalf("set %s as an intruder: %v, want zk.ErrNoAuth", progress, err)
		}
		if err := conn.Delete(progress, -1); !errors.Is(err, zk.ErrNoAuth) {
			t.Fatalf("delete %s as an intruder: %v, want zk.ErrNoAuth", progress, err)
		}
		if got, err := ada.Progress(zktest.Context(t)); err != nil || got != passing {
			t.Fatalf("ada's progress: %+v, %v; want %+v", got, err, passing)
		}
	})

	t.Run("a learner can change nothing of another learner's, nor anything outside their subtree; the host reads but does not write", func(t *testing.T) {
		c := newClass(t, servers)
		ada := join(t, c.line, "ada", secrets(t))
		bob := join(t, c.line, "bob", secrets(t))
		_ = bob
		// What a learner's session holds: their name's secret and the code.
		s := secrets(t)
		grace := join(t, c.line, "grace", s)
		secret, _, _ := s.Secret(c.code, "grace")
		conn := dialAs(t, servers, "grace:"+secret, "class:"+c.code)
		adas := c.root + "/learners/ada"
		for _, p := range []string{adas, adas + "/progress", adas + "/presence", adas + "/work"} {
			if err := conn.Delete(p, -1); !errors.Is(err, zk.ErrNoAuth) && !errors.Is(err, zk.ErrNotEmpty) {
				t.Errorf("grace deletes %s: %v, want zk.ErrNoAuth", p, err)
			}
			if _, err := conn.Set(p, []byte("x"), -1); !errors.Is(err, zk.ErrNoAuth) {
				t.Errorf("grace sets %s: %v, want zk.ErrNoAuth", p, err)
			}
			if _, _, err := conn.Get(p); !errors.Is(err, zk.ErrNoAuth) {
				t.Errorf("grace reads %s: %v, want zk.ErrNoAuth (progress is the learner's and the host's)", p, err)
			}
		}
		for _, p := range []string{adas + "/work/mine", adas + "/extra", c.root + "/extra"} {
			if _, err := conn.Create(p, nil, 0, zk.WorldACL(zk.PermAll)); !errors.Is(err, zk.ErrNoAuth) {
				t.Errorf("grace creates %s: %v, want zk.ErrNoAuth", p, err)
			}
		}
		for _, p := range []string{c.root, c.root + "/learners"} {
			if err := conn.Delete(p, -1); !errors.Is(err, zk.ErrNoAuth) && !errors.Is(err, zk.ErrNotEmpty) {
				t.Errorf("grace deletes %s: %v", p, err)
			}
			if _, err := conn.Set(p, []byte("x"), -1); !errors.Is(err, zk.ErrNoAuth) {
				t.Errorf("grace sets %s: %v, want zk.ErrNoAuth", p, err)
			}
		}
		// Her own subtree is hers: her checks run under Workspace.
		if _, err := conn.Create(grace.Workspace()+"/t-1", nil, 0, zk.AuthACL(zk.PermAll)); err != nil {
			t.Errorf("grace creates in her workspace: %v", err)
		} else if err := conn.Delete(grace.Workspace()+"/t-1", -1); err != nil {
			t.Errorf("grace deletes in her workspace: %v", err)
		}
		if err := ada.Report(zktest.Context(t), passing); err != nil {
			t.Fatal(err)
		}
		// The host reads it, and cannot write it.
		if _, _, err := c.host.Conn().Get(adas + "/progress"); err != nil {
			t.Errorf("the host reads ada's progress: %v", err)
		}
		if _, err := c.host.Conn().Set(adas+"/progress", []byte("x"), -1); !errors.Is(err, zk.ErrNoAuth) {
			t.Errorf("the host sets ada's progress: %v, want zk.ErrNoAuth", err)
		}
	})

	t.Run("a wrong class code joins nothing", func(t *testing.T) {
		c := newClass(t, servers)
		before := zktest.Tree(t, c.host.Conn(), c.root)
		s := secrets(t)
		wrong := classroom.JoinLine{Servers: servers, Root: c.root, Code: "wrongcode1"}.String()
		_, err := classroom.Join(zktest.Context(t), wrong, "ada", s)
		if !errors.Is(err, classroom.ErrWrongCode) {
			t.Fatalf("join with a wrong code: %v, want ErrWrongCode", err)
		}
		t.Logf("the learner is told: %v", err)
		if after := zktest.Tree(t, c.host.Conn(), c.root); !equal(before, after) {
			t.Fatalf("the tree changed:\n  %s\nnow:\n  %s", zktest.Describe(before), zktest.Describe(after))
		}
		if _, err := os.Stat(string(s)); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("a secret file was written: %v", err)
		}
	})

	t.Run("a wrong kept secret joins nothing", func(t *testing.T) {
		c := newClass(t, servers)
		join(t, c.line, "ada", secrets(t)).Close()
		before := zktest.Tree(t, c.host.Conn(), c.root)
		s := secrets(t)
		if err := s.Keep(c.code, "ada", "not-the-secret"); err != nil {
			t.Fatal(err)
		}
		_, err := classroom.Join(zktest.Context(t), c.line, "ada", s)
		if !errors.Is(err, classroom.ErrWrongSecret) {
			t.Fatalf("join with a wrong secret: %v, want ErrWrongSecret", err)
		}
		t.Logf("the learner is told: %v", err)
		if after := zktest.Tree(t, c.host.Conn(), c.root); !equal(before, after) {
			t.Fatalf("the tree changed:\n  %s\nnow:\n  %s", zktest.Describe(before), zktest.Describe(after))
		}
	})

	t.Run("an unreachable server is a clear error and writes nothing", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close() // nothing listens there now
		s := secrets(t)
		line := classroom.JoinLine{Servers: []string{addr}, Root: "/lockstep-class", Code: "abc"}.String()
		_, err = classroom.Join(zktest.Context(t), line, "ada", s)
		if !errors.Is(err, classroom.ErrUnreachable) {
			t.Fatalf("join %s: %v, want ErrUnreachable", addr, err)
		}
		t.Logf("the learner is told: %v", err)
		if _, err := os.Stat(string(s)); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("a secret file was written: %v", err)
		}
	})

	t.Run("a server without the class says so", func(t *testing.T) {
		line := classroom.JoinLine{Servers: servers, Root: zktest.Root(t) + "/none", Code: "abc"}.String()
		if _, err := classroom.Join(zktest.Context(t), line, "ada", secrets(t)); !errors.Is(err, classroom.ErrNoClass) {
			t.Fatalf("join a class that is not there: %v, want ErrNoClass", err)
		}
	})

	t.Run("presence goes with the session; progress stays and comes back on rejoin", func(t *testing.T) {
		c := newClass(t, servers)
		s := secrets(t)
		ada := join(t, c.line, "ada", s)
		presence := c.root + "/learners/ada/presence"
		if ok, _, _ := c.host.Conn().Exists(presence); !ok {
			t.Fatal("no presence node after join")
		}
		if err := ada.Report(zktest.Context(t), passing); err != nil {
			t.Fatal(err)
		}
		ada.Close()
		if err := ada.Report(zktest.Context(t), passing); !errors.Is(err, classroom.ErrClosed) {
			t.Fatalf("report after close: %v, want ErrClosed", err)
		}
		if ok, _, _ := c.host.Conn().Exists(presence); ok {
			t.Fatal("presence node still there after Close")
		}
		again := join(t, c.line, "ada", s)
		if got, err := again.Progress(zktest.Context(t)); err != nil || got != passing {
			t.Fatalf("progress after rejoin: %+v, %v; want %+v", got, err, passing)
		}
		if ok, _, _ := c.host.Conn().Exists(presence); !ok {
			t.Fatal("no presence node after rejoin")
		}
	})

	t.Run("a rejoin before the old session expired takes the presence over", func(t *testing.T) {
		c := newClass(t, servers)
		s := secrets(t)
		join(t, c.line, "ada", s) // not closed: its session lives on
		again := join(t, c.line, "ada", s)
		if err := again.Report(zktest.Context(t), passing); err != nil {
			t.Fatal(err)
		}
	})
}

func TestBadInput(t *testing.T) {
	for _, line := range []string{"", "127.0.0.1:2181", "zk://127.0.0.1:2181/c", "zk://127.0.0.1/c?code=x", "zk://127.0.0.1:2181?code=x", "zk://h:1/?code=x", "zk://h:1/a/../b?code=x", "zk://h:1/c?code=a:b"} {
		if _, err := classroom.ParseJoinLine(line); !errors.Is(err, classroom.ErrBadJoinLine) {
			t.Errorf("ParseJoinLine(%q): %v, want ErrBadJoinLine", line, err)
		}
	}
	j, err := classroom.ParseJoinLine(` 'zk://127.0.0.1:2181,127.0.0.2:2182/lockstep-class?code=k7q2x9m4' `)
	if err != nil || len(j.Servers) != 2 || j.Root != "/lockstep-class" || j.Code != "k7q2x9m4" {
		t.Errorf("ParseJoinLine: %+v, %v", j, err)
	}
	for _, name := range []string{"", "a/b", "a:b", "host", "class", "..", "a b", "abcdefghijabcdefghijabcdefghijabc"} {
		if err := classroom.CheckName(name); !errors.Is(err, classroom.ErrBadName) {
			t.Errorf("CheckName(%q): %v, want ErrBadName", name, err)
		}
	}
	for _, name := range []string{"ada", "李雷", "grace-h", "a.b_c"} {
		if err := classroom.CheckName(name); err != nil {
			t.Errorf("CheckName(%q): %v", name, err)
		}
	}
	// A bad name is refused before anything dials: the line's server is unreachable.
	if _, err := classroom.Join(context.Background(), "zk://127.0.0.1:1/c?code=x", "a/b", secrets(t)); !errors.Is(err, classroom.ErrBadName) {
		t.Errorf("Join with a bad name: %v, want ErrBadName", err)
	}
}

// dialAs opens a session with the given digest credentials.
func dialAs(tb testing.TB, servers []string, creds ...string) *zk.Conn {
	tb.Helper()
	conn, events, err := zk.Connect(servers, 4*time.Second, zk.WithLogInfo(false))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(conn.Close)
	go func() {
		for range events {
		}
	}()
	for _, c := range creds {
		if err := conn.AddAuth("digest", []byte(c)); err != nil {
			tb.Fatal(err)
		}
	}
	return conn
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// What ACLs cannot do: ZooKeeper checks a delete against the parent's ACL,
// never the node's own. The class tree is built around it (learners grants
// the class code no DELETE); this test shows what would happen otherwise.
func TestDeleteIsCheckedAgainstTheParentsACL(t *testing.T) {
	conn := zktest.Connect(t)
	root := zktest.Root(t)
	open := root + "/shared" // as a lock directory everyone queues in must be
	if _, err := conn.Create(open, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	adas := open + "/ada"
	if _, err := conn.Create(adas, nil, 0, zk.DigestACL(zk.PermAll, "ada", "her-secret")); err != nil {
		t.Fatal(err)
	}
	stranger := dialAs(t, zktest.Servers(t))
	if _, err := stranger.Set(adas, []byte("x"), -1); !errors.Is(err, zk.ErrNoAuth) {
		t.Fatalf("a stranger sets ada's node: %v, want zk.ErrNoAuth (its own ACL guards its data)", err)
	}
	if err := stranger.Delete(adas, -1); err != nil {
		t.Fatalf("a stranger deletes ada's node: %v; ZooKeeper should allow it, the parent grants DELETE to anyone", err)
	}
}
