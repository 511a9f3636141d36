// Package scene is chapter 09 in the visualizer: a counting semaphore with
// two leases. The gate (chapter 04's mutex, "G" nodes) queues the workers;
// its holder waits alone for a free lease ("L" nodes), takes one and
// opens the gate for the next.
package scene

import (
	"fmt"
	"strings"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/09-semaphore/internal/leaselock"
	"github.com/lockstep-zk/lockstep/09-semaphore/semaphore"
	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/visualizer/scene"
)

// Leases is how many workers may hold at once in the view.
const Leases = 2

// New returns chapter 09's scene.
func New() scene.Scene {
	return scene.Scene{
		Key:    "09",
		Name:   "09-semaphore",
		Title:  "counting semaphore: 2 leases (L); the gate (G) lets one waiter count",
		Expect: scene.Expect{Holders: Leases, HoldersSays: fmt.Sprintf("%d leases: %d holders at most", Leases, Leases)},
		Words:  scene.Words{Holds: "LEASE", Holding: "leased"},
		ZH: scene.Chinese{Title: fmt.Sprintf("计数信号量：%d 个租约（L）；闸门（G）一次只让一个等待者计数", Leases),
			HoldersSays: fmt.Sprintf("%d 个租约：最多 %d 个持有者", Leases, Leases),
			Words:       scene.Words{Holds: "租约", Holding: "持有租约"}},
		Dirs: []string{"leases", "locks"},
		Open: scene.OnSession(seqlock.NewSession, func(sess *seqlock.Session, w scene.Worker) (scene.Part, error) {
			s, err := semaphore.New(sess, w.Path, Leases, semaphore.WithLockOptions(
				seqlock.WithObserver(recast(w.Observer, gateAsInfo)), seqlock.WithData([]byte(w.Name))))
			if err != nil {
				return nil, err
			}
			return leaselock.New(s), nil
		}),
		Recast: gateAsInfo,
		Tag: func(node string) string {
			switch {
			case strings.Contains(node, "-lease-"):
				return "L"
			case strings.Contains(node, "-lock-"):
				return "G"
			}
			return ""
		},
	}
}

// gateAsInfo tells taking and opening the gate as Info: for the view,
// holding means holding a lease.
func gateAsInfo(e event.Event) event.Event {
	if strings.Contains(e.Node, "-lock-") {
		switch e.Kind {
		case event.Acquired:
			e.Kind, e.Detail, e.Token = event.Info, "takes the gate", 0
		case event.Released:
			e.Kind, e.Detail = event.Info, "opens the gate"
		}
	}
	return e
}

// recast passes each event to o as f changes it.
func recast(o event.Observer, f func(event.Event) event.Event) event.Observer {
	return func(e event.Event) { o.Emit(f(e)) }
}
