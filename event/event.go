// Package event is how lockstep's locks say what they do: every request
// they send to ZooKeeper, every watch they set, every notification they
// receive, and when they acquire, release or lose the lock.
//
// A lock takes an Observer through its WithObserver option. The demos print
// the events as a timeline; the visualizer animates them; the tests and the
// bench count them (see Tally).
package event

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
)

// Kind says what happened.
type Kind int

const (
	// Request: a request was sent to ZooKeeper. Op names it and Node is
	// its path.
	Request Kind = iota + 1
	// WatchSet: a watch is now registered on Node (Op: OpExists, OpGet or
	// OpChildren).
	WatchSet
	// Notified: a watch on Node fired. Fired is the ZooKeeper event type
	// (zk.EventNodeDeleted, zk.EventNodeDataChanged, …).
	Notified
	// Waiting: the lock is queued behind Node and blocks.
	Waiting
	// Acquired: the lock is held. Node is the lock node, Token its fencing token.
	Acquired
	// Released: the holder let go of the lock on purpose.
	Released
	// Lost: the lock is gone without Unlock (session expired, node deleted).
	Lost
	// Info: anything else worth a line in a timeline (Detail says it).
	Info
)

var kindNames = [...]string{Request: "request", WatchSet: "watch", Notified: "notified", Waiting: "waiting",
	Acquired: "acquired", Released: "released", Lost: "lost", Info: "info"}

func (k Kind) String() string {
	if k > 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Op is the ZooKeeper request a Request or a WatchSet event names. It is
// written as the request's name ("create"), so a recording reads without a
// table, and an untyped constant ("get") is an Op where one is expected.
type Op string

// The requests a lock reports; Ops lists them all.
const (
	OpCreate   Op = "create"
	OpDelete   Op = "delete"
	OpGet      Op = "get"
	OpExists   Op = "exists"
	OpChildren Op = "children"
	OpSet      Op = "set"
)

// Ops is every Op a lock may report, in the order above. A reader of
// events (the visualizer) knows what each one does; an Op not listed here
// is a request nobody knows how to show.
func Ops() []Op { return []Op{OpCreate, OpDelete, OpGet, OpExists, OpChildren, OpSet} }

// Event is one thing a lock did or saw.
type Event struct {
	Time   time.Time
	Owner  string // who acted: set by whoever runs the lock ("worker-3"); may be empty
	Lock   string // the lock's path
	Kind   Kind
	Op     Op     // for Request and WatchSet
	Node   string // the znode involved, as a full path
	Detail string
	Token  int64 // fencing token, for Acquired
	// Fired is the type of the ZooKeeper event that woke a Notified
	// (zk.EventNodeDeleted, …); zero for the other kinds.
	Fired zk.EventType `json:",omitempty"`
}

// eventTypes is every zk.EventType a watch can fire with.
var eventTypes = []zk.EventType{zk.EventNodeCreated, zk.EventNodeDeleted, zk.EventNodeDataChanged,
	zk.EventNodeChildrenChanged, zk.EventSession, zk.EventNotWatching}

// typed fills in Fired for a Notified that says its event type only in
// Detail, as ev.Type.String() writes it ("EventNodeDeleted"): how the
// locks wrote a notification before Fired existed, and how a recording of
// then reads. The rest of the module reads Fired, never Detail.
func (e Event) typed() Event {
	if e.Kind != Notified || e.Fired != 0 {
		return e
	}
	for _, t := range eventTypes {
		if t.String() == e.Detail {
			e.Fired = t
			break
		}
	}
	return e
}

// Observer receives events. The lock calls it synchronously, on the
// goroutine of the call the event is part of (Lock, Unlock, …), so it must
// be quick and must not call back into the lock: while it runs, that call
// waits. The one exception is a hold lost while held (Lost), which is told
// from a goroutine of its own; an Unlock of that hold then waits until the
// observer has heard of the loss. So an Observer that blocks blocks Lock
// and Unlock, Unlock of a lost hold included.
type Observer func(Event)

// Emit calls o with e, filling in the time, and a notification's Fired
// from its Detail if only Detail names the event type. A nil Observer is
// allowed, so locks can emit unconditionally.
func (o Observer) Emit(e Event) {
	if o == nil {
		return
	}
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	o(e.typed())
}

// WithOwner returns an observer that stamps Owner on every event before
// passing it to o.
func (o Observer) WithOwner(owner string) Observer {
	if o == nil {
		return nil
	}
	return func(e Event) { e.Owner = owner; o(e) }
}

// Tee returns an observer that passes every event to each non-nil observer.
func Tee(obs ...Observer) Observer {
	return func(e Event) {
		for _, o := range obs {
			if o != nil {
				o(e)
			}
		}
	}
}

// Short returns the last element of a znode path ("lock-0000000007").
func Short(path string) string {
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		return path[i+1:]
	}
	return path
}

// String renders e as one line of a timeline, in the articles' style:
//
//	worker-3 created lock-0000000007
//	worker-4 notified: NodeDeleted lock-0000000006
func (e Event) String() string {
	who := e.Owner
	if who == "" {
		who = "lock"
	}
	node := Short(e.Node)
	var what string
	switch e.Kind {
	case Request:
		what = string(e.Op) + " " + node
	case WatchSet:
		what = "watches " + node + " (" + string(e.Op) + ")"
	case Notified:
		what = "notified: " + e.notice() + " " + node
	case Waiting:
		what = "waits behind " + node
	case Acquired:
		what = "acquired " + node
		if e.Token != 0 {
			what += fmt.Sprintf(" (token %d)", e.Token)
		}
	case Released:
		what = "released " + node
	case Lost:
		what = "LOST " + node
	default:
		what = e.Kind.String() + " " + node
	}
	if e.Detail != "" && e.Kind != Notified {
		what += ": " + e.Detail
	}
	return who + " " + strings.TrimSpace(what)
}

// notice is what a notification says: its Detail, else its Fired.
func (e Event) notice() string {
	if e.Detail == "" && e.Fired != 0 {
		return e.Fired.String()
	}
	return e.Detail
}

// Tally counts events; its Observe method is an Observer. Safe for
// concurrent use. The tests and the bench read it.
type Tally struct {
	mu     sync.Mutex
	kinds  map[Kind]int
	ops    map[Op]int
	owners map[Kind]map[string]int
}

// Observe counts e.
func (t *Tally) Observe(e Event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.kinds == nil {
		t.kinds, t.ops, t.owners = map[Kind]int{}, map[Op]int{}, map[Kind]map[string]int{}
	}
	t.kinds[e.Kind]++
	if e.Kind == Request {
		t.ops[e.Op]++
	}
	if t.owners[e.Kind] == nil {
		t.owners[e.Kind] = map[string]int{}
	}
	t.owners[e.Kind][e.Owner]++
}

// Count returns how many events of kind k were seen.
func (t *Tally) Count(k Kind) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.kinds[k]
}

// Requests returns how many requests with Op op were sent ("" for all).
func (t *Tally) Requests(op Op) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	if op == "" {
		return t.kinds[Request]
	}
	return t.ops[op]
}

// Owners returns how many distinct owners had an event of kind k.
func (t *Tally) Owners(k Kind) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.owners[k])
}

// Reset forgets everything counted so far.
func (t *Tally) Reset() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.kinds, t.ops, t.owners = nil, nil, nil
}
