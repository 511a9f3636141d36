// Package scene is chapter 05 in the visualizer: a read-write lock. Workers
// 1, 4, 7, … write; the others read. Readers hold together; a writer
// waits for everyone ahead of it, a reader only for the last writer ahead.
package scene

import (
	"strings"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/05-rwlock/rwlock"
	"github.com/lockstep-zk/lockstep/visualizer/scene"
)

// New returns chapter 05's scene.
func New() scene.Scene {
	return scene.Scene{
		Key:   "05",
		Name:  "05-rwlock",
		Title: "read-write lock: readers share, writers exclude (workers 1, 4, 7… write)",
		Look:  "R holders share; a W's release wakes every R behind it, an R's at most one W",
		ZH: scene.Chinese{Title: "读写锁：读者共享，写者独占（第 1、4、7… 个客户端写）",
			Look: "R 持有者共享锁；W 释放时唤醒它后面所有的 R，R 释放时最多唤醒一个 W"},
		Open: scene.OnSession(seqlock.NewSession, func(s *seqlock.Session, w scene.Worker) (scene.Part, error) {
			m, err := rwlock.New(s, w.Path, seqlock.WithObserver(w.Observer))
			if err != nil {
				return nil, err
			}
			if w.Index%3 == 1 {
				return m.Write(), nil
			}
			return m.Read(), nil
		}),
		Tag: tag,
	}
}

// tag tells a read node from a write node by its name ("…-read-…").
func tag(node string) string {
	switch up := strings.ToUpper(node); {
	case strings.Contains(up, "READ"):
		return "R"
	case strings.Contains(up, "WRIT"):
		return "W"
	}
	return ""
}
