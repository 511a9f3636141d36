package main

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lockstep-zk/lockstep/internal/zkserver"
	"github.com/lockstep-zk/lockstep/internal/zktest"
	"github.com/lockstep-zk/lockstep/internal/znode"
	"github.com/lockstep-zk/lockstep/workshop/class/classroom"
	"github.com/lockstep-zk/lockstep/workshop/class/view"
	"github.com/lockstep-zk/lockstep/workshop/course"
)

// What the class is told after a verdict: the state the host sorts by, the
// mistake by its id, the hints seen, and the chapter's start kept while the
// learner stays on it.
func TestProgressOfAVerdict(t *testing.T) {
	if rootEnv != zktest.RootEnv {
		t.Fatalf("the workshop sets %s, the harness reads %s", rootEnv, zktest.RootEnv)
	}
	now := time.Date(2026, 11, 27, 16, 0, 0, 0, time.UTC)
	came := now.Add(-10 * time.Minute)
	herd := course.ChapterState{Kind: course.Mistake, Mistake: "herd", Hints: 1, HintsCLI: 2, At: now.Add(-time.Second)}
	p := progressOf(classroom.Progress{Chapter: "04", ChapterStart: came}, "04", herd, false, now)
	want := classroom.Progress{Chapter: "04", State: classroom.Failing, Mistake: "herd", HintStage: 2, ChapterStart: came, LastVerdict: now.Add(-time.Second)}
	if p != want {
		t.Errorf("a mistake on the same chapter:\n got %+v\nwant %+v", p, want)
	}
	p = progressOf(p, "05", course.ChapterState{Kind: course.Todo, At: now}, true, now)
	if p.State != classroom.Untouched || !p.ChapterStart.Equal(now) || p.Mistake != "" {
		t.Errorf("a check of 05's skeleton = %+v, want untouched, started now", p)
	}
	p = progressOf(p, "05", course.ChapterState{Kind: course.Pass, Tier: course.Full, At: now}, false, now.Add(time.Hour))
	if p.State != classroom.Passing || !p.ChapterStart.Equal(now) {
		t.Errorf("a pass on 05 = %+v, want passing, 05 started when it was first checked", p)
	}
}

// TestALearnerWithOnlyGoPassesInAClass is the learner's half of a class
// (issue 34): with no java on PATH and no Docker engine, scripts/exercise 04
// joins the class, runs 04's tests on the class's ZooKeeper inside the
// learner's own subtree (the servers' root locked down, as serve does), and
// the host's screen shows 04 passing. A second laptop taking the same name
// is told so, and cannot change the owner's progress.
func TestALearnerWithOnlyGoPassesInAClass(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 04's check on a class (about 90 s): skipped in -short")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("scripts/exercise needs bash")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()

	// The host's side: a server, the class tree, the root locked down.
	srv, err := zkserver.Start(ctx)
	t.Cleanup(srv.Close)
	if errors.Is(err, zkserver.ErrNoZooKeeper) {
		t.Skip("no ZooKeeper for the host: no Docker engine, no local install, no ZK_SERVERS")
	}
	if err != nil {
		t.Fatal(err)
	}
	root, code, admin := classroom.DefaultRoot+"-"+strings.ToLower(classroom.NewCode()), classroom.NewCode(), classroom.NewAdminSecret()
	host, err := classroom.OpenHost(ctx, srv.Servers, root, admin)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(host.Close)
	if err := host.Create(ctx, "test class", code, admin); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { znode.DeleteTree(host.Conn(), root) })
	if srv.Source != zkserver.FromEnv {
		// Our own server: locked as serve locks the class's ensemble
		// (never a server of the user's).
		if err := host.Lockdown(ctx, admin); err != nil {
			t.Fatal(err)
		}
	}
	line := classroom.JoinLine{Servers: srv.Servers, Root: root, Code: code}.String()
	changes := make(chan classroom.Change, 64)
	go host.Watch(ctx, changes)

	// The learner's laptop: a copy of the clone whose 04 is the
	// reference, a PATH with go and the usual tools but no java, no
	// Docker engine, and nothing of a ZooKeeper in the environment.
	clone := copyClone(t)
	ref, err := os.ReadFile(filepath.Join(clone, "04-sequential-lock/seqlock/acquire.go"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(clone, "04-sequential-lock/seqlock/acquire_workshop.go"), []byte(course.WorkshopBuild(string(ref))), 0o644); err != nil {
		t.Fatal(err)
	}
	env := laptopEnv(t, "LOCKSTEP_CLASS="+line, "LOCKSTEP_NAME=ada")
	if out, err := runIn(ctx, clone, env, "bash", "-c", "command -v java || command -v docker"); err == nil {
		t.Fatalf("the laptop's PATH still finds %s", out)
	}
	start := time.Now()
	out, err := runIn(ctx, clone, env, "bash", "scripts/exercise", "04")
	if err != nil {
		t.Fatalf("scripts/exercise 04 in the class: %v\n%s", err, out)
	}
	t.Logf("scripts/exercise 04 in the class took %v; its last lines:\n%s", time.Since(start).Round(time.Second), tail(out, 4))
	if !strings.Contains(out, "/learners/ada/work") || !strings.Contains(out, "exercise 04: PASS") {
		t.Fatalf("the check did not say where it ran, or did not pass:\n%s", out)
	}

	// The host's screen: ada, on 04, passing.
	m := view.New(line, view.English, time.Now(), nil)
	for deadline := time.After(30 * time.Second); ; {
		var c classroom.Change
		select {
		case c = <-changes:
		case <-deadline:
			t.Fatalf("after 30 s the host's screen has no ada passing 04:\n%s", m.View())
		}
		m = m.Apply(c)
		if r, ok := m.Row("ada"); ok && r.Known && r.Progress.Chapter == "04" && r.Progress.State == classroom.Passing {
			break
		}
	}
	frame := m.View()
	t.Logf("the host's frame:\n%s", frame)
	if !strings.Contains(frame, "04: 1 learner, 1 passing") {
		t.Errorf("the frame does not count ada passing 04:\n%s", frame)
	}
	owner, err := progressData(ctx, host, root)
	if err != nil {
		t.Fatal(err)
	}

	// A second laptop, the same name: refused before anything runs.
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "go.mod"), []byte("module example.com/other\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "workshop")
	if out, err := runIn(ctx, clone, os.Environ(), "go", "build", "-o", bin, "./workshop"); err != nil {
		t.Fatalf("build the workshop: %v\n%s", err, out)
	}
	out, err = runIn(ctx, other, laptopEnv(t), bin, "-check", "04", "-class", line, "-name", "ada")
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(out, `that name is taken: "ada" belongs to another laptop`) {
		t.Fatalf("a second laptop taking ada: %v\n%s", err, out)
	}
	t.Logf("the second laptop reads: %s", strings.TrimSpace(out))
	if _, err := os.Stat(filepath.Join(other, course.ClassSecretsFile)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the refused laptop kept a secret file (%v)", err)
	}
	if st, _ := course.LoadState(other); st.Name != "" {
		t.Errorf("the refused laptop kept the name %q", st.Name)
	}
	if after, err := progressData(ctx, host, root); err != nil || !bytes.Equal(after, owner) {
		t.Errorf("ada's progress changed: %s, then %s (%v)", owner, after, err)
	}
}

// laptopEnv is this process's environment without java, Docker or any
// ZooKeeper setting, and with extra.
func laptopEnv(t *testing.T, extra ...string) []string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go on PATH")
	}
	goBin, _ = filepath.EvalSymlinks(goBin)
	// Every command of the system's bin directories but java and docker,
	// beside the go command: a laptop with only Go.
	bin := t.TempDir()
	for _, dir := range []string{"/usr/bin", "/bin"} {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			name := e.Name()
			if strings.HasPrefix(name, "java") || strings.HasPrefix(name, "docker") {
				continue
			}
			os.Symlink(filepath.Join(dir, name), filepath.Join(bin, name)) // the first of two with one name wins
		}
	}
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "PATH", "JAVA_HOME", "ZOOKEEPER_HOME", "ZK_SERVERS", "ZK_AUTH", "ZK_ROOT", "LOCKSTEP_ZK", "DOCKER_HOST", ClassEnv, NameEnv:
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "PATH="+filepath.Dir(goBin)+":"+bin, "DOCKER_HOST=unix:///nonexistent/docker.sock")
	return append(env, extra...)
}

func runIn(ctx context.Context, dir string, env []string, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// copyClone copies the module (without .git and the workshop's own files)
// to a temporary directory: a learner's clone.
func copyClone(t *testing.T) string {
	t.Helper()
	src, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	dst := t.TempDir()
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.Name() == ".git" || strings.HasPrefix(d.Name(), ".lockstep-") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case d.Type().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			info, _ := d.Info()
			return os.WriteFile(target, b, info.Mode().Perm())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// progressData is ada's progress node as the host reads it.
func progressData(ctx context.Context, h *classroom.Host, root string) ([]byte, error) {
	b, _, err := h.Conn().Get(root + "/learners/ada/progress")
	return b, err
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// The runner's v in a class: the visualizer runs on the class's servers,
// in the learner's subtree, as the learner — what the checks get
// (class.Env), last, so that a ZK_SERVERS or ZK_ROOT the laptop's shell had
// does not win. Outside a class it inherits the runner's environment.
func TestVisualCarriesTheClassEnv(t *testing.T) {
	t.Setenv("ZK_SERVERS", "127.0.0.9:2181")
	t.Setenv(rootEnv, "/somewhere/else")
	e := newEnv(t.TempDir(), nil, nil)
	if c := e.Visual("04"); c.Env != nil {
		t.Errorf("outside a class the command sets its environment: %q", c.Env)
	}
	e.class = &class{servers: []string{"127.0.0.2:2181", "127.0.0.2:2182"}, learner: &classroom.Learner{}}
	want := e.class.Env()
	c := e.Visual("04")
	if len(c.Env) < len(want) {
		t.Fatalf("the command's environment %q lacks the class's %q", c.Env, want)
	}
	if got := c.Env[len(c.Env)-len(want):]; !slices.Equal(got, want) {
		t.Errorf("the command's environment ends with %q, want the class's %q", got, want)
	}
	for _, k := range []string{"ZK_SERVERS=", rootEnv + "=", "ZK_AUTH="} {
		if !slices.ContainsFunc(want, func(kv string) bool { return strings.HasPrefix(kv, k) }) {
			t.Errorf("the class's environment %q has no %s", want, k)
		}
	}
	if !strings.HasSuffix(c.Args[len(c.Args)-1], "04") || !strings.Contains(strings.Join(c.Args, " "), "--visual") {
		t.Errorf("the command %q is not scripts/exercise 04 --visual", c.Args)
	}
}
