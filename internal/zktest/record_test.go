package zktest

import (
	"errors"
	"os"
	"slices"
	"testing"

	"github.com/lockstep-zk/lockstep/event"
)

func TestAFailingTestsRecordingIsAFileTheReplayReads(t *testing.T) {
	dir := t.TempDir()
	var r event.Recorder
	obs := r.Observer("waiter-1")
	obs.Emit(event.Event{Kind: event.Request, Op: "create", Node: "/l/lock-"})
	obs.Emit(event.Event{Kind: event.Acquired, Node: "/l/lock-0000000001", Token: 3})
	r.Broke("two holders at once")
	file, err := writeRecording(dir, "TestX/a_case", &r)
	if err != nil {
		t.Fatal(err)
	}
	if file != dir+"/TestX_a_case.events.jsonl" {
		t.Errorf("file = %s: want the test's name with / replaced by _", file)
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rec, err := event.ReadRecording(f)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Header.Test != "TestX/a_case" || rec.Header.BrokeAt != 1 || rec.Header.Why != "two holders at once" {
		t.Errorf("header = %+v", rec.Header)
	}
	if len(rec.Events) != 2 || rec.Events[1].Owner != "waiter-1" || rec.Events[1].Kind != event.Acquired || rec.Events[1].Time.IsZero() {
		t.Errorf("events = %+v: want both, with owner, kind and time", rec.Events)
	}
}

func TestTheChapterIsReadOffTheTestsDirectory(t *testing.T) {
	for wd, want := range map[string]string{
		"/src/lockstep/04-sequential-lock/seqlock": "04",
		"/src/lockstep/03-watch-lock":              "03",
		"/src/lockstep/internal/locktest":          "",
	} {
		if got := chapterOf(func() (string, error) { return wd, nil }); got != want {
			t.Errorf("chapterOf(%s) = %q, want %q", wd, got, want)
		}
	}
	if got := chapterOf(func() (string, error) { return "", errors.New("gone") }); got != "" {
		t.Errorf("chapterOf without a directory = %q", got)
	}
}

func TestWithoutARecordDirNothingIsRecorded(t *testing.T) {
	t.Setenv(RecordDirEnv, "")
	if Recorder(t) != nil {
		t.Error("Recorder without LOCKSTEP_RECORD_DIR is not nil")
	}
	var tally event.Tally
	obs := Observe(t, "w", tally.Observe)
	obs.Emit(event.Event{Kind: event.Info})
	if tally.Count(event.Info) != 1 || tally.Owners(event.Info) != 1 {
		t.Error("Observe without recording does not pass events on unchanged")
	}
}

func TestObserveNextNamesATestsLocksInTurn(t *testing.T) {
	var got []string
	keep := func(e event.Event) { got = append(got, e.Owner) }
	for range 2 {
		ObserveNext(t, "client", keep).Emit(event.Event{Kind: event.Request})
	}
	ObserveNext(t, "holder", keep).Emit(event.Event{Kind: event.Request})
	if want := []string{"client-1", "client-2", "holder-1"}; !slices.Equal(got, want) {
		t.Errorf("owners %v, want %v", got, want)
	}
}
