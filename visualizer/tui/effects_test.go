package tui

import (
	"slices"
	"testing"

	"github.com/lockstep-zk/lockstep/event"
)

// The fold and the replay's queue read what a request does from effects:
// an op a lock reports that the view does not know would be drawn as if it
// changed nothing. (event's TestEveryOpTheModuleWritesIsOneOfOps checks the
// other half: that every op written in the module is one of event.Ops.)
func TestTheViewKnowsEveryOp(t *testing.T) {
	for _, op := range event.Ops() {
		if effects[op] == 0 {
			t.Errorf("event.%s (%q): the view does not say what it does to the queue; add it to effects in fold.go", opName(op), op)
		}
	}
	for op := range effects {
		if !slices.Contains(event.Ops(), op) {
			t.Errorf("effects has %q, which is none of event.Ops()", op)
		}
	}
}

func opName(op event.Op) string {
	if op == "" {
		return "Op(\"\")"
	}
	return "Op" + string(op[0]-'a'+'A') + string(op[1:])
}
