package seqlock

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/randhex"
	"github.com/lockstep-zk/lockstep/internal/zkcall"
	"github.com/lockstep-zk/lockstep/internal/zkpath"
)

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

// queue is one contender's access to a lock directory: the engine of every
// lockstep lock, in the spirit of Curator's LockInternals. It keeps no
// state between acquisitions; each acquire returns a hold. This file has
// it in the order of the recipe: acquire joins the queue (join, with the
// container directory made when missing), waits for its turn (waitTurn, in
// acquire.go: the lesson), which lists the queue (list) and waits on one
// node (waitFor); remove deletes a node of ours we no longer want. The
// hold is in hold.go. What the core does not know is the rule that decides
// who holds the lock: that is a Rule, like Curator's
// LockInternalsDriver.getsTheLock.
type queue struct {
	s    *Session
	dir  string
	name string // what comes between the protection prefix and the sequence: "lock-"
	rule Rule
	opts Options
}

func newQueue(s *Session, dir, name string, rule Rule, opts []Option) (*queue, error) {
	if s == nil {
		return nil, ErrNilSession
	}
	if err := zkpath.Validate(dir); err != nil {
		return nil, fmt.Errorf("seqlock: lock directory: %w", err)
	}
	if name == "" || strings.ContainsAny(name, "/\x00") || rule == nil {
		return nil, fmt.Errorf("seqlock: node name %q and a rule are required", name)
	}
	q := &queue{s: s, dir: dir, name: name, rule: rule}
	for _, o := range opts {
		o(&q.opts)
	}
	if q.opts.ACL == nil {
		q.opts.ACL = s.acl()
	}
	if !slices.Contains(q.opts.Contenders, name) {
		q.opts.Contenders = append(q.opts.Contenders, name)
	}
	return q, nil
}

// acquire is the recipe, in the order the articles draw it:
//
//  1. Join the queue: create an EPHEMERAL_SEQUENTIAL node under the lock
//     directory (join).
//  2. List the queue, sorted by sequence number.
//  3. Ask the rule. If it says we hold the lock, we do.
//  4. Otherwise watch the one node the rule names, wait for it to change,
//     and go back to step 2. It may have been a waiter that gave up rather
//     than the holder, so we never assume the lock is ours.
//  5. Releasing the hold deletes our node, which wakes whoever watches it.
//
// Steps 2 to 4 are waitTurn, and 04's rule is First: the lesson, in
// acquire.go (the workshop's exercise replaces that file). acquire is the
// bookkeeping around them: a node of ours that vanished while the session
// lives (someone deleted it) means queueing up again, as Curator does; a
// session that ended means ErrSessionExpired (ErrSessionClosed).
//
// With wait false (TryLock) step 4 is "give up": acquire removes our node
// and returns ErrLocked. If ctx ends, acquire removes our node and returns
// ctx's error: a node left behind would block the queue.
func (q *queue) acquire(ctx context.Context, wait bool) (*hold, error) {
	for {
		if err := q.s.alive(); err != nil {
			return nil, err
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		node, err := q.join(ctx) // step 1
		if err != nil {
			return nil, q.ended(err)
		}
		h, err := q.waitTurn(ctx, node, wait) // steps 2 to 4
		if err == nil && h == nil {
			err = errNoHold // a waitTurn of the workshop's that returned neither
		}
		if err == nil && q.s.alive() != nil {
			h.release(context.Background()) // held in a session that has just ended
			err = q.s.alive()
		}
		switch {
		case err == nil:
			return h, nil
		case errors.Is(err, errNodeGone):
			continue // our place is gone: queue up again
		}
		if rerr := q.remove(node); rerr != nil && !errors.Is(rerr, errStillRemoving) {
			return nil, fmt.Errorf("%w; and our node is left behind: %w", q.ended(err), rerr)
		}
		return nil, q.ended(err)
	}
}

// errNodeGone: our own node is no longer in the queue. list returns it,
// and acquire queues up again (or says the session ended).
var errNodeGone = errors.New("seqlock: our node is gone")

// errNoHold: waitTurn returned neither a hold nor an error.
var errNoHold = errors.New("seqlock: waitTurn returned no hold and no error")

// ended says why a request failed when the reason is that our session
// ended meanwhile (our node died with it): ErrSessionExpired or
// ErrSessionClosed. Otherwise it returns err.
func (q *queue) ended(err error) error {
	if errors.Is(err, zk.ErrSessionExpired) && !errors.Is(err, ErrSessionExpired) {
		return fmt.Errorf("%w: %w", ErrSessionExpired, err) // before the Session has heard
	}
	if serr := q.s.alive(); serr != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		return serr
	}
	return err
}

func (q *queue) emit(kind event.Kind, op event.Op, node, detail string) {
	q.opts.Observer.Emit(event.Event{Lock: q.dir, Kind: kind, Op: op, Node: node, Detail: detail})
}

// Step 1: join the queue with an EPHEMERAL_SEQUENTIAL node, protected by a
// UUID in its name (Curator's protection), so that a create whose reply was
// lost is found again rather than made twice.
//
// join creates our node and returns its full path. Three things can go
// wrong between us and the server, and each has its answer:
//   - ErrNoNode: the lock directory does not exist (first use, or it was an
//     empty container and the server reaped it). Create it and try again.
//   - ErrConnectionClosed: the connection dropped after we sent the create.
//     The node may exist on the server even though we never saw the reply.
//     Look for a child carrying our UUID; create again only if there is none
//     (a second node would be an orphan that blocks the queue).
//   - ErrNoServer: never sent (go-zookeeper fails the requests it has not
//     sent yet each time it has tried every server): send it again.
func (q *queue) join(ctx context.Context) (string, error) {
	prefix := q.dir + "/_c_" + randhex.UUID() + "-" + q.name
	probe, err := q.ensureDir(ctx)
	if err != nil {
		return "", err
	}
	var last error
	for attempt := 0; attempt < 5; attempt++ {
		q.emit(event.Request, "create", prefix, "")
		undone := make(chan struct{})
		node, err := q.s.calls.Create(ctx, prefix, q.opts.Data, zk.FlagEphemeral|zk.FlagSequence, q.opts.ACL, q.undo(prefix, undone))
		if probe != nil {
			// Our create told whether the directory exists: settle it
			// for the goroutines of this Session waiting in ensureDir.
			derr := q.settleDir(ctx, probe, err)
			probe = nil
			if derr != nil {
				return "", derr
			}
			if errors.Is(err, zk.ErrNoNode) {
				continue // settleDir made the directory: create again
			}
		}
		last = err
		switch {
		case err == nil:
			return node, nil
		case errors.Is(err, zk.ErrConnectionClosed):
			found, ferr := q.findOurs(ctx, prefix)
			if ferr != nil {
				return "", q.giveUp(prefix, fmt.Errorf("seqlock: create %s: %v; then looking for it: %w", prefix, err, ferr))
			}
			if found != "" {
				q.emit(event.Info, "", found, "create reply lost; found our node by its UUID")
				return found, nil
			}
		case errors.Is(err, zk.ErrNoNode):
			if err = q.createDir(ctx); err != nil {
				return "", err
			}
		case errors.Is(err, zk.ErrNoServer):
		case ctx.Err() != nil && errors.Is(err, ctx.Err()):
			// The create may land after all: undo deletes it then. Lock
			// returns once it has (normally milliseconds; never long).
			select {
			case <-undone:
			case <-time.After(cleanupWait):
			}
			return "", err
		default:
			return "", fmt.Errorf("seqlock: create %s: %w", prefix, q.s.explain(err))
		}
	}
	return "", fmt.Errorf("seqlock: create %s: gave up after 5 attempts: %w", prefix, last)
}

// undo is what happens to a create's reply that came after its ctx ended:
// the node it made, if any, is deleted (if the reply was lost too, it is
// looked for by its UUID). It closes done when it is through.
func (q *queue) undo(prefix string, done chan struct{}) func(string, error) {
	return func(node string, err error) {
		defer close(done)
		if errors.Is(err, zk.ErrConnectionClosed) {
			node, err = q.findOurs(context.Background(), prefix)
		}
		if err == nil && node != "" {
			q.remove(node)
		}
	}
}

// giveUp makes sure join leaves nothing behind when it cannot tell whether
// its create landed (the reply was lost and the lookup failed too: the
// server is out of reach, or ctx ended). The node may exist in our live
// session, an orphan that would block the queue: so it keeps looking for
// it in the background, as long as the session can live, and removes it
// once found. The caller waits at most cleanupWait.
func (q *queue) giveUp(prefix string, err error) error {
	cleaned := make(chan struct{})
	go func() {
		defer close(cleaned)
		ctx, cancel := context.WithTimeout(context.Background(), guaranteedDeleteFor)
		defer cancel()
		if found, ferr := q.findOurs(ctx, prefix); ferr == nil && found != "" {
			q.remove(found)
		}
	}()
	select {
	case <-cleaned:
	case <-time.After(cleanupWait):
	}
	return err
}

// findOurs looks for the node whose name carries prefix's UUID.
func (q *queue) findOurs(ctx context.Context, prefix string) (string, error) {
	q.emit(event.Request, "children", q.dir, "")
	children, _, err := q.s.calls.Children(ctx, q.dir)
	if errors.Is(err, zk.ErrNoNode) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	want := event.Short(prefix)
	for _, c := range children {
		if strings.HasPrefix(c, want) {
			return q.dir + "/" + c, nil
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
// The first joiner is the probe (probe not nil): usually the directory
// exists already (another Session made it), so it just sends its create,
// and settleDir makes the directory only if that create said ErrNoNode,
// then closes probe. The others wait for the probe's answer. Later joins
// skip all this (Session.dirs); if the directory was reaped since, their
// create fails with ErrNoNode and join creates it again.
func (q *queue) ensureDir(ctx context.Context) (probe chan struct{}, err error) {
	settled, probe := q.s.dirs.settled(q.dir)
	if probe != nil || isClosed(settled) {
		return probe, nil // the usual case: known, no allocation
	}
	select {
	case <-settled: // settled (or not: then our create says so)
		return nil, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// settleDir ends the probe of ensureDir: created is what the probe's create
// answered. ErrNoNode: make the directory now. Success: it exists. Anything
// else says nothing; the next joiner probes again.
func (q *queue) settleDir(ctx context.Context, probe chan struct{}, created error) error {
	defer close(probe)
	var err error
	if errors.Is(created, zk.ErrNoNode) {
		err = q.createDir(ctx)
	}
	if err != nil || (created != nil && !errors.Is(created, zk.ErrNoNode)) {
		q.s.dirs.forget(q.dir, probe)
	}
	return err
}

// knownDirs is what a Session remembers of the lock directories its locks
// joined (ensureDir): for each, a channel closed once the directory is
// known to exist. It remembers at most maxKnownDirs settled ones: a
// service that locks one directory per entity (/locks/orders/<id>) would
// otherwise keep one entry per directory it ever used, for the Session's
// life. Forgetting one costs nothing but a probe at its next join.
type knownDirs struct {
	mu   sync.Mutex
	dirs map[string]chan struct{}
}

const maxKnownDirs = 256

// settled returns the channel closed once dir is settled; if dir was not
// known, it is a new one, also returned as probe: the caller is the probe.
func (k *knownDirs) settled(dir string) (settled, probe chan struct{}) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if ch, ok := k.dirs[dir]; ok {
		return ch, nil
	}
	if k.dirs == nil {
		k.dirs = map[string]chan struct{}{}
	}
	if len(k.dirs) >= maxKnownDirs {
		for d, ch := range k.dirs { // a map's order is random: forget one at random
			if isClosed(ch) {
				delete(k.dirs, d)
				break
			}
		}
	}
	probe = make(chan struct{})
	k.dirs[dir] = probe
	return probe, probe
}

// forget drops dir if its entry is still probe's: the probe said nothing.
func (k *knownDirs) forget(dir string, probe chan struct{}) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.dirs[dir] == probe {
		delete(k.dirs, dir)
	}
}

// len is how many directories k remembers.
func (k *knownDirs) len() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.dirs)
}

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
func (q *queue) createDir(ctx context.Context) error {
	for p, i := q.dir, 0; ; i++ {
		q.emit(event.Request, "create", p, "container")
		err := q.s.calls.CreateContainer(ctx, p, nil, q.opts.ACL)
		switch {
		case err == nil || errors.Is(err, zk.ErrNodeExists):
			if p == q.dir {
				return nil
			}
			p = q.dir // the parents exist now: create the directory itself
		case errors.Is(err, zk.ErrNoNode) && i < 64:
			p = p[:strings.LastIndexByte(p, '/')] // the parent is missing: create it first
		case errors.Is(err, zk.ErrConnectionClosed) && q.s.alive() == nil && i < 64:
			// The reply was lost; creating a directory again is harmless
			// (ErrNodeExists counts as done), so send it again.
		default:
			return fmt.Errorf("seqlock: create lock directory %s: %w", p, q.s.explain(err))
		}
	}
}

// Step 2: the queue as the lock directory lists it, in the order of the
// sequence numbers ZooKeeper appended, and our place in it.
//
// list returns the queue, the index of node (ours) in it, and the
// directory's pzxid: the id of the last transaction that added or removed
// a child, the fencing token of whoever this listing shows holding (see
// hold). If node is not in the queue, it returns errNodeGone.
func (q *queue) list(ctx context.Context, node string) (queue []Node, ours int, pzxid int64, err error) {
	q.emit(event.Request, "children", q.dir, "")
	children, stat, err := q.s.calls.Children(ctx, q.dir)
	if errors.Is(err, zk.ErrNoNode) {
		return nil, -1, 0, errNodeGone // the directory itself is gone, so is our node
	}
	if err != nil {
		return nil, -1, 0, fmt.Errorf("seqlock: list %s: %w", q.dir, q.s.explain(err))
	}
	queue = q.sorted(children)
	name := node[len(q.dir)+1:] // node is q.dir + "/" + its name
	ours = slices.IndexFunc(queue, func(n Node) bool { return n.Name == name })
	if ours < 0 {
		return nil, -1, 0, errNodeGone
	}
	return queue, ours, stat.Pzxid, nil
}

// sorted turns a listing into the queue: only the contenders' nodes (our
// name's, and those given WithContenders), lowest sequence first.
func (q *queue) sorted(children []string) []Node {
	names := zkpath.Queue(children, q.opts.Contenders...)
	queue := make([]Node, len(names))
	for i, n := range names {
		seq, _ := zkpath.SequenceOf(n)
		queue[i] = Node{n, seq}
	}
	return queue
}

// Step 4: wait for the one node the rule names to change or go.
//
// waitFor sets a data watch on the node named watch and blocks until it
// fires or ctx ends. It returns at once, with no watch left behind, if the
// node is already gone.
//
// Why GetW and not ExistsW: if the node left between our listing and this
// call, GetW fails with ErrNoNode and registers nothing, whereas ExistsW
// would leave a creation watch on a name that will never come back.
func (q *queue) waitFor(ctx context.Context, watch string) error {
	node := q.dir + "/" + watch
	q.emit(event.Request, "get", node, "")
	_, _, changed, err := q.s.calls.GetW(ctx, node)
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
	case <-q.s.done:
		// Ended (Close, or the server expired it): no need to wait for
		// go-zookeeper to give up on the watch, which on a silent link
		// takes up to 2/3 of the timeout.
		return q.s.alive()
	case ev := <-changed:
		q.emit(event.Notified, "", node, ev.Type.String())
		if ev.Type == zk.EventNotWatching {
			// The session ended (or the conn was closed): acquire says so.
			return fmt.Errorf("seqlock: wait for %s: %w", node, ev.Err)
		}
		// Deleted or changed: in every case the caller lists the queue
		// again rather than assume anything.
		return nil
	}
}

// remove deletes a node of ours that we no longer want (a cancelled Lock, a
// TryLock that lost, an Unlock whose delete failed). A leftover node would
// block the whole queue for as long as our session lives, so this is what
// Curator calls a guaranteed delete: if the answer is "the connection
// dropped", it keeps trying in the background until the delete succeeds,
// the node is gone, or our session (and so the node) is over. Any other
// answer (ErrNoAuth: the directory's ACL does not let us delete) is the
// server's, and asking again would get it again: remove gives up at once
// and returns it. The caller waits at most cleanupWait; remove returns nil
// if the node is known to be gone by then, errStillRemoving if the delete
// is still being retried in the background.
func (q *queue) remove(node string) error {
	done := make(chan error, 1)
	go func() {
		deadline := time.Now().Add(max(guaranteedDeleteFor, 2*q.s.timeout))
		for q.s.alive() == nil && time.Now().Before(deadline) {
			q.emit(event.Request, "delete", node, "")
			err := q.s.conn.Delete(node, -1)
			switch {
			case err == nil, errors.Is(err, zk.ErrNoNode), errors.Is(err, zk.ErrClosing):
				done <- nil
				return
			case errors.Is(err, zk.ErrConnectionClosed) && zkcall.Closed(context.Background(), q.s.conn):
				// The conn was closed (it stays disconnected; a live one
				// is connecting again within moments): the session is
				// over, the node with it.
				done <- nil
				return
			case !mayStillLand(err):
				done <- fmt.Errorf("seqlock: delete %s: %w", node, q.s.explain(err))
				return
			}
			time.Sleep(200 * time.Millisecond)
		}
		done <- nil // the session is over, the node with it (or we gave up: see guaranteedDeleteFor)
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(cleanupWait):
		return errStillRemoving
	}
}

// errStillRemoving: remove is still trying to delete the node in the
// background.
var errStillRemoving = errors.New("seqlock: still deleting our node in the background")

// mayStillLand says whether a request that failed with err may have
// reached the server, or may succeed if sent again: the connection dropped
// (ErrConnectionClosed), go-zookeeper never sent it (ErrNoServer), or we
// stopped waiting for the reply (ctx ended). Anything else is the server's
// answer, and asking again gets it again.
func mayStillLand(err error) bool {
	return errors.Is(err, zk.ErrConnectionClosed) || errors.Is(err, zk.ErrNoServer) ||
		errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// guaranteedDeleteFor bounds remove's retries, with twice the granted
// session timeout if that is longer: no session outlives its timeout of
// silence (the server's maxSessionTimeout caps it: 40 s by default, 60 s
// on our test server). cleanupWait bounds how long a caller waits for it.
const (
	guaranteedDeleteFor = 60 * time.Second
	cleanupWait         = 5 * time.Second
)
