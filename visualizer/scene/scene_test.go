package scene

import (
	"errors"
	"testing"

	"github.com/lockstep-zk/lockstep/event"
)

func TestCheckRefusesAnIncompleteScene(t *testing.T) {
	part := func(Worker) (Part, error) { return nil, nil }
	ok := Scene{Key: "04", Name: "04-sequential-lock", NewWorker: part}
	if err := ok.Check(); err != nil {
		t.Errorf("a complete scene: %v", err)
	}
	for name, s := range map[string]Scene{
		"one-digit key":       {Key: "4", Name: "04-x", NewWorker: part},
		"name of another key": {Key: "04", Name: "05-rwlock", NewWorker: part},
		"no NewWorker":        {Key: "04", Name: "04-sequential-lock"},
	} {
		if err := s.Check(); !errors.Is(err, ErrIncomplete) {
			t.Errorf("%s: got %v, want ErrIncomplete", name, err)
		}
	}
}

func TestWordsDefaultToTheLocksWords(t *testing.T) {
	w := Words{Worker: "candidate", Holding: "leader"}.WithDefaults()
	if w.Worker != "candidate" || w.Holding != "leader" || w.Waiting != "waiting" || w.Holds != "HOLDS" || w.Woken != "woken/release" {
		t.Errorf("got %+v", w)
	}
}

func TestLineIsTheLocksOwnUnlessTheSceneSaysOtherwise(t *testing.T) {
	e := event.Event{Owner: "worker-3", Kind: event.Acquired, Node: "/x/lock-0000000007", Token: 8}
	if got := (Scene{}).Line(e); got != e.String() {
		t.Errorf("default line %q, want %q", got, e.String())
	}
	info := event.Event{Owner: "worker-3", Kind: event.Info, Detail: "locks again"}
	if got := (Scene{}).Line(info); got != "worker-3 locks again" {
		t.Errorf("info without a node: %q", got)
	}
	s := Scene{Describe: func(e event.Event) string { return e.Owner + " leads" }}
	if got := s.Line(e); got != "worker-3 leads" {
		t.Errorf("described line %q", got)
	}
	if (Scene{}).LeafOrDefault() != "lock" || (Scene{Leaf: "config"}).LeafOrDefault() != "config" {
		t.Error("LeafOrDefault")
	}
}
