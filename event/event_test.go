package event

import (
	"sync"
	"testing"
)

func TestEventStringReadsLikeTheArticles(t *testing.T) {
	cases := []struct {
		e    Event
		want string
	}{
		{Event{Owner: "worker-3", Kind: Request, Op: "create", Node: "/locks/x/lock-0000000007"}, "worker-3 create lock-0000000007"},
		{Event{Owner: "worker-4", Kind: Notified, Detail: "NodeDeleted", Node: "/locks/x/lock-0000000006"}, "worker-4 notified: NodeDeleted lock-0000000006"},
		{Event{Owner: "w", Kind: Acquired, Node: "/l/lock-0000000001", Token: 1}, "w acquired lock-0000000001 (token 1)"},
		{Event{Kind: Lost, Node: "/l/n", Detail: "session expired"}, "lock LOST n: session expired"},
		{Event{Owner: "w", Kind: WatchSet, Op: "get", Node: "/l/p"}, "w watches p (get)"},
	}
	for _, c := range cases {
		if got := c.e.String(); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}

func TestKindStringNamesEveryKind(t *testing.T) {
	for k := Request; k <= Info; k++ {
		if s := k.String(); s == "" || s[0] == 'K' {
			t.Errorf("Kind %d has no name: %q", int(k), s)
		}
	}
	if Kind(99).String() != "Kind(99)" {
		t.Error("unknown kinds should print their number")
	}
}

func TestTallyCountsConcurrently(t *testing.T) {
	var tally Tally
	obs := Tee(tally.Observe, nil)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o := Observer(obs).WithOwner(string(rune('a' + i)))
			for range 100 {
				o.Emit(Event{Kind: Request, Op: "create"})
				o.Emit(Event{Kind: Notified})
			}
		}()
	}
	wg.Wait()
	if got := tally.Requests("create"); got != 800 {
		t.Errorf("creates = %d, want 800", got)
	}
	if got := tally.Count(Notified); got != 800 {
		t.Errorf("notified = %d, want 800", got)
	}
	if got := tally.Owners(Notified); got != 8 {
		t.Errorf("owners = %d, want 8", got)
	}
	tally.Reset()
	if tally.Requests("") != 0 {
		t.Error("Reset kept counts")
	}
}

func TestNilObserverIsAllowed(t *testing.T) {
	var o Observer
	o.Emit(Event{Kind: Info}) // must not panic
	if o.WithOwner("x") != nil {
		t.Error("WithOwner on nil should stay nil")
	}
}
