// Package scene is what a chapter hands the visualizer: how to build one
// worker's part of its lock on that worker's own session, how its znodes
// are laid out, and the chapter's own words for what the workers do.
//
// The visualizer's engine (visualizer/tui) knows no chapter. Each chapter
// has a small NN-name/scene package that builds a Scene from the chapter's
// own lock, and visualizer/main.go lists those scenes. A chapter's scene
// imports its chapter, earlier chapters, this package and internal/ only,
// so showing a chapter never compiles a later one, and never an exercise:
// the learner's lock is shown by building the visualizer with an -overlay
// that puts the exercise's files in place of the reference's (make
// exercise CH=04 VISUAL=1).
package scene

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/zksession"
)

// Scene is one chapter as the visualizer shows it.
type Scene struct {
	Key   string // "04": the -chapter flag, and the key that switches to it
	Name  string // "04-sequential-lock": the header, and the znode it runs under
	Title string // one line: what this chapter's lock does
	Look  string // what to look for, under the header, when Expect claims nothing; within 80 columns
	// Expect is what the chapter's lock should measure. The header prints
	// what the running lock measured beside it, and flags a mismatch (a
	// learner's herd in 04: "✗ each release woke 4.0 waiters (last 5); the
	// predecessor queue wakes 1"), instead of Look.
	Expect Expect

	Words Words // the chapter's words; empty fields take the lock's words
	// ZH is the chapter's Chinese for the view in Chinese (-lang zh).
	ZH Chinese

	// Single: the lock is the one znode at the lock path (01, 02, 03) and
	// the left panel shows that node. Otherwise the lock path is a directory
	// whose children are the queue.
	Single bool
	// Leaf is the last element of the lock path; default "lock".
	Leaf string
	// Dirs: the queue panel shows the children of these subdirectories of
	// the lock path together, in this order (09: "leases", "locks"); none:
	// the children of the lock path itself.
	Dirs []string
	// Watch: there is no lock, only watches (01). Nobody competes, so no
	// notification is a wasted wake-up and nobody is marked as holding.
	Watch bool

	// Setup prepares the chapter's znodes before the workers start
	// (optional): 01 creates the node it watches. admin is the
	// visualizer's own session.
	Setup func(ctx context.Context, admin *zk.Conn, path string) error
	// NewWorker builds one worker's part: for a lock chapter its lock; for
	// 01 the writer or a watcher; for 07 a candidate (Lock campaigns,
	// Unlock resigns). It must report what it does through w.Observer.
	NewWorker func(w Worker) (Part, error)
	// Open replaces NewWorker for chapters whose locks live on a Session
	// (04 on): it opens the worker's session on servers with opts (the
	// visualizer world's: its timeout, ZK_AUTH, its event callback) and builds the
	// worker's part on it. OnSession makes one from the chapter's session
	// constructor.
	Open func(ctx context.Context, servers []string, w Worker, opts ...zksession.Option) (Session, Part, error)
	// Recast, if set, is how the view reads a lock's raw event, in a replay
	// of a test's recording (whose events are the lock's own): the same
	// change the scene's Open or NewWorker makes live (09 tells taking and
	// opening the gate as Info, since holding means holding a lease).
	Recast func(e event.Event) event.Event
	// Describe is how the event log says e; "" leaves the line out. Nil:
	// e.String(), the lock's own words ("worker-3 acquired lock-…").
	Describe func(e event.Event) string
	// Tag is a short mark for a node of the queue, by its name ("R" or "W"
	// in 05); nil or "": none.
	Tag func(node string) string
}

// Expect is what a chapter's lock should measure. A zero field claims
// nothing.
type Expect struct {
	// Woken is how many waiters one release should wake: 1 (04's queue),
	// or All (03: everyone watching the one node).
	Woken int
	// WokenSays is the chapter's words for it: "the predecessor queue wakes 1".
	WokenSays string
	// Holders is the most that may hold at once: 1 for a mutex, n for a
	// semaphore of n.
	Holders int
	// HoldersSays is the chapter's words for it: "one holder at a time".
	HoldersSays string
}

// All, as Expect.Woken: a release wakes every waiter.
const All = -1

// Claims says whether e claims anything.
func (e Expect) Claims() bool { return e.Woken != 0 || e.Holders != 0 }

// Part is one worker's part in a scene. The engine calls Lock, keeps what
// it got for the hold time, then calls Unlock, and again, until the worker
// is stopped (ctx cancelled: Lock must then return).
type Part interface {
	Lock(ctx context.Context) error
	Unlock(ctx context.Context) error
}

// Worker is what a scene gets to build one worker's part.
type Worker struct {
	Conn     *zk.Conn       // the worker's own session
	Path     string         // the lock path: a directory, or the one node if Single
	Index    int            // 1-based
	Name     string         // "worker-3" (Words.Worker + "-" + Index)
	Observer event.Observer // stamps Name on every event; pass it to the lock
	Session  time.Duration  // the session timeout the server granted Conn
}

// A Session is a worker's ZooKeeper session (zksession.Session: a
// *seqlock.Session is one); when its Done closes, the worker opens a new
// one. The visualizer's engine knows no chapter.
type Session = zksession.Session

// OnSession makes a Scene's Open from a chapter's session constructor
// (seqlock.NewSession) and its worker, which gets the session itself, typed:
//
//	Open: scene.OnSession(seqlock.NewSession, func(s *seqlock.Session, w scene.Worker) (scene.Part, error) {…})
//
// w.Conn and w.Session are the session's conn and granted timeout.
func OnSession[S Session](newSession zksession.NewSession[S],
	newWorker func(s S, w Worker) (Part, error)) func(ctx context.Context, servers []string, w Worker, opts ...zksession.Option) (Session, Part, error) {
	return func(ctx context.Context, servers []string, w Worker, opts ...zksession.Option) (Session, Part, error) {
		s, err := newSession(ctx, servers, opts...)
		if err != nil {
			return nil, nil, err
		}
		w.Conn, w.Session = s.Conn(), s.Timeout()
		part, err := newWorker(s, w)
		if err != nil {
			s.Close()
			return nil, nil, err
		}
		return s, part, nil
	}
}

// Words are a chapter's names for what the view shows. Each empty field
// takes the default in brackets.
type Words struct {
	Worker string // one participant ["worker"]; 07: "candidate"
	Queue  string // the left panel's title ["QUEUE"]; 07: "CANDIDATES"
	Holds  string // the holder's mark in the queue ["HOLDS"]; 07: "LEADS"

	// The state column.
	Idle       string // between rounds ["idle"]; 07: "resigned"
	Requesting string // talking to ZooKeeper ["requesting"]; 01: "no watch"
	Waiting    string // blocked on a watch ["waiting"]; 01: "watching"
	Holding    string // holds the lock ["holding"]; 01: "writing"; 07: "leader"
	Notified   string // a watch just fired, shown for a moment ["NOTIFIED"]

	// The counters line.
	Acquired string // holds so far ["acq"]; 01: "writes"; 07: "terms"
	Woken    string // notifications per release ["woken/release"]; 01: "fired/write"
	PerAcq   string // requests per hold ["acq"]: "req 75 (7.5/acq)"; 07: "term"
}

// lockWords are the lock's words, the defaults of Words in each language.
var lockWords = map[string]Words{
	"en": {Worker: "worker", Queue: "QUEUE", Holds: "HOLDS", Idle: "idle", Requesting: "requesting",
		Waiting: "waiting", Holding: "holding", Notified: "NOTIFIED", Acquired: "acq", Woken: "woken/release", PerAcq: "acq"},
	"zh": {Worker: "客户端", Queue: "队列", Holds: "持有", Idle: "空闲", Requesting: "请求中",
		Waiting: "等待中", Holding: "持有锁", Notified: "已通知", Acquired: "加锁", Woken: "唤醒/释放", PerAcq: "次加锁"},
}

// WithDefaults fills every empty field with the lock's word.
func (w Words) WithDefaults() Words { return w.over(lockWords["en"]) }

// over fills every empty field of w with def's.
func (w Words) over(def Words) Words {
	set := func(s *string, def string) {
		if *s == "" {
			*s = def
		}
	}
	set(&w.Worker, def.Worker)
	set(&w.Queue, def.Queue)
	set(&w.Holds, def.Holds)
	set(&w.Idle, def.Idle)
	set(&w.Requesting, def.Requesting)
	set(&w.Waiting, def.Waiting)
	set(&w.Holding, def.Holding)
	set(&w.Notified, def.Notified)
	set(&w.Acquired, def.Acquired)
	set(&w.Woken, def.Woken)
	set(&w.PerAcq, def.PerAcq)
	return w
}

// Chinese is what a scene says in the Chinese view: its Look, what its
// Expect says (WokenSays, HoldersSays), and its Words. An empty field
// takes the English scene's text if the scene sets one (a test asks every
// scene for its Chinese), else the lock's Chinese word.
type Chinese struct {
	Title, Look            string
	WokenSays, HoldersSays string
	Words                  Words
	// Describe is Scene.Describe in Chinese; nil: the view's own Chinese
	// line for the event.
	Describe func(e event.Event) string
}

// TitleIn is s's Title in lang ("zh", or English).
func (s Scene) TitleIn(lang string) string {
	if lang == "zh" && s.ZH.Title != "" {
		return s.ZH.Title
	}
	return s.Title
}

// In returns what the view shows of s in lang ("zh", or English): the
// words with their defaults filled in, the Look and the Expect.
func (s Scene) In(lang string) (Words, string, Expect) {
	if lang != "zh" {
		return s.Words.WithDefaults(), s.Look, s.Expect
	}
	x := s.Expect
	pick := func(zh, en string) string {
		if zh != "" {
			return zh
		}
		return en
	}
	x.WokenSays, x.HoldersSays = pick(s.ZH.WokenSays, x.WokenSays), pick(s.ZH.HoldersSays, x.HoldersSays)
	return s.ZH.Words.over(s.Words).over(lockWords["zh"]), pick(s.ZH.Look, s.Look), x
}

// ErrIncomplete says a Scene lacks what the engine needs.
var ErrIncomplete = errors.New("scene: incomplete")

// Check says whether s can be shown: it needs a two-digit Key, a Name that
// starts with it, and a NewWorker.
func (s Scene) Check() error {
	switch {
	case len(s.Key) != 2 || s.Key[0] < '0' || s.Key[0] > '9' || s.Key[1] < '0' || s.Key[1] > '9':
		return fmt.Errorf("%w: key %q: want two digits, like 04", ErrIncomplete, s.Key)
	case len(s.Name) < 4 || s.Name[:2] != s.Key || s.Name[2] != '-':
		return fmt.Errorf("%w: name %q: want %s-something", ErrIncomplete, s.Name, s.Key)
	case s.NewWorker == nil && s.Open == nil:
		return fmt.Errorf("%w: %s has no NewWorker", ErrIncomplete, s.Name)
	}
	return nil
}

// LeafOrDefault is the last element of the lock path.
func (s Scene) LeafOrDefault() string {
	if s.Leaf == "" {
		return "lock"
	}
	return s.Leaf
}

// Line is how the event log says e in this scene.
func (s Scene) Line(e event.Event) string {
	if s.Describe != nil {
		return s.Describe(e)
	}
	if e.Kind == event.Info && e.Node == "" && e.Owner != "" {
		return e.Owner + " " + e.Detail // "worker-3 locks again (nested call)"
	}
	return e.String()
}
