// Usage:
//
//	go run ./internal/cmd/mutate -chapter 07         every mutant of 07's lesson file, report in workshop/mutants/07.md
//	go run ./internal/cmd/mutate -chapter 07 -list   the mutants only, nothing run
//	go run ./internal/cmd/mutate -chapter 07 -only 'L12[0-9] '  the mutants whose ID matches
//
// Each mutant runs the chapter's check as the workshop runs it for a
// learner (workshop/course: the lesson tier, then, if it passes, the full
// suite), with the mutated reference in place of the exercise file. Every
// mutant must be killed, or listed in workshop/mutants/equivalent.json with
// the reason it cannot be told from the reference. One ZooKeeper serves all
// the runs (ZK_SERVERS, or one started here). See docs/workshop.md, "A new
// exercise: its mutants".
package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/lockstep-zk/lockstep/internal/zkserver"
	"github.com/lockstep-zk/lockstep/workshop/course"
	"github.com/lockstep-zk/lockstep/workshop/hint"
)

// Equivalent is a mutant that no test can kill, with the reason.
type Equivalent struct {
	Chapter string `json:"chapter"`
	File    string `json:"file"`
	ID      string `json:"id"`
	Why     string `json:"why"`
}

// limits bound the lesson tier and the full suite of one mutant.
var limits = [2]time.Duration{time.Minute, 4 * time.Minute}

// verdict is what the chapter's check said of one mutant.
type verdict struct {
	m     Mutant
	kind  string // killed, survived, equivalent, no build
	by    string // the test that killed it, the tier, and the mistake named
	equiv string
}

func main() {
	ch := flag.String("chapter", "", "the chapter `NN` whose lesson file is mutated")
	list := flag.Bool("list", false, "list the mutants and run nothing")
	only := flag.String("only", "", "run only the mutants whose ID matches `regexp`")
	flag.DurationVar(&limits[0], "lesson-timeout", time.Minute, "a mutant whose lesson tier runs longer hangs: killed (the reference's takes seconds)")
	flag.DurationVar(&limits[1], "full-timeout", 4*time.Minute, "likewise for the full suite (the reference's takes about a minute)")
	flag.Parse()
	if err := run(*ch, *list, *only); err != nil {
		fmt.Fprintln(os.Stderr, "mutate:", err)
		os.Exit(1)
	}
}

func run(ch string, list bool, only string) error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	all, err := course.Discover(root)
	if err != nil {
		return err
	}
	ex, err := course.Find(all, ch)
	if err != nil {
		return err
	}
	var match *regexp.Regexp
	if only != "" {
		if match, err = regexp.Compile(only); err != nil {
			return fmt.Errorf("-only: %w", err)
		}
	}
	equivs, err := loadEquivalents(root)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if !list && os.Getenv("ZK_SERVERS") == "" {
		srv, err := zkserver.Start(ctx)
		defer srv.Close()
		if err != nil {
			return err
		}
		os.Setenv("ZK_SERVERS", strings.Join(srv.Servers, ","))
	}
	table := hint.MustLoad()
	for _, f := range ex.Files {
		ref := course.Reference(f)
		src, err := os.ReadFile(filepath.Join(root, ref))
		if err != nil {
			return err
		}
		mutants, err := Generate(ref, src)
		if err != nil {
			return err
		}
		start := time.Now()
		var vs []verdict
		for _, m := range mutants {
			if match != nil && !match.MatchString(m.ID) {
				continue
			}
			if list {
				fmt.Println(m.ID)
				continue
			}
			v := check(ctx, root, all, ex, table, ref, m)
			if e, ok := equivs[key(ex.Chapter, ref, m.ID)]; ok && v.kind == "survived" {
				v.kind, v.equiv = "equivalent", e.Why
			}
			fmt.Printf("%-10s %s  %s\n", v.kind, m.ID, v.by)
			vs = append(vs, v)
			if ctx.Err() != nil {
				return ctx.Err()
			}
		}
		if list || match != nil {
			continue // a partial run writes no report
		}
		if n := count(vs, "error"); n > 0 {
			return fmt.Errorf("%s: %d mutants could not be judged (see above): fix the tree and run again", ref, n)
		}
		if err := writeReport(root, ex.Chapter, ref, src, vs, time.Since(start)); err != nil {
			return err
		}
		if n := count(vs, "survived"); n > 0 {
			return fmt.Errorf("%s: %d mutants survive: make a test kill each, or list it in workshop/mutants/equivalent.json with the reason", ref, n)
		}
	}
	return nil
}

// check runs the chapter's check on one mutant: the lesson tier, then, if
// it passes, the full suite, each bounded (a hang counts as killed, and says so).
func check(ctx context.Context, root string, all []course.Exercise, ex course.Exercise, table *hint.Table, ref string, m Mutant) verdict {
	dir, err := os.MkdirTemp("", "lockstep-mutant-")
	if err != nil {
		return verdict{m: m, kind: "error", by: err.Error()}
	}
	defer os.RemoveAll(dir)
	for _, f := range ex.Files { // the other lesson files of the chapter stay the reference
		r := course.Reference(f)
		b, err := os.ReadFile(filepath.Join(root, r))
		if r == ref {
			b = m.Src
		}
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, filepath.Base(r)), b, 0o644)
		}
		if err != nil {
			return verdict{m: m, kind: "error", by: err.Error()}
		}
	}
	for i, tier := range []course.Tier{course.Lesson, course.Full} {
		limit := limits[i]
		tctx, cancel := context.WithTimeout(ctx, limit)
		r := course.Run(tctx, root, all, ex, tier, table, course.Options{From: dir})
		timedOut := errors.Is(tctx.Err(), context.DeadlineExceeded)
		cancel()
		switch {
		case timedOut:
			return verdict{m: m, kind: "killed", by: fmt.Sprintf("%s: still running after %v (a hang)", tier, limit)}
		case r.Kind == course.NoBuild && !strings.Contains(r.First, "_workshop.go"):
			// Something else does not build (a half-merged file?): no verdict.
			return verdict{m: m, kind: "error", by: firstLine(r.First)}
		case r.Kind == course.NoBuild:
			return verdict{m: m, kind: "no build", by: firstLine(r.First)}
		case r.Kind == course.Pass:
			continue
		}
		by := fmt.Sprintf("%s: %s", tier, strings.Join(r.Failed, ", "))
		if len(r.Failed) == 0 {
			by = fmt.Sprintf("%s: %s", tier, firstLine(r.First))
		}
		if r.Mistake != nil {
			by += " — named: " + r.Mistake.ID
		}
		return verdict{m: m, kind: "killed", by: by}
	}
	return verdict{m: m, kind: "survived", by: "every test passes"}
}

func writeReport(root, ch, ref string, src []byte, vs []verdict, took time.Duration) error {
	sum := sha256.Sum256(src)
	var b strings.Builder
	fmt.Fprintf(&b, "# Mutants of %s\n\n", ref)
	fmt.Fprintf(&b, "<!-- lesson-file-sha256: %s -->\n", hex.EncodeToString(sum[:]))
	fmt.Fprintf(&b, "Generated by `go run ./internal/cmd/mutate -chapter %s` (%s, %v). Each mutant is the lesson file with one change; the\n", ch, time.Now().UTC().Format("2006-01-02"), took.Round(time.Second))
	fmt.Fprintf(&b, "chapter's check ran on it as on a learner's file: the lesson tier, then the full suite.\n\n")
	fmt.Fprintf(&b, "mutants: %d; killed: %d; equivalent: %d; do not compile: %d; surviving: %d\n\n",
		len(vs), count(vs, "killed"), count(vs, "equivalent"), count(vs, "no build"), count(vs, "survived"))
	b.WriteString("| mutant | verdict | by |\n|---|---|---|\n")
	for _, v := range vs {
		by := v.by
		if v.kind == "equivalent" {
			by = v.equiv
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", cell(v.m.ID), v.kind, cell(by))
	}
	if err := os.MkdirAll(filepath.Join(root, "workshop", "mutants"), 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(root, "workshop", "mutants", ch+".md"), []byte(b.String()), 0o644)
}

func cell(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ") }

func count(vs []verdict, kind string) int {
	n := 0
	for _, v := range vs {
		if v.kind == kind {
			n++
		}
	}
	return n
}

func firstLine(s string) string { l, _, _ := strings.Cut(strings.TrimSpace(s), "\n"); return l }

func key(ch, file, id string) string { return ch + "|" + file + "|" + id }

func loadEquivalents(root string) (map[string]Equivalent, error) {
	b, err := os.ReadFile(filepath.Join(root, "workshop", "mutants", "equivalent.json"))
	if errors.Is(err, os.ErrNotExist) {
		return map[string]Equivalent{}, nil
	}
	if err != nil {
		return nil, err
	}
	var es []Equivalent
	if err := json.Unmarshal(b, &es); err != nil {
		return nil, fmt.Errorf("workshop/mutants/equivalent.json: %w", err)
	}
	m := map[string]Equivalent{}
	for _, e := range es {
		m[key(e.Chapter, e.File, e.ID)] = e
	}
	return m, nil
}

// moduleRoot is the directory of go.mod, from the working directory up.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory: run it from the repository")
		}
		dir = parent
	}
}
