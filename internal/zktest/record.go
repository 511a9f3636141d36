package zktest

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/lockstep-zk/lockstep/event"
)

// RecordDirEnv names the directory where a failing test leaves the events
// its locks emitted, one file per test, for the visualizer to replay:
//
//	LOCKSTEP_RECORD_DIR=/tmp/rec go test ./04-sequential-lock/seqlock
//	go run ./visualizer -replay /tmp/rec/TestQueue_one_release_wakes_exactly_one_waiter.events.jsonl
const RecordDirEnv = "LOCKSTEP_RECORD_DIR"

var recorders = struct {
	sync.Mutex
	byTest map[testing.TB]*event.Recorder
}{byTest: map[testing.TB]*event.Recorder{}}

// Recorder returns the test's recorder: every observer Observe hands out
// for tb records into it, and when tb fails it is written to
// $LOCKSTEP_RECORD_DIR/<name>.events.jsonl. Without LOCKSTEP_RECORD_DIR it
// is nil, which records nothing (its methods take a nil receiver), so
// tests pay nothing for it.
//
// The test that detects a broken property marks the event where it broke
// (rec.Broke(why), or rec.BrokeWhere(event.SecondHolder, why)), so the
// replay stops there.
func Recorder(tb testing.TB) *event.Recorder {
	tb.Helper()
	dir := os.Getenv(RecordDirEnv)
	if dir == "" {
		return nil
	}
	recorders.Lock()
	defer recorders.Unlock()
	if r, ok := recorders.byTest[tb]; ok {
		return r
	}
	r := &event.Recorder{}
	recorders.byTest[tb] = r
	tb.Cleanup(func() {
		recorders.Lock()
		delete(recorders.byTest, tb)
		recorders.Unlock()
		if !tb.Failed() {
			return
		}
		file, err := writeRecording(dir, tb.Name(), r)
		if err != nil {
			tb.Logf("zktest: recording not saved: %v", err)
			return
		}
		tb.Logf("zktest: what the locks did is in %s; replay it with: go run ./visualizer -replay %s", file, file)
	})
	return r
}

// Observe returns the observer a test gives one of its locks: it stamps
// owner on each event, records it into the test's Recorder (if recording
// is on) and passes it to each of also (a Tally's Observe, say).
func Observe(tb testing.TB, owner string, also ...event.Observer) event.Observer {
	tb.Helper()
	if rec := Recorder(tb); rec != nil {
		also = append([]event.Observer{rec.Observe}, also...)
	}
	return event.Tee(also...).WithOwner(owner)
}

// ObserveNext is Observe for a test's next lock built by a helper: it
// names the locks prefix-1, prefix-2, … in the order asked, so that each
// has its own name in the recording.
func ObserveNext(tb testing.TB, prefix string, also ...event.Observer) event.Observer {
	tb.Helper()
	named.Lock()
	key := fmt.Sprintf("%p %s", tb, prefix)
	if named.next[key] == 0 {
		tb.Cleanup(func() { named.Lock(); delete(named.next, key); named.Unlock() })
	}
	named.next[key]++
	n := named.next[key]
	named.Unlock()
	return Observe(tb, fmt.Sprintf("%s-%d", prefix, n), also...)
}

var named = struct {
	sync.Mutex
	next map[string]int // "test prefix" → locks named so far
}{next: map[string]int{}}

// RecordingFile is the file a failing test's recording goes to in dir.
func RecordingFile(dir, test string) string {
	return filepath.Join(dir, strings.ReplaceAll(test, "/", "_")+".events.jsonl")
}

func writeRecording(dir, test string, r *event.Recorder) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	file := RecordingFile(dir, test)
	f, err := os.Create(file)
	if err != nil {
		return "", err
	}
	err = r.Recording(test, chapterOf(os.Getwd)).Write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(file)
		return "", fmt.Errorf("write %s: %w", file, err)
	}
	return file, nil
}

var chapterDir = regexp.MustCompile(`^(\d\d)-`)

// chapterOf is the chapter whose package the test runs in ("04" for
// 04-sequential-lock/seqlock: go test runs a package's tests in its
// directory), "" outside a chapter.
func chapterOf(getwd func() (string, error)) string {
	wd, err := getwd()
	if err != nil {
		return ""
	}
	for d := wd; d != filepath.Dir(d); d = filepath.Dir(d) {
		if m := chapterDir.FindStringSubmatch(filepath.Base(d)); m != nil {
			return m[1]
		}
	}
	return ""
}
