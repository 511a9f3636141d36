package tui

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/lockstep-zk/lockstep/event"

	"github.com/lockstep-zk/lockstep/visualizer/scene"
)

// The model learns what happens in the world only through these values,
// which the world (visualizer/world, a replay, or a test) delivers in
// batches, at most one a frame (lockEventMsg).

// Msg is one thing that happened in the world: a ChapterStarted, a
// QueueSnapshot, a WorkerChange, a Notice or a LockEvent, and nothing
// else (the unexported method closes the list).
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
