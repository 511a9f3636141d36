package seqlock

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/randhex"
	"github.com/lockstep-zk/lockstep/internal/zkcall"
	"github.com/lockstep-zk/lockstep/internal/zkpath"
)

// This file is the queue core every later chapter is built on, in the
// spirit of Curator's LockInternals: it creates our node, finds it again if
// the reply was lost, lists the queue, waits on one node and deletes ours.
// What it does not know is the rule that decides who holds the lock: that
// is a Rule, like Curator's LockInternalsDriver.getsTheLock.

// Node is one contender in the queue, as a Rule sees it.
type Node struct {
	Name string // its name in the lock directory: _c_<uuid>-lock-0000000007
	Seq  int64  // the sequence number ZooKeeper appended
}

// A Rule looks at the queue, lowest sequence first, and at our place in
// it, and says whether we hold the lock; if not, it names the one node we
// wait for. 04's mutex: we hold at index 0, else we watch index-1 (First).
// 05's reader: we hold unless a writer is ahead, else we watch the last
// writer ahead. A semaphore with n leases: hold below n, else watch ours-n.
type Rule func(queue []Node, ours int) (holds bool, watch string)

// Queue is one contender's access to a lock directory: the engine of every
// lockstep lock. It keeps no state between acquisitions; each Acquire
// returns a Hold.
type Queue struct {
	s    *Session
	conn *zk.Conn // s.Conn()
	dir  string
	name string // what comes between the protection prefix and the sequence: "lock-"
	rule Rule
	opts options
}

// NewQueue returns the engine for the directory dir. Its nodes are named
// _c_<uuid>-<name><sequence>, and rule decides who holds. Nothing is sent
// to ZooKeeper until Acquire.
func NewQueue(s *Session, dir, name string, rule Rule, opts ...Option) (*Queue, error) {
	if s == nil {
		return nil, ErrNilSession
	}
	if err := zkpath.Validate(dir); err != nil {
		return nil, fmt.Errorf("seqlock: lock directory: %w", err)
	}
	if name == "" || strings.ContainsAny(name, "/\x00") || rule == nil {
		return nil, fmt.Errorf("seqlock: node name %q and a rule are required", name)
	}
	q := &Queue{s: s, conn: s.Conn(), dir: dir, name: name, rule: rule}
	for _, o := range opts {
		o(&q.opts)
	}
	if q.opts.acl == nil {
		q.opts.acl = s.acl()
	}
	if !slices.Contains(q.opts.contenders, name) {
		q.opts.contenders = append(q.opts.contenders, name)
	}
	return q, nil
}

// Dir is the lock directory.
func (q *Queue) Dir() string { return q.dir }

// sequenceOf reads the sequence number ZooKeeper appends to a sequential
// node's name: always its last ten digits (zkpath.SequenceOf). Children
// that do not end in <name><10 digits>, for one of the contenders' names
// (our own, and those given WithContenders), are ignored, as Curator and
// zk.Lock ignore them.
func (q *Queue) sequenceOf(name string) (int64, bool) {
	seq, ok := zkpath.SequenceOf(name)
	if !ok {
		return 0, false
	}
	before := name[:len(name)-zkpath.SequenceDigits]
	if !slices.ContainsFunc(q.opts.contenders, func(c string) bool { return strings.HasSuffix(before, c) }) {
		return 0, false
	}
	return seq, true
}

// sorted turns a directory listing into the queue, lowest sequence first.
// The protection prefix is random, so only the sequence gives the order.
func (q *Queue) sorted(names []string) []Node {
	nodes := make([]Node, 0, len(names))
	for _, n := range names {
		if seq, ok := q.sequenceOf(n); ok {
			nodes = append(nodes, Node{n, seq})
		}
	}
	slices.SortFunc(nodes, func(a, b Node) int { return cmp.Compare(a.Seq, b.Seq) })
	return nodes
}

// Sorted is sorted for readers that list the directory themselves (07's
// Leader and Observe, which set a children watch): the queue as Acquire
// sees it, lowest sequence first, only this queue's contenders.
func (q *Queue) Sorted(names []string) []Node { return q.sorted(names) }

// list reads the queue. It also returns the directory's pzxid, the id of
// the last transaction that added or removed a child: the fencing token of
// whoever this listing shows holding (see Token).
func (q *Queue) list(ctx context.Context, session int64) ([]Node, int64, error) {
	q.emit(event.Request, "children", q.dir, "")
	names, stat, err := retry(ctx, q.conn, session, func() ([]string, *zk.Stat, error) { return q.conn.Children(q.dir) })
	if errors.Is(err, zk.ErrNoNode) {
		return nil, 0, nil // the directory itself is gone, so is our node
	}
	if err != nil {
		return nil, 0, fmt.Errorf("seqlock: list %s: %w", q.dir, q.s.explain(err))
	}
	return q.sorted(names), stat.Pzxid, nil
}

// join creates our node and returns its full path and the session that
// owns it.
//
// Three things can go wrong between us and the server, and each has its
// answer:
//   - ErrNoNode: the lock directory does not exist (first use, or it was an
//     empty container and the server reaped it). Create it and try again.
//   - ErrConnectionClosed: the connection dropped after we sent the create.
//     The node may exist on the server even though we never saw the reply.
//     Look for a child carrying our UUID; create again only if there is none
//     (a second node would be an orphan that blocks the queue).
//   - ErrSessionExpired: the node, if created, died with the session.
//     Create again (the conn has a new session by now).
func (q *Queue) join(ctx context.Context) (node string, session int64, err error) {
	prefix := q.dir + "/" + protectedPrefix() + q.name
	probe, err := q.ensureDir(ctx)
	if err != nil {
		return "", 0, err
	}
	for attempt := 0; attempt < 5; attempt++ {
		before := q.conn.SessionID()
		q.emit(event.Request, "create", prefix, "")
		node, err = q.create(ctx, prefix)
		session = q.conn.SessionID()
		if probe {
			// Our create told whether the directory exists: settle it
			// for the goroutines of this Session waiting in ensureDir.
			probe = false
			if derr := q.settleDir(ctx, err); derr != nil {
				return "", 0, derr
			}
			if errors.Is(err, zk.ErrNoNode) {
				continue // settleDir made the directory: create again
			}
		}
		switch {
		case err == nil && session == before:
			return node, session, nil
		case err == nil, errors.Is(err, zk.ErrConnectionClosed):
			// No reply, or a new session while we waited for one: which
			// session's node, if any, do we have? Look for our UUID.
			found, ferr := q.findOurs(ctx, prefix, session)
			if ferr != nil && node == "" && errors.Is(q.sessionGone(ctx, before, ferr), errNodeGone) {
				// The session the create was sent in ended meanwhile: its
				// node, if the create made one, died with it. Nothing to
				// look for: create again in the new session.
				continue
			}
			if ferr != nil {
				return "", 0, q.giveUp(node, prefix, session, fmt.Errorf("seqlock: create %s: %v; then looking for it: %w", prefix, err, ferr))
			}
			if found != "" {
				if err != nil {
					q.emit(event.Info, "", found, "create reply lost; found our node by its UUID")
				}
				return found, session, nil
			}
		case errors.Is(err, zk.ErrNoNode):
			if err = q.createDir(ctx); err != nil {
				return "", 0, err
			}
		case errors.Is(err, zk.ErrSessionExpired):
		default:
			return "", 0, fmt.Errorf("seqlock: create %s: %w", prefix, q.s.explain(err))
		}
	}
	return "", 0, fmt.Errorf("seqlock: create %s: gave up: %w", prefix, err)
}

// giveUp makes sure join leaves nothing behind when it returns err. It
// removes node if we know it. If we don't (the create's reply was lost and
// the lookup failed too: the server is out of reach, or ctx ended), the
// create may still have made a node in our live session, an orphan that
// would block the queue: so it keeps looking for it in the background, as
// long as the session can live, and removes it once found. The caller
// waits at most cleanupWait.
func (q *Queue) giveUp(node, prefix string, session int64, err error) error {
	if node != "" {
		q.remove(node)
		return err
	}
	cleaned := make(chan struct{})
	go func() {
		defer close(cleaned)
		ctx, cancel := context.WithTimeout(context.Background(), guaranteedDeleteFor)
		defer cancel()
		if found, ferr := q.findOurs(ctx, prefix, session); ferr == nil && found != "" {
			q.remove(found)
		}
	}()
	select {
	case <-cleaned:
	case <-time.After(cleanupWait):
	}
	return err
}

// protectedPrefix is Curator's protection for a create: "_c_", a random
// version-4 UUID, "-". go-zookeeper's zk.Lock and Curator find the order
// in the sequence suffix, so all three can share a directory.
func protectedPrefix() string { return "_c_" + randhex.UUID() + "-" }

// create sends one create. go-zookeeper calls take no context, so
// zkcall.Send stops waiting when ctx ends (see call in call.go for where
// the call runs). The create may still land: Send hands its late answer to
// cleanUp, which deletes whatever it created, and we wait (briefly) for that.
func (q *Queue) create(ctx context.Context, prefix string) (string, error) {
	cleaned := make(chan struct{})
	cleanUp := func(node string, err error) {
		defer close(cleaned)
		if errors.Is(err, zk.ErrConnectionClosed) {
			node, err = q.findOurs(context.Background(), prefix, q.conn.SessionID())
		}
		if err == nil && node != "" {
			q.remove(node)
		}
	}
	node, err := zkcall.Send(ctx, func() (string, error) {
		return q.conn.Create(prefix, q.opts.data, zk.FlagEphemeral|zk.FlagSequence, q.opts.acl)
	}, cleanUp)
	if cerr := ctx.Err(); err != nil && cerr != nil && errors.Is(err, cerr) {
		select { // normally milliseconds; never wait long past ctx
		case <-cleaned:
		case <-time.After(cleanupWait):
		}
	}
	return node, err
}

// findOurs looks for the node whose name carries prefix's UUID.
func (q *Queue) findOurs(ctx context.Context, prefix string, session int64) (string, error) {
	queue, _, err := q.list(ctx, session)
	if err != nil {
		return "", err
	}
	want := event.Short(prefix)
	for _, n := range queue {
		if strings.HasPrefix(n.Name, want) {
			return q.dir + "/" + n.Name, nil
		}
	}
	return "", nil
}

// ensureDir makes sure the lock directory exists before we create our node
// in it, the first time this Session uses it, and only once however many
// goroutines join at that moment: a thousand goroutines arriving together
// on a fresh directory would otherwise each fail a create, each create the
// directory, and each create again.
//
// The first joiner of the Session is the probe (probe true): usually the
// directory exists already (another Session made it), so it just sends its
// create, and settleDir makes the directory only if that create said
// ErrNoNode. The others wait for the probe's answer. Later joins skip all
// this (Session.dirs); if the directory was reaped since, their create
// fails with ErrNoNode and join creates it again.
func (q *Queue) ensureDir(ctx context.Context) (probe bool, err error) {
	if v, ok := q.s.dirs.Load(q.dir); ok && isClosed(v.(*dirCreation).done) {
		return false, nil // known: the usual case, no allocation
	}
	c := &dirCreation{done: make(chan struct{})}
	if v, loaded := q.s.dirs.LoadOrStore(q.dir, c); loaded {
		c = v.(*dirCreation)
		select {
		case <-c.done: // settled (or not: then our create says so)
			return false, nil
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
	return true, nil
}

// settleDir ends the probe of ensureDir: created is what the probe's create
// answered. ErrNoNode: make the directory now. Success: it exists. Anything
// else says nothing; the next joiner probes again.
func (q *Queue) settleDir(ctx context.Context, created error) error {
	v, _ := q.s.dirs.Load(q.dir)
	c := v.(*dirCreation)
	defer close(c.done)
	var err error
	if errors.Is(created, zk.ErrNoNode) {
		err = q.createDir(ctx)
	}
	if err != nil || (created != nil && !errors.Is(created, zk.ErrNoNode)) {
		q.s.dirs.Delete(q.dir)
	}
	return err
}

type dirCreation struct{ done chan struct{} }

func isClosed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// createDir creates the lock directory and any missing parent as CONTAINER
// nodes: the server deletes a container once its last child is gone, so
// lock directories do not pile up. The price is the race handled in join:
// the directory can vanish between this call and our create.
func (q *Queue) createDir(ctx context.Context) error {
	for p, i := q.dir, 0; ; i++ {
		q.emit(event.Request, "create", p, "container")
		_, err := call(ctx, func() (string, error) {
			return q.conn.CreateContainer(p, nil, zk.FlagContainer, q.opts.acl)
		})
		switch {
		case err == nil || errors.Is(err, zk.ErrNodeExists):
			if p == q.dir {
				return nil
			}
			p = q.dir // the parents exist now: create the directory itself
		case errors.Is(err, zk.ErrNoNode) && i < 64:
			p = p[:strings.LastIndexByte(p, '/')] // the parent is missing: create it first
		case errors.Is(err, zk.ErrConnectionClosed) && q.conn.State() != zk.StateDisconnected && i < 64:
			// The reply was lost; creating a directory again is harmless
			// (ErrNodeExists counts as done), so send it again.
		default:
			return fmt.Errorf("seqlock: create lock directory %s: %w", p, q.s.explain(err))
		}
	}
}

// waitFor sets a data watch on node and blocks until it fires or ctx ends.
// It returns at once, with no watch left behind, if node is already gone.
//
// Why GetW and not ExistsW: if node left between our listing and this call,
// GetW fails with ErrNoNode and registers nothing, whereas ExistsW would
// leave a creation watch on a name that will never come back.
func (q *Queue) waitFor(ctx context.Context, node string, session int64) error {
	q.emit(event.Request, "get", node, "")
	_, _, watch, err := retry3(ctx, q.conn, session, func() ([]byte, *zk.Stat, <-chan zk.Event, error) { return q.conn.GetW(node) })
	if errors.Is(err, zk.ErrNoNode) {
		return nil // it left between our listing and our watch: look again
	}
	if err != nil {
		return fmt.Errorf("seqlock: watch %s: %w", node, err)
	}
	q.emit(event.WatchSet, "get", node, "")
	q.emit(event.Waiting, "", node, "")
	select {
	case <-ctx.Done():
		return ctx.Err()
	case ev := <-watch:
		q.emit(event.Notified, "", node, ev.Type.String())
		if ev.Type == zk.EventNotWatching && errors.Is(ev.Err, zk.ErrClosing) {
			return fmt.Errorf("seqlock: wait for %s: %w", node, ev.Err)
		}
		// Deleted, changed, or the session ended: in every case the caller
		// lists the queue again rather than assume anything.
		return nil
	}
}

// remove deletes a node of ours that we no longer want (a cancelled Lock, a
// TryLock that lost, an Unlock whose delete failed). A leftover node would
// block the whole queue for as long as our session lives, so this is what
// Curator calls a guaranteed delete: if the answer is "the connection
// dropped", it keeps trying in the background until the delete succeeds,
// the node is gone, or our session (and so the node) is over. The caller
// waits at most cleanupWait; remove reports whether the node is known to be
// gone by then (false: the delete is still being retried in the background).
func (q *Queue) remove(node string) (gone bool) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		session := q.conn.SessionID()
		deadline := time.Now().Add(guaranteedDeleteFor)
		for {
			state := q.conn.State()
			q.emit(event.Request, "delete", node, "")
			err := q.conn.Delete(node, -1)
			switch {
			case err == nil, errors.Is(err, zk.ErrNoNode), errors.Is(err, zk.ErrClosing):
				return
			case errors.Is(err, zk.ErrConnectionClosed) && state == zk.StateDisconnected:
				// A conn that was closed fails at once, without trying; a
				// live one would have queued the request until it
				// reconnected. The session is closed, the node with it.
				return
			case q.conn.SessionID() != session, time.Now().After(deadline):
				return // a new session: the old one, and our node, expired
			}
			time.Sleep(200 * time.Millisecond)
		}
	}()
	select {
	case <-done:
		return true
	case <-time.After(cleanupWait):
		return false
	}
}

// guaranteedDeleteFor bounds remove's retries: no session outlives the
// server's maxSessionTimeout (40 s by default, 60 s on our test server) of
// silence. cleanupWait bounds how long a caller waits for it.
const (
	guaranteedDeleteFor = 60 * time.Second
	cleanupWait         = 5 * time.Second
)

func (q *Queue) emit(kind event.Kind, op, node, detail string) {
	q.opts.observer.Emit(event.Event{Lock: q.dir, Kind: kind, Op: op, Node: node, Detail: detail})
}

// sessionGone is errNodeGone if a request failed because our session
// ended meanwhile (our node died with it: queue up again), else err.
func (q *Queue) sessionGone(ctx context.Context, session int64, err error) error {
	if ctx.Err() == nil && q.conn.SessionID() != session {
		return errNodeGone
	}
	return err
}
