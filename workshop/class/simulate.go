package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/lockstep-zk/lockstep/workshop/class/classroom"
)

// mistakes are what a simulated learner's checks name, per chapter: the
// mistakes each lesson is about.
var mistakes = map[string][]string{
	"02": {"busy loop"}, "03": {"the herd"}, "04": {"the herd", "no re-list"},
	"05": {"writer starved"}, "06": {"count not kept"}, "07": {"two leaders"},
	"08": {"stale write"}, "09": {"lease overrun"},
}

// simulate joins learners that step through the chapters with real
// progress writes: a rehearsal of the host's screen before the room fills.
func simulate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("simulate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", "lockstep-class", "the class directory (for its join line; or give -line)")
	line := fs.String("line", "", "the join line (default: the one serve keeps in -dir)")
	n := fs.Int("learners", 5, "how many learners")
	step := fs.Duration("step", 2*time.Second, "about how long a learner takes per verdict")
	prefix := fs.String("prefix", "sim", "learners are named <prefix>-01, <prefix>-02, …")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if *n < 1 || *n > 200 || *step <= 0 {
		return fmt.Errorf("simulate: want 1 to 200 -learners and a -step > 0")
	}
	if *line == "" {
		st, err := readState(*dir)
		if err != nil {
			return fmt.Errorf("simulate: no -line, and no class directory %s: %w", *dir, err)
		}
		*line = st.joinLine()
	}
	tmp, err := os.MkdirTemp("", "lockstep-simulate-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	secrets := classroom.FileSecrets(filepath.Join(tmp, "secrets.json"))
	var wg sync.WaitGroup
	var mu sync.Mutex
	say := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(stdout, time.Now().Format("15:04:05")+" "+format+"\n", args...)
	}
	for i := range *n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := fmt.Sprintf("%s-%02d", *prefix, i+1)
			l, err := classroom.Join(ctx, *line, name, secrets)
			if err != nil {
				say("%s: %v", name, err)
				return
			}
			defer l.Close()
			say("%s joined", name)
			r := rand.New(rand.NewPCG(uint64(i), uint64(time.Now().UnixNano())))
			pause := func() bool {
				select {
				case <-time.After(time.Duration(float64(*step) * (0.5 + r.Float64()))):
					return true
				case <-ctx.Done():
					return false
				}
			}
			for c := 1; c <= 9; c++ {
				p := classroom.Progress{Chapter: fmt.Sprintf("%02d", c), State: classroom.Untouched, ChapterStart: time.Now().UTC()}
				for {
					if err := l.Report(ctx, p); err != nil {
						say("%s: %v", name, err)
						return
					}
					if p.State == classroom.Passing || !pause() {
						break
					}
					p.LastVerdict = time.Now().UTC()
					if ms := mistakes[p.Chapter]; len(ms) > 0 && r.IntN(3) > 0 {
						p.State, p.Mistake = classroom.Failing, ms[r.IntN(len(ms))]
						p.HintStage = min(p.HintStage+r.IntN(2), 3)
					} else {
						p.State, p.Mistake = classroom.Passing, ""
					}
				}
				if !pause() {
					return
				}
			}
			say("%s passed every chapter", name)
		}()
	}
	wg.Wait()
	if ctx.Err() != nil {
		say("simulation stopped: the learners' sessions are closed, their progress stays")
	}
	return nil
}
