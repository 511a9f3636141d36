// Package worldmsg is what the visualizer's view (visualizer/tui) learns
// from a world, and all it learns: the live world (visualizer/world), a
// replay, the observe mode (visualizer/observe) and the tests deliver these
// values in batches, and the view folds them. The world and the view both
// import this package and not each other.
package worldmsg

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/visualizer/scene"
)

// Msg is one thing that happened in the world: a ChapterStarted, a
// QueueSnapshot, a WorkerChange, a Notice or a LockEvent (the observe
// mode's: an Observed or a Link), and nothing else (the unexported method
// closes the list).
type Msg interface{ worldMsg() }

// LockEvent is what a worker's lock reported through its event.Observer.
type LockEvent struct{ event.Event }

func (ChapterStarted) worldMsg() {}
func (QueueSnapshot) worldMsg()  {}
func (WorkerChange) worldMsg()   {}
func (Notice) worldMsg()         {}
func (LockEvent) worldMsg()      {}

// ChapterStarted says a chapter's workers are starting: everything the
// view knew about the previous chapter is forgotten.
type ChapterStarted struct {
	Scene    scene.Scene
	Path     string // the lock path given to every worker
	Dir      string // the znode whose children the queue panel shows
	Workers  []string
	Hold     time.Duration
	Workshop bool // the learner's lock (a -tags workshop build): the header says so
}

// QueueSnapshot is the lock dir as ZooKeeper has it right now, read by a
// children watch on Dir (never inferred from events).
type QueueSnapshot struct {
	Dir     string
	Missing bool        // Dir does not exist (yet, or any more)
	Nodes   []QueueNode // in sequence order
}

// Sort puts Nodes in sequence order, the queue's order, with the name to
// break a tie: a name sorts by its prefix first (Curator's
// _c_<uuid>-lock-0000000012 by its uuid), which is not the queue.
func (q *QueueSnapshot) Sort() {
	slices.SortFunc(q.Nodes, func(a, b QueueNode) int {
		return cmp.Or(cmp.Compare(a.Seq, b.Seq), strings.Compare(a.Name, b.Name))
	})
}

// QueueNode is one child of the lock dir.
type QueueNode struct {
	Name       string
	Seq        int64  // the sequence suffix, -1 if the name has none
	Owner      string // the worker whose session owns it ("" if unknown)
	Kind       string // the scene's Tag for it: "R" or "W" in 05, else ""
	Persistent bool   // not ephemeral: it survives its creator's session
	Data       string // the node's data, if short and printable
}

// WorkerChange is something that happens to a worker outside its lock:
// started, killed, cut off, expired, removed, back on a new session.
type WorkerChange struct {
	Name  string
	State State
	// Detail is said as it is; "" lets the view say what the state means
	// in its language (Timeout: the session timeout the server granted,
	// for a crashed or cut-off worker).
	Detail  string
	Timeout time.Duration
	// Session is set when the worker has opened a new session because
	// its last one ended (a Session is one session): the view says so on
	// its status line, which the key that expired it had set.
	Session int64
}

// Notice is a line for the log that does not come from a lock (errors,
// what a key did). Of says which, and the view words it in its language
// with Worker and Arg (an error's text stays as the error says it); a
// Notice of no kind is its Text.
type Notice struct {
	Of          NoticeKind
	Worker, Arg string
	Text        string
}

// NoticeKind is what a Notice tells.
type NoticeKind int

const (
	NoticeText             NoticeKind = iota // Text, as it is
	NoticeNoChapter                          // Arg: the chapter key asked for
	NoticeStartFailed                        // Arg: the chapter, then its error
	NoticeAddFailed                          // Arg: the error
	NoticeExpireFailed                       // Worker, Arg: the error
	NoticeNewSession                         // Worker, Arg: its new session id (its conn opened it)
	NoticeNewSessionFailed                   // Worker, Arg: the error
	NoticeLockFailed                         // Worker, Arg: the error
	NoticeUnlockFailed                       // Worker, Arg: the error
)

// State is what a worker is doing, as the visualizer shows it.
type State int

const (
	Idle       State = iota // between rounds, no lock, no node
	Requesting              // talking to ZooKeeper to get the lock
	Waiting                 // blocked behind another node, a watch set
	Holding                 // holds the lock
	CutOff                  // its link to ZooKeeper is cut (an expiry in progress)
	Expired                 // its session expired: everything it had is gone
	Crashed                 // killed: its session will time out on the server
	Stopped                 // removed by the user, closed cleanly
)

var stateNames = [...]string{Idle: "idle", Requesting: "requesting", Waiting: "waiting", Holding: "holding",
	CutOff: "cut off", Expired: "session expired", Crashed: "crashed", Stopped: "stopped"}

func (s State) String() string {
	if s >= 0 && int(s) < len(stateNames) {
		return stateNames[s]
	}
	return "unknown"
}

// Alive says whether the worker still takes part in the lock.
func (s State) Alive() bool { return s != Crashed && s != Stopped }

// The observe mode's own messages: it has no workers, only what ZooKeeper
// shows an outsider.

// Observed is one look at the observed directory: its children as
// ZooKeeper had them At (when the watch fired and the list was read).
type Observed struct {
	At    time.Time
	Queue QueueSnapshot
}

func (Observed) worldMsg() {}

// Link says the observer's connection to ZooKeeper dropped (Up false) or
// serves again: while it is down the view says what it shows may be stale.
type Link struct {
	At time.Time
	Up bool
}

func (Link) worldMsg() {}

// Arena is what the observing side read beside the queue, when the
// observed directory is the class's arena (workshop/class/arena): a shared
// counter each holder reads and writes back plus one, on a condition, and
// every write the server refused, naming both learners. The view knows
// nothing of the arena's package: it shows these fields.
type Arena struct {
	At      time.Time // when it was read: rounds per second are counted between two
	Dir     string    // the arena's directory
	Paused  bool      // the host paused it: no round starts
	Count   int64     // the counter
	Writer  string    // who wrote the counter last
	Caught  int       // how many writes were refused in all
	Catches []Catch   // the latest of them, oldest first
}

func (Arena) worldMsg() {}

// Catch is one write the arena refused, said with both names, as the
// arena itself says it on one row of a screen (arena.Catch.Line) in each
// language the course speaks: the host's screen shows the same words.
type Catch struct {
	En, Zh string
}

// In is the catch in lang ("zh" for Chinese, English otherwise).
func (c Catch) In(lang string) string {
	if lang == "zh" {
		return c.Zh
	}
	return c.En
}
