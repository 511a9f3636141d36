// Package scene is chapter 06 in the visualizer: chapter 04's lock plus a
// hold count. Each worker takes the lock, then takes it again (a nested
// call in the same job): the second Lock sends nothing to ZooKeeper, and
// only the last Unlock deletes the node.
package scene

import (
	"context"
	"errors"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/06-reentrant/reentrant"
	"github.com/lockstep-zk/lockstep/visualizer/scene"
)

// New returns chapter 06's scene.
func New() scene.Scene {
	return scene.Scene{
		Key:   "06",
		Name:  "06-reentrant",
		Title: "re-entrant lock: the holder locks twice, one node, one release",
		Look:  "each holder locks twice: the 2nd Lock and 1st Unlock cost no request",
		ZH: scene.Chinese{Title: "可重入锁：持有者加锁两次，一个节点，一次释放",
			Look: "每个持有者加锁两次：第 2 次 Lock 和第 1 次 Unlock 不发任何请求"},
		Open: scene.OnSession(seqlock.NewSession, func(s *seqlock.Session, w scene.Worker) (scene.Part, error) {
			m, err := reentrant.New(s, w.Path, seqlock.WithObserver(w.Observer), seqlock.WithData([]byte(w.Name)))
			if err != nil {
				return nil, err
			}
			return nested{m}, nil
		}),
	}
}

// nested locks twice and unlocks twice. The lock itself says what each
// nested call did ("re-entered, depth 2", "left depth 2, still held at
// depth 1"): no request between those lines is the lesson.
type nested struct{ m *reentrant.Mutex }

func (n nested) Lock(ctx context.Context) error {
	if err := n.m.Lock(ctx); err != nil {
		return err
	}
	if err := n.m.Lock(ctx); err != nil {
		return errors.Join(err, n.m.Unlock(context.WithoutCancel(ctx)))
	}
	return nil
}

func (n nested) Unlock(ctx context.Context) error {
	return errors.Join(n.m.Unlock(ctx), n.m.Unlock(ctx))
}
