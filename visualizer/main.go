// Command visualizer shows a chapter's lock at work: K workers, each with
// its own ZooKeeper session, contend for the chapter's real lock against a
// real server, and the terminal shows the queue of lock nodes, who watches
// whom, whom each deletion wakes, and every request. Press k to kill the
// holder, e to expire its session, 3 and 4 to compare the herd with the
// hand-off, q to quit.
//
//	go run ./visualizer                 # chapter 04, 5 workers
//	go run ./visualizer -chapter 03 -workers 8
//	go run ./visualizer -frames 6 -width 80 -height 24   # print frames, no TUI
//	go run ./visualizer -replay FILE    # play a failing test's recording
//	go run ./visualizer -observe DIR    # watch a lock directory it does not own
//
// A learner's own lock is shown by building this command with the
// exercise's files laid over the reference's (make exercise CH=04 VISUAL=1
// runs go run -tags workshop -overlay … ./visualizer -chapter 04): nothing
// here names an exercise package.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path"
	"strings"
	"syscall"
	"time"

	watchscene "github.com/lockstep-zk/lockstep/01-watch/scene"
	naivelockscene "github.com/lockstep-zk/lockstep/02-naive-lock/scene"
	watchlockscene "github.com/lockstep-zk/lockstep/03-watch-lock/scene"
	seqlockscene "github.com/lockstep-zk/lockstep/04-sequential-lock/scene"
	rwlockscene "github.com/lockstep-zk/lockstep/05-rwlock/scene"
	reentrantscene "github.com/lockstep-zk/lockstep/06-reentrant/scene"
	leaderscene "github.com/lockstep-zk/lockstep/07-leader/scene"
	semaphorescene "github.com/lockstep-zk/lockstep/09-semaphore/scene"
	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/zksession"
	"github.com/lockstep-zk/lockstep/visualizer/scene"
	"github.com/lockstep-zk/lockstep/visualizer/tui"
	"github.com/lockstep-zk/lockstep/visualizer/world"
)

// scenes is every chapter the visualizer can show, in order: the one place
// that lists them. A new chapter writes its own NN-name/scene package, the
// way 04-sequential-lock/scene does, and adds one line here (09 did).
func scenes(persistent bool) []scene.Scene {
	return []scene.Scene{
		watchscene.New(),
		naivelockscene.New(persistent),
		watchlockscene.New(),
		seqlockscene.New(),
		rwlockscene.New(),
		reentrantscene.New(),
		leaderscene.New(),
		semaphorescene.New(),
	}
}

// listScenes is scenes; a test puts a crashing chapter in its place.
var listScenes = scenes

func main() {
	flag.CommandLine.Init("visualizer", flag.ExitOnError)
	flag.Usage = usage
	var o tui.Options    // the view: what shows
	var cfg world.Config // the world: what runs
	var servers string
	var persistent bool
	flag.StringVar(&servers, "servers", "", "ZooKeeper servers host:port,… (default: $ZK_SERVERS, else Docker, else a local install)")
	first, last := chapterRange()
	flag.StringVar(&o.Chapter, "chapter", "04", fmt.Sprintf("chapter to show: %s to %s (keys %s-%s switch while running)",
		first, last, strings.TrimLeft(first, "0"), strings.TrimLeft(last, "0")))
	flag.IntVar(&o.Workers, "workers", 5, "workers, each with its own session")
	flag.DurationVar(&cfg.Hold, "hold", 300*time.Millisecond, "time each holder keeps the lock")
	flag.DurationVar(&cfg.Session, "session", zksession.DefaultTimeout, "ZooKeeper session timeout")
	flag.StringVar(&cfg.Base, "path", "", "znode under which each chapter gets its own (default: a root of this run's own, /lockstep/visualizer/run-…, below $ZK_ROOT if set, deleted on the way out)")
	flag.BoolVar(&persistent, "persistent", false, "chapter 02: use the persistent lock node (a killed holder leaves it stuck)")
	flag.StringVar(&o.Script, "script", "", `keys to press at given times, e.g. "2s:k,6s:e"`)
	flag.IntVar(&o.Frames, "frames", 0, "print this many frames without colour and exit (no TUI)")
	flag.DurationVar(&o.Interval, "interval", tui.FrameInterval, "time between two -frames")
	flag.IntVar(&o.Width, "width", tui.FrameWidth, "-frames: width")
	flag.IntVar(&o.Height, "height", tui.FrameHeight, "-frames: height")
	flag.StringVar(&o.Lang, "lang", "", "zh: the view in Chinese, en: in English (default: $LOCKSTEP_LANG, as the workshop runner sets it, else zh when $LC_ALL or $LANG is zh_*)")
	replay := flag.String("replay", "", "play a failing test's recording (FILE.events.jsonl, see LOCKSTEP_RECORD_DIR); no ZooKeeper needed")
	observeDir := flag.String("observe", "", "watch a lock directory someone else's locks queue in (ours, Curator's, go-zookeeper's) on -servers or $ZK_SERVERS; no workers of its own")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "visualizer: unexpected argument %q\n", flag.Arg(0))
		flag.Usage()
		os.Exit(2)
	}
	o.Lang = language(o.Lang)
	if *replay != "" {
		os.Exit(runReplay(*replay, o))
	}
	if *observeDir != "" {
		os.Exit(runObserve(*observeDir, servers, o)) // see observing.go
	}
	o.Scenes, cfg.Workshop = listScenes(persistent), workshop
	if os.Getenv(viewEnv) == "" {
		os.Exit(supervise(servers, cfg.Base, o.Scenes, o.Frames == 0)) // see supervise.go
	}

	// Ctrl-C in the view is a key (q does the same); these signals are for
	// -frames, kill, and the terminal going away (SIGHUP). The first ends
	// Run the normal way: sessions closed, nodes deleted. Later ones (a
	// hangup reaches both processes, and the supervisor passes one on) are
	// ignored: the clean-up is bounded in time.
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		for s := range sigs {
			cancel(signalled{s}) // only the first one counts
		}
	}()
	err := run(ctx, servers, o, cfg)
	os.Exit(exitCode(err, context.Cause(ctx), o.Chapter))
}

// runReplay plays a recording in the queue view, with the words of the
// chapter its header names (-chapter if it names none). Frames > 0 prints
// the frame at the breaking event instead. It needs no ZooKeeper, so it
// runs in this process, without the supervisor.
func runReplay(file string, o tui.Options) int {
	rec, sc, err := readReplay(file, listScenes(false))
	if err != nil {
		fmt.Fprintln(os.Stderr, "visualizer:", err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	ro := tui.ReplayOptions{Frames: o.Frames, Lang: o.Lang}
	if o.Frames > 0 {
		ro.Width, ro.Height = o.Width, o.Height
	}
	if err := tui.RunReplay(ctx, rec, sc, ro); err != nil {
		fmt.Fprintln(os.Stderr, "visualizer:", err)
		return 1
	}
	return 0
}

// readReplay reads a recording and finds the scene of its chapter.
func readReplay(file string, scenes []scene.Scene) (event.Recording, scene.Scene, error) {
	f, err := os.Open(file)
	if err != nil {
		return event.Recording{}, scene.Scene{}, fmt.Errorf("replay: %w", err)
	}
	defer f.Close()
	rec, err := event.ReadRecording(f)
	if err != nil {
		return event.Recording{}, scene.Scene{}, fmt.Errorf("replay %s: %w", file, err)
	}
	ch := rec.Header.Chapter
	if ch == "" {
		ch = chapterFlag()
	}
	var keys []string
	for _, sc := range scenes {
		if sc.Key == ch {
			return rec, sc, nil
		}
		keys = append(keys, sc.Key)
	}
	return event.Recording{}, scene.Scene{}, fmt.Errorf("replay %s: chapter %q has no scene in the visualizer (want one of %s)",
		file, ch, strings.Join(keys, ", "))
}

// signalled is the cause of the context when a signal ended the run.
type signalled struct{ os.Signal }

func (s signalled) Error() string { return "stopped by " + s.Signal.String() }

// exitCode says how it ended, on stderr, and returns the exit code: 0, 1
// after an error or an unfinished exercise, 128+n after signal n.
func exitCode(err, cause error, chapter string) int {
	var p *world.PanicError
	var sig signalled
	interrupted := errors.As(cause, &sig)
	switch {
	case errors.As(err, &p) && workshop:
		fmt.Fprintf(os.Stderr, "visualizer: your chapter %s lock is not finished yet: %s panicked%s\n  %v\n", chapter, p.Worker, at(p.Where), p.Value)
		fmt.Fprintf(os.Stderr, "run its tests with: make exercise CH=%s\n", chapter)
		return 1
	case err != nil && !(interrupted && errors.Is(err, context.Canceled)):
		fmt.Fprintln(os.Stderr, "visualizer:", err)
		return 1
	case interrupted:
		fmt.Fprintf(os.Stderr, "visualizer: %v: sessions closed, nodes deleted\n", sig)
		n := 1
		if s, ok := sig.Signal.(syscall.Signal); ok {
			n = int(s)
		}
		return 128 + n
	}
	return 0
}

func at(where string) string {
	if where == "" {
		return ""
	}
	return " at " + learnerFile(where)
}

// learnerFile names the exercise file a workshop build compiled in place
// of the reference's: the -overlay puts NN-name/exercise/node.go where
// NN-name/seqlock/node.go was, and the stack names the latter.
func learnerFile(where string) string {
	parts := strings.SplitN(where, "/", 3)
	if !workshop || len(parts) != 3 {
		return where
	}
	file, _, _ := strings.Cut(parts[2], ":")
	if _, err := os.Stat(path.Join(parts[0], "exercise", file)); err != nil {
		return where
	}
	return parts[0] + "/exercise/" + parts[2]
}

// chapterFlag is the -chapter flag's value.
func chapterFlag() string { return flag.Lookup("chapter").Value.String() }

// chapterRange is the first and the last chapter listed in scenes.
func chapterRange() (first, last string) {
	all := listScenes(false)
	return all[0].Key, all[len(all)-1].Key
}

func usage() {
	out := flag.CommandLine.Output()
	fmt.Fprintf(out, `Usage: go run ./visualizer [flags]

Shows a chapter's real lock at work: workers with their own ZooKeeper
sessions, the queue as ZooKeeper has it, who watches whom, whom a release
wakes. Keys: space pause, +/- speed, a/x add/remove a worker, ↑↓ select,
k kill, e expire a session, a chapter's number switches to it (10, 12:
two digits), q quit.

With -replay FILE it plays a failing test's recording instead (no
ZooKeeper): ←→ one event back or forth, space play/pause, home/end,
b the event where the property broke, q quit.

Flags:
`)
	flag.PrintDefaults()
}

// language is the view's language: the -lang flag, else the workshop
// runner's choice ($LOCKSTEP_LANG), else zh when the locale is Chinese
// (LC_ALL, else LANG), else en.
func language(flagValue string) string {
	for _, v := range []string{flagValue, os.Getenv("LOCKSTEP_LANG")} {
		if v != "" {
			return map[bool]string{true: "zh", false: "en"}[strings.HasPrefix(v, "zh")]
		}
	}
	locale := os.Getenv("LC_ALL")
	if locale == "" {
		locale = os.Getenv("LANG")
	}
	return map[bool]string{true: "zh", false: "en"}[strings.HasPrefix(locale, "zh")]
}
