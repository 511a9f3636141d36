package demo

import (
	"strings"
	"testing"

	"github.com/lockstep-zk/lockstep/internal/zktest"
)

// In a class the learner may create only in their own subtree (ZK_ROOT):
// a demo's run root is made below it, and the run's end removes the
// parents it made up to the subtree, never the subtree itself.
func TestARunInAClassWorksBelowZKRootAndLeavesItAsItWas(t *testing.T) {
	base := zktest.Root(t)
	t.Setenv(RootEnv, base)
	out, _, err := execute(t, testChapter(), "-hold", "1ms")
	if err != nil {
		t.Fatal(err)
	}
	if first, _, _ := strings.Cut(out, "\n"); !strings.HasPrefix(first, "00-test: this run works under "+base+"/lockstep/00-test/run-") {
		t.Errorf("the first line %q: want the run's root below ZK_ROOT=%s", first, base)
	}
	conn := zktest.Connect(t)
	if ok, _, err := conn.Exists(base); err != nil || !ok {
		t.Fatalf("ZK_ROOT %s is gone after the run (%v)", base, err)
	}
	if nodes := zktest.Tree(t, conn, base); len(nodes) > 0 {
		t.Errorf("left below ZK_ROOT:\n  %s", zktest.Describe(nodes))
	}

	t.Run("a ZK_ROOT that is no znode path is an error before anything connects", func(t *testing.T) {
		t.Setenv(RootEnv, "learners/ada")
		if _, _, err := execute(t, testChapter()); err == nil || !strings.Contains(err.Error(), RootEnv) {
			t.Errorf("err = %v, want one naming %s", err, RootEnv)
		}
	})
}
