package zkserver

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestChoose(t *testing.T) {
	up := func(context.Context) error { return nil }
	down := func(context.Context) error { return errNoDocker }
	found := func() (Install, error) { return Install{Where: "test", Java: "java", Classpath: "x"}, nil }
	missing := func() (Install, error) { return Install{}, errNoInstall }
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	cases := []struct {
		name    string
		p       probes
		want    Source
		wantErr string
	}{
		{"ZK_SERVERS wins over everything", probes{env("ZK_SERVERS", "a:1, b:2"), up, found, nil}, FromEnv, ""},
		{"docker comes before a local install", probes{env(), up, found, nil}, FromDocker, ""},
		{"a local install is used when docker is down", probes{env(), down, found, nil}, FromLocal, ""},
		{"LOCKSTEP_ZK=local skips docker", probes{env("LOCKSTEP_ZK", "local"), up, found, nil}, FromLocal, ""},
		{"LOCKSTEP_ZK=docker never falls back to local", probes{env("LOCKSTEP_ZK", "docker"), down, found, nil}, 0, "no ZooKeeper available"},
		{"nothing at all says what to install", probes{env(), down, missing, nil}, 0, "apt-get install zookeeper"},
		{"a bad ZK_SERVERS entry is an error, not a fallback", probes{env("ZK_SERVERS", "nohostport"), up, found, nil}, 0, "want host:port"},
		{"a chroot in ZK_SERVERS is refused, naming it", probes{env("ZK_SERVERS", "127.0.0.1:2181/app"), up, found, nil}, 0, `chroot "/app"`},
		{"an unknown LOCKSTEP_ZK is an error", probes{env("LOCKSTEP_ZK", "podman"), up, found, nil}, 0, "want docker or local"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := choose(context.Background(), c.p)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.source != c.want {
				t.Fatalf("source = %v, want %v", p.source, c.want)
			}
		})
	}
	t.Run("the no-server error is ErrNoZooKeeper and names every path it tried", func(t *testing.T) {
		_, err := choose(context.Background(), probes{env(), down, missing, nil})
		if !errors.Is(err, ErrNoZooKeeper) {
			t.Fatalf("err = %v, want ErrNoZooKeeper", err)
		}
		for _, s := range []string{"ZK_SERVERS", "docker", "brew install zookeeper", "ZOOKEEPER_HOME"} {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("error does not mention %q:\n%v", s, err)
			}
		}
	})
	t.Run("ZK_SERVERS is split and trimmed", func(t *testing.T) {
		p, _ := choose(context.Background(), probes{env("ZK_SERVERS", " a:1 ,b:2,"), up, found, nil})
		if strings.Join(p.servers, "|") != "a:1|b:2" {
			t.Fatalf("servers = %q", p.servers)
		}
	})
}

func TestFindInstall(t *testing.T) {
	files := func(paths ...string) func(string) bool {
		return func(p string) bool {
			for _, x := range paths {
				if x == p {
					return true
				}
			}
			return false
		}
	}
	env := func(k string) string { return map[string]string{"ZOOKEEPER_HOME": "/opt/zk"}[k] }
	noenv := func(string) string { return "" }
	java := func(string) (string, error) { return "/usr/bin/java", nil }
	nojava := func(string) (string, error) { return "", errors.New("not found") }

	t.Run("ZOOKEEPER_HOME uses its lib directory", func(t *testing.T) {
		inst, err := findInstall(env, files("/opt/zk/lib"), java)
		if err != nil || inst.Classpath != "/opt/zk/lib/*" || inst.Java != "/usr/bin/java" {
			t.Fatalf("inst = %+v, err = %v", inst, err)
		}
	})
	t.Run("a ZOOKEEPER_HOME without lib is reported, not skipped", func(t *testing.T) {
		_, err := findInstall(env, files("/usr/share/java/zookeeper.jar"), java)
		if err == nil || !strings.Contains(err.Error(), "ZOOKEEPER_HOME=/opt/zk") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("Debian's package is found under /usr/share/java", func(t *testing.T) {
		inst, err := findInstall(noenv, files("/usr/share/java/zookeeper.jar", "/usr/share/java/slf4j-simple.jar"), java)
		if err != nil || !strings.HasPrefix(inst.Classpath, "/usr/share/java/zookeeper.jar") {
			t.Fatalf("inst = %+v, err = %v", inst, err)
		}
	})
	t.Run("Homebrew's libexec is found", func(t *testing.T) {
		inst, err := findInstall(noenv, files("/opt/homebrew/opt/zookeeper/libexec/lib"), java)
		if err != nil || inst.Classpath != "/opt/homebrew/opt/zookeeper/libexec/lib/*" {
			t.Fatalf("inst = %+v, err = %v", inst, err)
		}
	})
	t.Run("jars without java say java is missing", func(t *testing.T) {
		_, err := findInstall(noenv, files("/usr/share/java/zookeeper.jar"), nojava)
		if err == nil || !strings.Contains(err.Error(), "no java") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("nothing installed is errNoInstall", func(t *testing.T) {
		if _, err := findInstall(noenv, files(), java); !errors.Is(err, errNoInstall) {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestDockerAvailable(t *testing.T) {
	ping := 0
	pinger := func(context.Context) error { ping++; return nil }
	none := func(string) bool { return false }
	t.Run("no DOCKER_HOST and no socket answers without pinging", func(t *testing.T) {
		err := dockerAvailableWith(context.Background(), func(string) string { return "" }, none, pinger)
		if !errors.Is(err, errNoDocker) || ping != 0 {
			t.Fatalf("err = %v, pings = %d", err, ping)
		}
	})
	t.Run("DOCKER_HOST makes it ask the engine", func(t *testing.T) {
		err := dockerAvailableWith(context.Background(), func(k string) string {
			if k == "DOCKER_HOST" {
				return "tcp://127.0.0.1:2375"
			}
			return ""
		}, none, pinger)
		if err != nil || ping != 1 {
			t.Fatalf("err = %v, pings = %d", err, ping)
		}
	})
	t.Run("testcontainers' reaper socket override alone is no engine", func(t *testing.T) {
		err := dockerAvailableWith(context.Background(), func(k string) string {
			if k == "TESTCONTAINERS_DOCKER_SOCKET_OVERRIDE" {
				return "/var/run/docker.sock"
			}
			return ""
		}, none, pinger)
		if !errors.Is(err, errNoDocker) {
			t.Fatalf("err = %v, want errNoDocker: the override names the socket mounted into Ryuk, not an engine", err)
		}
	})
	t.Run("a socket that does not answer is reported", func(t *testing.T) {
		err := dockerAvailableWith(context.Background(), func(string) string { return "" },
			func(p string) bool { return p == "/var/run/docker.sock" },
			func(context.Context) error { return errors.New("connection refused") })
		if err == nil || !strings.Contains(err.Error(), "connection refused") {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestDialDocker(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "docker.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("DOCKER_HOST", "unix://"+sock)
	t.Run("a socket something listens on answers", func(t *testing.T) {
		if err := dialDocker(context.Background()); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("a socket file left by a stopped engine is refused at once", func(t *testing.T) {
		l.(*net.UnixListener).SetUnlinkOnClose(false)
		l.Close()
		if _, err := os.Stat(sock); err != nil {
			t.Fatalf("the socket file should outlive its listener: %v", err)
		}
		err := dockerAvailable(context.Background())
		if err == nil || !strings.Contains(err.Error(), "docker engine does not answer") || !strings.Contains(err.Error(), "connection refused") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("an address it cannot dial itself is left to the helper", func(t *testing.T) {
		t.Setenv("DOCKER_HOST", "ssh://me@elsewhere")
		if err := dialDocker(context.Background()); err != nil {
			t.Fatal(err)
		}
	})
}
