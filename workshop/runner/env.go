package runner

import (
	"os/exec"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/lockstep-zk/lockstep/workshop/course"
)

// Env is what the runner does to the world. Each method returns a command
// (run by Bubble Tea, off the Update path) or a value the model shows.
type Env interface {
	// Run runs a check and reports a RunDone with its ID. A run of the
	// same chapter still going is stopped first, all of it (its process
	// group, its ZooKeeper, its overlay): one chapter, one run at a time.
	Run(c Check) tea.Cmd
	// Progress waits for the next news of the checks: a Built (a
	// check's chapter is compiled, its tests start), or a ZKLost.
	Progress() tea.Cmd
	// Watch waits for the next save of an exercise file and reports a
	// Saved, with the hash of what is on disk now.
	Watch() tea.Cmd
	// Reset puts the skeleton back, keeping the learner's file as a
	// backup, and reports a ResetDone.
	Reset(ch string) tea.Cmd
	// Diff reports a DiffReady: the reference against the learner's file.
	Diff(ch string) tea.Cmd
	// Visual is the visualizer on chapter ch's learner's lock.
	Visual(ch string) *exec.Cmd
	// Replay plays a recording of a failing run.
	Replay(file string) *exec.Cmd
	// Save keeps the state (marshalled, so that no command shares the
	// model's maps) in the clone.
	Save(state []byte) tea.Cmd
	// Report tells the class the runner joined where the learner stands
	// after a verdict; it reports a ClassNews only if that failed.
	Report(r Report) tea.Cmd
	// Class waits for the next ClassNews: the session lost, joined again.
	Class() tea.Cmd
}

// Check is one run of a chapter's tests the model asks for.
type Check struct {
	Chapter string
	Tier    course.Tier
	ID      int // the model's number for it: a RunDone of another ID is stale
	// For Tier Record: the test the check named, and what it said. The
	// run records that test (and, if it records nothing, the lesson's).
	Test, Message string
}

// Messages from the world.
type (
	// RunDone: a check finished.
	RunDone struct {
		Chapter string
		ID      int
		Result  course.Result
		Replays []string // recordings the failing run left, the named test's first
		// Named: Replays[0] is the recording of the test the check
		// named (a Record run); else of another lesson test.
		Named bool
	}
	// Saved: an exercise file of chapter Chapter was written; Hash is
	// what its files hash to now, Untouched whether they are the skeleton,
	// Todo the first TODO(workshop) stub left in them.
	Saved struct {
		Chapter, Hash string
		Untouched     bool
		Todo          string
	}
	// Built: check ID of Chapter is compiled; its tests run now.
	Built struct {
		Chapter string
		ID      int
	}
	// ZKLost: the runner's shared ZooKeeper, which the lesson's checks
	// used, did not start or no longer answers (Err says why); each check
	// starts its own again. Progress reports it, once.
	ZKLost struct{ Err error }
	// ResetDone: the skeleton is back; Backup is where the learner's is.
	ResetDone struct {
		Chapter, Backup string
		Err             error
	}
	// DiffReady: the reference against the learner's file.
	DiffReady struct {
		Chapter, Text string
		Err           error
	}
	// ExecDone: the visualizer or a replay ended.
	ExecDone struct{ Err error }
)
