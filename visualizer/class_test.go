package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/internal/zksession"
	"github.com/lockstep-zk/lockstep/internal/zktest"
)

// TestInAClassTheVisualizerRunsInTheLearnersSubtree is the runner's v on a
// class laptop: no server of its own (ZK_SERVERS is the class's), the
// learner's identity (ZK_AUTH), and a subtree only that identity may
// create in (ZK_ROOT), below a class tree it may only read. The
// visualizer, given no -servers and no -path, runs chapter 04's workers
// under the subtree, and leaves the subtree as it found it.
func TestInAClassTheVisualizerRunsInTheLearnersSubtree(t *testing.T) {
	if os.Getenv(zksession.AuthEnv) != "" {
		t.Skip("the test makes its own digest identities; run without ZK_AUTH")
	}
	const hostAuth, learnerAuth = "host:host-secret", "ada:ada-secret"
	root := zktest.Root(t)
	class, subtree := root+"/class", root+"/class/ada"
	// The host's session, also ada's for the clean-up: nodes ada made are
	// ada's alone, as in a class.
	admin := zktest.Connect(t)
	for _, a := range []string{hostAuth, learnerAuth} {
		if err := admin.AddAuth("digest", []byte(a)); err != nil {
			t.Fatal(err)
		}
	}
	host := zk.DigestACL(zk.PermAll, "host", "host-secret")
	if _, err := admin.Create(class, nil, 0, append(host, zk.WorldACL(zk.PermRead)...)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { zktest.DeleteTree(admin, class) }) // with both identities, before zktest.Root's own
	if _, err := admin.Create(subtree, nil, 0, append(host, zk.DigestACL(zk.PermAll, "ada", "ada-secret")...)); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-chapter", "04", "-workers", "3", "-hold", "50ms",
		"-frames", "8", "-interval", "250ms", "-width", "120", "-height", "24")
	cmd.Env = append(os.Environ(), childEnv+"=1", "ZK_SERVERS="+zktest.Server(t).ConnectString(),
		"ZK_ROOT="+subtree, zksession.AuthEnv+"="+learnerAuth)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Once a frame shows a holder, the workers' nodes are there: under
	// the subtree, in the visualizer's run root.
	sc := bufio.NewScanner(stdout)
	for sc.Scan() && !strings.Contains(sc.Text(), "HOLDS") {
	}
	nodes := zktest.Tree(t, admin, subtree)
	if !slices.ContainsFunc(nodes, func(n string) bool {
		return strings.HasPrefix(n, subtree+"/lockstep/visualizer/run-") && strings.Contains(n, "/04-sequential-lock/lock/")
	}) {
		t.Errorf("while a frame shows a holder, under ZK_ROOT=%s:\n  %s", subtree, zktest.Describe(nodes))
	}
	go io.Copy(io.Discard, stdout)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v; stderr:\n%s", err, stderr.String())
	}
	if strings.Contains(stderr.String(), "ZooKeeper at") || strings.Contains(stderr.String(), "warning") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
	if nodes := zktest.Tree(t, admin, class); len(nodes) != 1 || nodes[0] != subtree {
		t.Errorf("under the class tree after the run, want only %s:\n  %s", subtree, zktest.Describe(nodes))
	}
}
