// Command workshop is the lockstep workshop: the chapters' exercises, their
// state, a check that re-runs on save, hints in stages, reset, and the
// visualizer and the replay of a failing run, in one terminal program.
//
//	go run ./workshop                 the runner (make workshop)
//	go run ./workshop -check 04       the non-interactive check (scripts/exercise 04)
//	go run ./workshop -hint 04        the next hint for 04's last failure (scripts/exercise 04 --hint)
//	go run ./workshop -hint 04 -stage 1  its first hint again (scripts/exercise 04 --hint 1)
//	go run ./workshop -mistakes-table the facilitator's table, from the hint data
//	go run ./workshop -mistakes-table -lang zh   the same in Chinese (docs/workshop.zh-CN.md)
//	go run ./workshop -class 'zk://…' the runner in a class (LOCKSTEP_CLASS): its checks on the class's ZooKeeper
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/lockstep-zk/lockstep/workshop/course"
	"github.com/lockstep-zk/lockstep/workshop/hint"
	"github.com/lockstep-zk/lockstep/workshop/runner"
)

func main() {
	checkCh := flag.String("check", "", "run chapter `NN`'s check without the runner: the lesson's tests, then the full suite")
	from := flag.String("from", "", "with -check: the exercise files of `DIR` instead of yours")
	solution := flag.Bool("solution", false, "with -check: the reference instead of your exercise")
	hintCh := flag.String("hint", "", "print the next hint for chapter `NN`'s last failure")
	stage := flag.Int("stage", 0, "with -hint: hint `N` (1 starts again from the first) instead of the next one")
	lang := flag.String("lang", "", "`en` or zh (default: the one chosen with l in the runner, else from LANG)")
	table := flag.Bool("mistakes-table", false, "print the facilitator's table of mistakes (docs/workshop.md; with -lang zh, docs/workshop.zh-CN.md) from the hint data")
	classFlag := flag.String("class", "", "join the class of the join `LINE` the host's screen shows (default: $"+ClassEnv+")")
	nameFlag := flag.String("name", "", "your `NAME` in the class (default: $"+NameEnv+", else the one kept, else asked)")
	flag.Usage = func() {
		// In the learner's language, chosen as everywhere else (the
		// flags are not parsed yet: -lang counts only when it comes first).
		lang := ""
		if len(os.Args) > 2 && (os.Args[1] == "-lang" || os.Args[1] == "--lang") {
			lang = os.Args[2]
		}
		saved := ""
		if root, err := moduleRoot(); err == nil {
			if st, err := course.LoadState(root); err == nil {
				saved = st.Lang
			}
		}
		fmt.Fprint(flag.CommandLine.Output(), runner.Words(language(lang, saved)).Usage)
	}
	flag.Parse()
	root, err := moduleRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "workshop:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	saved := ""
	if st, err := course.LoadState(root); err == nil {
		saved = st.Lang
	}
	// In a class, the check and the runner join before anything runs: a
	// join that fails is one line, and nothing starts half-joined.
	var c *class
	if line := classLine(*classFlag); line != "" && *hintCh == "" && !*table {
		var err error
		if c, err = joinClass(ctx, root, line, className(*nameFlag), runner.Words(language(*lang, saved)), os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "workshop:", err)
			os.Exit(2)
		}
	}
	switch {
	case *table:
		// Only -lang picks the table's language, never LANG or the
		// runner's choice: each page has its own table.
		fmt.Print(hint.MustLoad().MarkdownIn(*lang))
	case *checkCh != "":
		status := check(ctx, os.Stdout, root, *checkCh, *from, *solution, flag.Args(), language(*lang, saved), c)
		if c != nil {
			c.Close()
		}
		os.Exit(status)
	case *hintCh != "":
		os.Exit(nextHint(os.Stdout, root, *hintCh, *stage, language(*lang, saved)))
	default:
		os.Exit(runTUI(ctx, root, *lang, c))
	}
}

// moduleRoot is the directory of go.mod, from here upwards.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		if d == filepath.Dir(d) {
			return "", fmt.Errorf("no go.mod above %s: run the workshop from your clone of lockstep", dir)
		}
	}
}
