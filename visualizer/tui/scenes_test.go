package tui

import (
	"testing"

	watchscene "github.com/lockstep-zk/lockstep/01-watch/scene"
	naivescene "github.com/lockstep-zk/lockstep/02-naive-lock/scene"
	watchlockscene "github.com/lockstep-zk/lockstep/03-watch-lock/scene"
	seqscene "github.com/lockstep-zk/lockstep/04-sequential-lock/scene"
	rwscene "github.com/lockstep-zk/lockstep/05-rwlock/scene"
	reentrantscene "github.com/lockstep-zk/lockstep/06-reentrant/scene"
	leaderscene "github.com/lockstep-zk/lockstep/07-leader/scene"
	"github.com/lockstep-zk/lockstep/visualizer/scene"
)

// The engine knows no chapter; its tests feed it the chapters' real scenes,
// so the golden frames show the words a learner sees.
var testScenes = []scene.Scene{watchscene.New(), naivescene.New(false), watchlockscene.New(), seqscene.New(),
	rwscene.New(), reentrantscene.New(), leaderscene.New()}

var testKeys = keysOf(testScenes)

func sceneOf(tb testing.TB, key string) scene.Scene {
	tb.Helper()
	s, ok := lookup(testScenes, key)
	if !ok {
		tb.Fatalf("no scene %s", key)
	}
	return s
}
