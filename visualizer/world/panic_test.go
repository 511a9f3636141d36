package world

import "testing"

func TestPanicSitesPointIntoTheChapter(t *testing.T) {
	for in, want := range map[string]string{
		"/home/me/lockstep/04-sequential-lock/seqlock/node.go": "04-sequential-lock/seqlock/node.go",
		"/work/main/visualizer/main_test.go":                   "visualizer/main_test.go",
	} {
		if got := inModule(in); got != want {
			t.Errorf("inModule(%q) = %q, want %q", in, got, want)
		}
	}
	e := &PanicError{Worker: "worker-2", Value: "TODO(workshop): x", Where: "04-sequential-lock/seqlock/node.go:9"}
	if e.Error() != "worker-2: panic: TODO(workshop): x (at 04-sequential-lock/seqlock/node.go:9)" {
		t.Errorf("%q", e.Error())
	}
}
