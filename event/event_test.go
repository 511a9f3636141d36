package event

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/go-zookeeper/zk"
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

func TestARecordingReadsBackAsWritten(t *testing.T) {
	var r Recorder
	o := r.Observer("w1")
	o.Emit(Event{Kind: Acquired, Node: "/l/n1"})
	o.Emit(Event{Kind: Notified, Node: "/l/n1", Detail: "EventNodeDeleted"})
	r.Broke("why")
	r.Broke("a later mark does not count")
	var b strings.Builder
	if err := r.Recording("TestX", "04").Write(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"Kind":"acquired"`) {
		t.Errorf("kinds are not written by name:\n%s", b.String())
	}
	got, err := ReadRecording(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if got.Header != (Header{Test: "TestX", Chapter: "04", BrokeAt: 1, Why: "why"}) || len(got.Events) != 2 || got.Events[1].Detail != "EventNodeDeleted" {
		t.Errorf("read back %+v", got)
	}
	for _, bad := range []string{"", "not json\n", `{"test":"T","broke_at":3}` + "\n", `{"test":"T"}` + "\n{\"Kind\":\"nonsense\"}\n"} {
		if _, err := ReadRecording(strings.NewReader(bad)); !errors.Is(err, ErrBadRecording) {
			t.Errorf("ReadRecording(%q) = %v, want ErrBadRecording", bad, err)
		}
	}
	var nilRec *Recorder
	nilRec.Observe(Event{})
	nilRec.Broke("x")
	if nilRec.Observer("w") != nil {
		t.Error("a nil Recorder hands out an observer")
	}
}

func TestCheckersPointAtTheEventThatBrokeTheProperty(t *testing.T) {
	acq := func(o, n string) Event { return Event{Owner: o, Kind: Acquired, Node: n} }
	rel := func(o, n string) Event { return Event{Owner: o, Kind: Released, Node: n} }
	del := func(o, n string) Event { return Event{Owner: o, Kind: Request, Op: "delete", Node: n} }
	note := func(o, n string) Event { return Event{Owner: o, Kind: Notified, Node: n} }
	handOff := []Event{acq("a", "1"), del("a", "1"), note("b", "1"), rel("a", "1"), acq("b", "2"), rel("b", "2"), acq("c", "3")}
	if i := SecondHolder(handOff); i != -1 {
		t.Errorf("SecondHolder(hand-off) = %d, want -1", i)
	}
	if i := Herd(handOff, 1); i != -1 {
		t.Errorf("Herd(hand-off) = %d, want -1", i)
	}
	late := []Event{acq("a", "1"), del("a", "1"), note("b", "1"), acq("b", "2"), rel("a", "1")}
	if i := SecondHolder(late); i != -1 {
		t.Errorf("SecondHolder(a Released recorded after the next Acquired) = %d, want -1", i)
	}
	overlap := []Event{acq("a", "1"), acq("b", "2"), rel("a", "1")}
	if i := SecondHolder(overlap); i != 1 {
		t.Errorf("SecondHolder(overlap) = %d, want 1", i)
	}
	herd := []Event{acq("a", "1"), del("a", "1"), note("b", "1"), note("c", "1"), rel("a", "1"), note("d", "1"), acq("b", "2"), del("b", "2"), note("c", "2")}
	if i := Herd(herd, 1); i != 5 {
		t.Errorf("Herd = %d, want 5 (the last of the three woken by the first release)", i)
	}
}

func TestANotificationCarriesItsZooKeeperEventType(t *testing.T) {
	var got []Event
	o := Observer(func(e Event) { got = append(got, e) })
	o.Emit(Event{Kind: Notified, Node: "/l/n", Fired: zk.EventNodeDataChanged})
	o.Emit(Event{Kind: Notified, Node: "/l/n", Detail: zk.EventNodeDeleted.String()}) // as the lessons write it
	o.Emit(Event{Kind: Info, Detail: "EventNodeDeleted"})                             // not a notification: left as it is
	if got[0].Fired != zk.EventNodeDataChanged || got[1].Fired != zk.EventNodeDeleted || got[2].Fired != 0 {
		t.Errorf("Fired = %v, %v, %v; want EventNodeDataChanged, EventNodeDeleted (from Detail), none", got[0].Fired, got[1].Fired, got[2].Fired)
	}
	if s := got[0].String(); s != "lock notified: EventNodeDataChanged n" {
		t.Errorf("a notification with only Fired reads %q", s)
	}
}

func TestARecordingOfBeforeFiredReadsWithTypedNotifications(t *testing.T) {
	old := `{"test":"TestX","chapter":"04","broke_at":-1,"why":""}
{"Time":"2026-01-01T00:00:00Z","Owner":"w","Lock":"/l","Kind":"request","Op":"delete","Node":"/l/n1","Detail":"","Token":0}
{"Time":"2026-01-01T00:00:00Z","Owner":"v","Lock":"/l","Kind":"notified","Op":"","Node":"/l/n1","Detail":"EventNodeDeleted","Token":0}
`
	r, err := ReadRecording(strings.NewReader(old))
	if err != nil {
		t.Fatal(err)
	}
	if r.Events[0].Op != OpDelete || r.Events[1].Fired != zk.EventNodeDeleted {
		t.Errorf("read %+v: want a delete, then a notification that fired with EventNodeDeleted", r.Events)
	}
	var b strings.Builder
	if err := r.Write(&b); err != nil {
		t.Fatal(err)
	}
	back, err := ReadRecording(strings.NewReader(b.String()))
	if err != nil || back.Events[1].Fired != zk.EventNodeDeleted || !strings.Contains(b.String(), `"Op":"delete"`) {
		t.Errorf("written again:\n%s\nread back %+v, %v", b.String(), back.Events, err)
	}
}
