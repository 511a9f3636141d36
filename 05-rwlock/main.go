// Command 05-rwlock shows the read-write lock: readers read the counter
// under the read lock, several at once; writers do the articles' unguarded
// age++ under the write lock, alone. Every node says READ or WRIT, and the
// timeline shows who waits behind whom:
//
//	go run ./05-rwlock                       # 3 workers, 2 of them readers
//	go run ./05-rwlock -workers 6 -readers 1
//	go run ./05-rwlock -nolock               # writers lose updates
//	go run ./05-rwlock -tui                  # the visualizer on this chapter
//
// The last line is counter=N expected=N, where only writers count.
package main

import (
	"flag"
	"fmt"
	"strconv"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/05-rwlock/rwlock"
	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/demo"
)

var readers string

func main() {
	demo.Main(demo.Chapter{
		Name:  "05-rwlock",
		Title: "05-rwlock: readers share, writers exclude, everyone in order",
		Flags: func(fs *flag.FlagSet) {
			fs.StringVar(&readers, "readers", "0.5", "how many workers read: a count (2) or a fraction of -workers, rounded (0.5)")
		},
		Workers: workers,
		// Each worker has its own RWMutex (its own session) and uses one side.
		Sessions: demo.OnSession(seqlock.NewSession,
			func(s *seqlock.Session, path string, obs event.Observer) (demo.Locker, error) {
				m, err := rwlock.New(s, path, seqlock.WithObserver(obs))
				if err != nil {
					return nil, err
				}
				return m.Write(), nil
			},
			func(s *seqlock.Session, path string, obs event.Observer) (demo.Locker, error) {
				m, err := rwlock.New(s, path, seqlock.WithObserver(obs))
				if err != nil {
					return nil, err
				}
				return m.Read(), nil
			}),
	})
}

// workers casts the run: readerCount of the n workers read, named
// reader-1…, the others write, writer-1…, alternating so readers and
// writers start side by side.
func workers(n int) ([]demo.Worker, error) {
	readers, err := readerCount(n)
	if err != nil {
		return nil, err
	}
	var ws []demo.Worker
	nr, nw := 0, 0
	for i := range n {
		if nr < readers && (i%2 == 0 || nw == n-readers) {
			nr++
			ws = append(ws, demo.Worker{Name: fmt.Sprintf("reader-%d", nr), Reader: true})
		} else {
			nw++
			ws = append(ws, demo.Worker{Name: fmt.Sprintf("writer-%d", nw)})
		}
	}
	return ws, nil
}

// readerCount reads -readers: a count, or a fraction of the workers.
func readerCount(workers int) (int, error) {
	n, err := strconv.Atoi(readers)
	if err != nil {
		f, ferr := strconv.ParseFloat(readers, 64)
		if ferr != nil || f < 0 || f > 1 {
			return 0, fmt.Errorf("-readers %q: want a count or a fraction between 0 and 1", readers)
		}
		n = int(f*float64(workers) + 0.5)
	}
	if n < 0 || n > workers {
		return 0, fmt.Errorf("-readers %d: want between 0 and -workers (%d)", n, workers)
	}
	return n, nil
}
