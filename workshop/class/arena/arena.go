// Package arena is the class's shared lock: one lock directory where every
// learner's own lock queues, and a counter that tells on any lock that lets
// two in at once.
//
// A Worker takes the class lock with a learner's lock, reads the counter,
// and writes it back plus one in ONE multi with two conditions: the
// counter's version is still the one it read, and the worker's own lock
// node still exists (08's SetIfHeld). The counter's data names its last
// writer. So a write the server refuses says, without comparing anyone's
// clock, what happened:
//
//   - the version moved (TwoInside): someone wrote between our read and our
//     write, while our node still existed. Both believed they held the
//     lock at that moment. The counter names the other; of the two nodes,
//     the one further back in the queue entered out of turn.
//   - our node was gone (NodeGone): our session expired (a closed lid, a
//     SIGSTOP), or someone deleted our node (the host's take-out). We
//     believed we held; the queue had moved on; the condition caught it.
//
// Every refused write is recorded under caught/, naming both learners.
//
// The arena's tree (Create), and who may do what in it:
//
//	<dir>             host: all · players: read
//	├── lock          host: all · players: create, delete, read   (everyone's lock nodes)
//	├── counter       host: all · players: read, write            ({"n":41,"writer":"ada","node":…})
//	├── caught        host: all · players: create, read           (one node per refused write)
//	└── paused        exists while the host pauses the arena
//
// ZooKeeper checks a DELETE against the parent's ACL, never the node's own:
// players must be allowed to delete in lock (to let go of their own node),
// so any player may delete anyone's node there. The host's TakeOut does
// exactly that; so can any learner. The conditional write is what keeps
// that from corrupting the counter, not the ACL.
package arena

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/internal/zkcall"
	"github.com/lockstep-zk/lockstep/internal/zkpath"
)

// The arena's nodes under its directory.
const (
	lockNode    = "lock"
	counterNode = "counter"
	caughtNode  = "caught"
	pausedNode  = "paused"
)

// ErrNoArena: the directory holds no arena (Create was not called).
var ErrNoArena = errors.New("arena: no arena here")

// Arena is one arena's directory, seen through one ZooKeeper session: the
// host's (Create, Pause, Resume, TakeOut) or a worker's counter client.
type Arena struct {
	conn zkcall.Conn
	dir  string
}

// Open returns the arena in dir on conn. Nothing is sent until a call.
func Open(conn *zk.Conn, dir string) (*Arena, error) {
	if conn == nil {
		return nil, seqlock.ErrNilConn
	}
	if err := zkpath.Validate(dir); err != nil {
		return nil, fmt.Errorf("arena: directory: %w", err)
	}
	return &Arena{conn: zkcall.Conn{Conn: conn, Session: conn.SessionID()}, dir: dir}, nil
}

// Dir is the arena's directory.
func (a *Arena) Dir() string { return a.dir }

// LockDir is the class lock's directory: where every learner's lock queues.
func (a *Arena) LockDir() string { return path.Join(a.dir, lockNode) }

func (a *Arena) counterPath() string { return path.Join(a.dir, counterNode) }
func (a *Arena) caughtPath() string  { return path.Join(a.dir, caughtNode) }
func (a *Arena) pausedPath() string  { return path.Join(a.dir, pausedNode) }

// LockOptions are what a learner's seqlock.Mutex needs in the arena: its
// node holds the learner's name (the host's take-out and the projector read
// it), and anyone may read it — a waiter watches its predecessor with a
// read (GetW), whoever's it is. The node needs no other permission, not
// even for its owner: deleting it is checked against lock's ACL.
func LockOptions(name string) []seqlock.Option {
	return []seqlock.Option{seqlock.WithData([]byte(name)), seqlock.WithACL(NodeACL())}
}

// NodeACL is the ACL of a lock node, and of a caught record: readable by
// anyone, writable by no one.
func NodeACL() []zk.ACL { return zk.WorldACL(zk.PermRead) }

// Create makes the arena's nodes, or leaves those that exist as they are
// (a class served again keeps its count and what was caught). host and
// players name who (their Scheme and ID: a digest identity, or world
// anyone); the permissions each gets on each node are the arena's, as the
// package comment lists them, whatever Perms the entries carry.
func (a *Arena) Create(ctx context.Context, host, players []zk.ACL) error {
	if len(host) == 0 {
		return errors.New("arena: create: no host identity")
	}
	acl := func(p int32) []zk.ACL {
		var out []zk.ACL
		for _, h := range host {
			out = append(out, zk.ACL{Perms: zk.PermAll, Scheme: h.Scheme, ID: h.ID})
		}
		for _, pl := range players {
			out = append(out, zk.ACL{Perms: p, Scheme: pl.Scheme, ID: pl.ID})
		}
		return out
	}
	zero, _ := json.Marshal(Counter{})
	nodes := []struct {
		path string
		data []byte
		acl  []zk.ACL
	}{
		{a.dir, nil, acl(zk.PermRead)},
		{a.LockDir(), nil, acl(zk.PermCreate | zk.PermDelete | zk.PermRead)},
		{a.counterPath(), zero, acl(zk.PermRead | zk.PermWrite)},
		{a.caughtPath(), nil, acl(zk.PermCreate | zk.PermRead)},
	}
	for _, n := range nodes {
		_, err := zkcall.Do(ctx, func() (string, error) { return a.conn.Conn.Create(n.path, n.data, 0, n.acl) })
		if err != nil && !errors.Is(err, zk.ErrNodeExists) {
			return fmt.Errorf("arena: create %s: %w", n.path, err)
		}
	}
	return nil
}

// Counter is the counter node's data: the count and who wrote it last.
type Counter struct {
	N      int64  `json:"n"`
	Writer string `json:"writer,omitempty"` // the learner's name
	Node   string `json:"node,omitempty"`   // the writer's lock node when it wrote
}

// Counter reads the counter and its version.
func (a *Arena) Counter(ctx context.Context) (Counter, int32, error) {
	data, stat, err := a.conn.Get(ctx, a.counterPath())
	if errors.Is(err, zk.ErrNoNode) {
		return Counter{}, 0, fmt.Errorf("%w: %s has no %s", ErrNoArena, a.dir, counterNode)
	}
	if err != nil {
		return Counter{}, 0, fmt.Errorf("arena: read the counter: %w", err)
	}
	var c Counter
	if err := json.Unmarshal(data, &c); err != nil {
		return Counter{}, 0, fmt.Errorf("arena: counter %q: %w", data, err)
	}
	return c, stat.Version, nil
}

// Pause stops the arena: workers finish the round they are in and start
// no other until Resume. It is a node the workers watch: paused.
func (a *Arena) Pause(ctx context.Context) error {
	_, err := zkcall.Do(ctx, func() (string, error) {
		return a.conn.Conn.Create(a.pausedPath(), nil, 0, zk.WorldACL(zk.PermRead))
	})
	if err != nil && !errors.Is(err, zk.ErrNodeExists) {
		return fmt.Errorf("arena: pause: %w", err)
	}
	return nil
}

// Resume lets the workers go on: every one waiting wakes up.
func (a *Arena) Resume(ctx context.Context) error {
	if err := a.conn.Delete(ctx, a.pausedPath(), -1); err != nil && !errors.Is(err, zk.ErrNoNode) {
		return fmt.Errorf("arena: resume: %w", err)
	}
	return nil
}

// Paused says whether the arena is paused.
func (a *Arena) Paused(ctx context.Context) (bool, error) {
	ok, err := zkcall.Do(ctx, func() (bool, error) {
		ok, _, err := a.conn.Conn.Exists(a.pausedPath())
		return ok, err
	})
	if err != nil {
		return false, fmt.Errorf("arena: paused?: %w", err)
	}
	return ok, nil
}

// Entry is one node in the class lock's queue.
type Entry struct {
	Node string // full path
	Name string // the learner's name, as the node's data says it
}

// Queue is the class lock's queue, in order: [0] holds the lock (or is
// about to notice that it does).
func (a *Arena) Queue(ctx context.Context) ([]Entry, error) {
	ps, err := seqlock.Participants(ctx, a.conn.Conn, a.LockDir())
	if err != nil {
		return nil, fmt.Errorf("arena: queue: %w", err)
	}
	out := make([]Entry, len(ps))
	for i, p := range ps {
		out[i] = Entry{Node: p.Node, Name: string(p.Data)}
	}
	return out, nil
}

// TakeOut deletes every lock node of name's in the class lock, and returns
// their paths. A waiter's lock notices and queues again; a holder's does
// not (a holder watches nothing): it carries on believing it holds, the
// next in line enters, and the holder's next conditional write is refused
// (NodeGone). Any player may do this to any other: ZooKeeper checks a
// delete against the parent's ACL (lock grants players delete), never
// against the node's own.
func (a *Arena) TakeOut(ctx context.Context, name string) ([]string, error) {
	q, err := a.Queue(ctx)
	if err != nil {
		return nil, err
	}
	var gone []string
	for _, e := range q {
		if e.Name != name {
			continue
		}
		if err := a.conn.Delete(ctx, e.Node, -1); err != nil && !errors.Is(err, zk.ErrNoNode) {
			return gone, fmt.Errorf("arena: take %q out: delete %s: %w", name, e.Node, err)
		}
		gone = append(gone, e.Node)
	}
	return gone, nil
}

// Kind is what a refused write proves.
type Kind string

const (
	// TwoInside: the counter moved between the writer's read and its
	// write, while its lock node still existed. Two held the lock at once.
	TwoInside Kind = "two-inside"
	// NodeGone: the writer's lock node was gone when its write came (its
	// session expired, or it was taken out). It believed it held; the
	// queue had moved on.
	NodeGone Kind = "node-gone"
)

// Catch is one refused write, recorded under caught/: who was refused,
// and who the counter named as its last writer when the refusal came.
type Catch struct {
	Kind        Kind   `json:"kind"`
	Writer      string `json:"writer"`      // whose write was refused
	WriterNode  string `json:"writer_node"` // its lock node
	Other       string `json:"other"`       // the counter's last writer then
	OtherNode   string `json:"other_node"`
	Read        int64  `json:"read"`         // the count the writer read
	ReadVersion int32  `json:"read_version"` // and its version
	Version     int32  `json:"version"`      // the counter's version when refused
	Record      string `json:"-"`            // the caught/ node it was read from
}

// OutOfTurn names, of a TwoInside catch's two learners, the one whose lock
// node was further back in the queue: under the mutex's rule, of two nodes
// alive at once only the lower can hold, so that one's lock entered out of
// turn. It is "" for other kinds, or when the nodes carry no sequence.
func (c Catch) OutOfTurn() string {
	if c.Kind != TwoInside {
		return ""
	}
	w, okW := zkpath.SequenceOf(path.Base(c.WriterNode))
	o, okO := zkpath.SequenceOf(path.Base(c.OtherNode))
	switch {
	case !okW || !okO || w == o:
		return ""
	case w > o:
		return c.Writer
	default:
		return c.Other
	}
}

// String is the catch as the host's screen says it.
func (c Catch) String() string {
	switch c.Kind {
	case TwoInside:
		s := fmt.Sprintf("two inside: %s's write found %s's (count %d read at version %d, version %d now)", c.Writer, c.Other, c.Read, c.ReadVersion, c.Version)
		if o := c.OutOfTurn(); o != "" {
			s += "; " + o + "'s lock entered out of turn"
		}
		return s
	case NodeGone:
		last := c.Other + " wrote last"
		if c.LastWriter() == "" {
			last = "nobody wrote since its read"
		}
		return fmt.Sprintf("refused: %s wrote after its lock node was gone (taken out, or its session expired); %s", c.Writer, last)
	}
	return fmt.Sprintf("%s: %s, %s", c.Kind, c.Writer, c.Other)
}

// LastWriter is, for a NodeGone catch, who wrote the counter after the
// refused writer read it: "" when nobody did (the counter still names
// the writer itself, or nobody, or has not moved since the read).
func (c Catch) LastWriter() string {
	if c.Other == "" || c.OtherNode == c.WriterNode || c.Version == c.ReadVersion {
		return ""
	}
	return c.Other
}

// record writes c under caught/, named after the writer's lock node: a
// node holds the lock once, so a write is refused once per node, and a
// record sent again after a dropped connection finds itself already there.
func (a *Arena) record(ctx context.Context, c Catch) error {
	data, err := json.Marshal(c)
	if err != nil {
		return err
	}
	p := path.Join(a.caughtPath(), path.Base(c.WriterNode))
	for {
		_, err = zkcall.Do(ctx, func() (string, error) { return a.conn.Conn.Create(p, data, 0, NodeACL()) })
		if err == nil || errors.Is(err, zk.ErrNodeExists) {
			return nil
		}
		if !errors.Is(err, zk.ErrConnectionClosed) && !errors.Is(err, zk.ErrNoServer) {
			return fmt.Errorf("arena: record %s: %w", c.Kind, err)
		}
		if err := pause(ctx); err != nil {
			return fmt.Errorf("arena: record %s: %w", c.Kind, err)
		}
	}
}

// Caught lists every refused write recorded so far, in the order the
// server recorded them (their creation zxid).
func (a *Arena) Caught(ctx context.Context) ([]Catch, error) {
	names, _, err := a.conn.Children(ctx, a.caughtPath())
	if errors.Is(err, zk.ErrNoNode) {
		return nil, fmt.Errorf("%w: %s has no %s", ErrNoArena, a.dir, caughtNode)
	}
	if err != nil {
		return nil, fmt.Errorf("arena: list caught: %w", err)
	}
	type read struct {
		c     Catch
		czxid int64
	}
	var all []read
	for _, n := range names {
		p := path.Join(a.caughtPath(), n)
		data, stat, err := a.conn.Get(ctx, p)
		if errors.Is(err, zk.ErrNoNode) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("arena: read %s: %w", p, err)
		}
		var c Catch
		if err := json.Unmarshal(data, &c); err != nil {
			return nil, fmt.Errorf("arena: %s: %w", p, err)
		}
		c.Record = p
		all = append(all, read{c, stat.Czxid})
	}
	slices.SortFunc(all, func(x, y read) int { return cmp.Compare(x.czxid, y.czxid) })
	out := make([]Catch, len(all))
	for i, r := range all {
		out[i] = r.c
	}
	return out, nil
}

// Next returns a channel that receives once, at the next change of what
// the arena's screen shows: the queue, the counter, the pause, what was
// caught. It sets one watch on each (a live view is a watch set again
// after each notification, never a poll); read the arena, then call Next
// again.
func (a *Arena) Next(ctx context.Context) (<-chan zk.Event, error) {
	_, _, queue, err := a.conn.ChildrenW(ctx, a.LockDir())
	if err != nil {
		return nil, fmt.Errorf("arena: watch the queue: %w", err)
	}
	_, _, count, err := a.conn.GetW(ctx, a.counterPath())
	if err != nil {
		return nil, fmt.Errorf("arena: watch the counter: %w", err)
	}
	_, _, paused, err := a.conn.ExistsW(ctx, a.pausedPath())
	if err != nil {
		return nil, fmt.Errorf("arena: watch the pause: %w", err)
	}
	_, _, caught, err := a.conn.ChildrenW(ctx, a.caughtPath())
	if err != nil {
		return nil, fmt.Errorf("arena: watch caught: %w", err)
	}
	next := make(chan zk.Event, 1)
	go func() {
		var ev zk.Event
		select {
		case ev = <-queue:
		case ev = <-count:
		case ev = <-paused:
		case ev = <-caught:
		case <-ctx.Done():
			return
		}
		next <- ev
	}()
	return next, nil
}
