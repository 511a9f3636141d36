package tui

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/event"
)

// ChapterInfo is what the view knows about a chapter.
type ChapterInfo struct {
	Key   string // "04"
	Name  string // "04-sequential-lock"
	Title string // one line
	Look  string // what to look for, shown under the header
	Watch bool   // 01: a watch demo, not a lock
	// Labels rename states for this chapter (01: Waiting is "watching").
	Labels map[State]string
}

// label is how the chapter names state s.
func (c ChapterInfo) label(s State) string {
	if l, ok := c.Labels[s]; ok {
		return l
	}
	return s.String()
}

// Locker is one worker's part in a chapter: for a lock chapter its lock;
// for 01 a watcher or the writer; for 07 a candidate (Lock = campaign,
// Unlock = resign).
type Locker interface {
	Lock(ctx context.Context) error
	Unlock(ctx context.Context) error
}

// Chapter is one chapter wired into the visualizer. Each lives in its own
// small file (chapter04.go, …) and registers itself in init.
type Chapter struct {
	ChapterInfo
	// Single: the lock is the one znode at the lock path (02, 03); the
	// queue panel then shows that child of its parent. Otherwise the lock
	// path is a directory whose children are the queue.
	Single bool
	// Leaf is the last element of the lock path; default "lock".
	Leaf string
	// Setup prepares the chapter's znodes (optional): 01 creates the node
	// it watches.
	Setup func(ctx context.Context, admin *zk.Conn, path string) error
	// NewWorker builds one worker's part with the chapter's reference lock;
	// Exercise with the learner's lock in NN-name/exercise (-impl exercise).
	NewWorker func(w Worker) (Locker, error)
	Exercise  func(w Worker) (Locker, error)
}

// Worker is what a chapter gets to build one worker's lock.
type Worker struct {
	Conn     *zk.Conn       // the worker's own session
	Path     string         // the lock path
	Index    int            // 1-based
	Name     string         // "worker-3"
	Observer event.Observer // stamps Name on every event
	Session  time.Duration  // the session timeout Conn was opened with
	Persist  bool           // -persistent: chapter 02's persistent variant
}

var chapters = map[string]Chapter{}

func register(c Chapter) { chapters[c.Key] = c }

// Chapters lists the keys of the chapters wired in, in order.
func Chapters() []string {
	var ks []string
	for k := range chapters {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// lookup finds a chapter by key ("04", "4") or name ("04-sequential-lock").
func lookup(s string) (Chapter, bool) {
	if len(s) == 1 {
		s = "0" + s
	}
	if len(s) > 2 {
		s = s[:2]
	}
	c, ok := chapters[strings.ToLower(s)]
	return c, ok
}
