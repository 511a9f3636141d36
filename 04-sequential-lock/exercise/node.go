package seqlock

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/zkpath"
)

// The lock nodes are named like Curator's and go-zookeeper's protected
// nodes: _c_<32 hex GUID>-lock-<10-digit sequence>. ZooKeeper appends the
// sequence; we choose the GUID.
const (
	protectedPrefix = "_c_"
	lockName        = "lock-"
)

// contender is one node in the queue.
type contender struct {
	name string // the node's name under the lock directory
	seq  int64  // the sequence number ZooKeeper gave it
}

// sequenceOf reads the sequence number at the end of a lock node's name.
// Nodes that are not lock nodes (anything without "lock-<digits>") are not
// contenders and are ignored, as Curator and zk.Lock ignore them.
func sequenceOf(name string) (int64, bool) {
	i := strings.LastIndex(name, lockName)
	if i < 0 {
		return 0, false
	}
	digits := name[i+len(lockName):]
	if digits == "" || strings.TrimLeft(digits, "0123456789") != "" {
		return 0, false
	}
	seq, err := strconv.ParseInt(digits, 10, 64)
	return seq, err == nil
}

// queueOf is the queue, lowest sequence first.
type queueOf []contender

// sortQueue is step 2 of 04-sequential-lock/README.md: turn the names of
// the lock directory's children into the queue, ordered by sequence number
// — the number ZooKeeper appended, sequenceOf(name). Skip names that are
// not lock nodes (sequenceOf says ok == false). Do not sort the names
// themselves: they start with a random GUID.
func sortQueue(names []string) queueOf {
	panic("TODO(workshop): keep the children sequenceOf accepts and sort them by sequence number, not by name — step 2 of 04-sequential-lock/README.md")
}

// position returns the index of node (a full path) in the queue, -1 if absent.
func (q queueOf) position(node string) int {
	name := event.Short(node)
	for i, c := range q {
		if c.name == name {
			return i
		}
	}
	return -1
}

// queue lists the lock directory.
func (m *Mutex) queue(ctx context.Context) (queueOf, error) {
	m.emit(event.Request, "children", m.dir, "")
	names, _, err := call2(ctx, func() ([]string, *zk.Stat, error) { return m.conn.Children(m.dir) })
	if errors.Is(err, zk.ErrNoNode) {
		return nil, nil // the directory itself is gone, so is our node
	}
	if err != nil {
		return nil, fmt.Errorf("seqlock: list %s: %w", m.dir, err)
	}
	return sortQueue(names), nil
}

// createNode joins the queue and returns the full path of our node.
//
// Three things can go wrong between us and the server, and each has its
// answer:
//   - ErrNoNode: the lock directory does not exist (first use, or it was an
//     empty container and the server reaped it). Create it and try again.
//   - ErrConnectionClosed: the connection dropped after we sent the create.
//     The node may exist on the server even though we never saw the reply.
//     Look for a child carrying our GUID; create again only if there is none.
//   - ErrSessionExpired: the node, if created, died with the session.
//     Create again (the conn has a new session by now).
func (m *Mutex) createNode(ctx context.Context) (string, error) {
	guid := make([]byte, 16)
	rand.Read(guid)
	prefix := m.dir + "/" + protectedPrefix + hex.EncodeToString(guid) + "-" + lockName
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		m.emit(event.Request, "create", prefix, "")
		var node string
		node, err = m.create(ctx, prefix)
		switch {
		case err == nil:
			return node, nil
		case errors.Is(err, zk.ErrNoNode):
			if err = m.createDir(ctx); err != nil {
				return "", err
			}
		case errors.Is(err, zk.ErrConnectionClosed):
			node, ferr := m.findOurs(ctx, prefix)
			if ferr != nil {
				return "", fmt.Errorf("seqlock: create %s: %w; then looking for it: %w", prefix, err, ferr)
			}
			if node != "" {
				m.emit(event.Info, "", node, "create reply lost; found our node by its GUID")
				return node, nil
			}
		case errors.Is(err, zk.ErrSessionExpired):
		default:
			return "", fmt.Errorf("seqlock: create %s: %w", prefix, err)
		}
	}
	return "", fmt.Errorf("seqlock: create %s: gave up: %w", prefix, err)
}

// create sends one create. go-zookeeper calls take no context, so the call
// runs in its own goroutine. If ctx ends first, the create may still land:
// we wait for its answer and delete whatever it created before returning.
func (m *Mutex) create(ctx context.Context, prefix string) (string, error) {
	type result struct {
		node string
		err  error
	}
	done := make(chan result, 1)
	go func() {
		node, err := m.createSequential(prefix)
		done <- result{node, err}
	}()
	select {
	case r := <-done:
		return r.node, r.err
	case <-ctx.Done():
		cleaned := make(chan struct{})
		go func() {
			defer close(cleaned)
			r := <-done
			if errors.Is(r.err, zk.ErrConnectionClosed) {
				r.node, r.err = m.findOurs(context.Background(), prefix)
			}
			if r.err == nil && r.node != "" {
				m.removeNode(r.node)
			}
		}()
		select { // normally milliseconds; never wait long past ctx
		case <-cleaned:
		case <-time.After(cleanupWait):
		}
		return "", ctx.Err()
	}
}

// createSequential is step 1 of 04-sequential-lock/README.md: join the
// queue. Create an EPHEMERAL_SEQUENTIAL node whose name starts with prefix
// (ZooKeeper appends the sequence number), holding m.opts.data, open to
// everyone (zk.WorldACL(zk.PermAll)), and return the full path ZooKeeper
// gives back. Return the error as it is: createNode and create above deal
// with every answer (a missing directory, a lost reply, a ctx that ended).
// Why ephemeral? Why sequential?
func (m *Mutex) createSequential(prefix string) (string, error) {
	panic("TODO(workshop): create an EPHEMERAL_SEQUENTIAL node at prefix holding m.opts.data (m.conn.Create) — step 1 of 04-sequential-lock/README.md")
}

// findOurs looks for the node whose name carries prefix's GUID.
func (m *Mutex) findOurs(ctx context.Context, prefix string) (string, error) {
	queue, err := m.queue(ctx)
	if err != nil {
		return "", err
	}
	want := event.Short(prefix)
	for _, c := range queue {
		if strings.HasPrefix(c.name, want) {
			return m.dir + "/" + c.name, nil
		}
	}
	return "", nil
}

// createDir creates the lock directory and any missing parent as CONTAINER
// nodes: the server deletes a container once its last child is gone, so
// lock directories do not pile up. The price is the race handled in
// createNode: the directory can vanish between this call and our create.
func (m *Mutex) createDir(ctx context.Context) error {
	for p, i := m.dir, 0; ; i++ {
		m.emit(event.Request, "create", p, "container")
		_, err := call1(ctx, func() (string, error) {
			return m.conn.CreateContainer(p, nil, zk.FlagContainer, zk.WorldACL(zk.PermAll))
		})
		switch {
		case err == nil || errors.Is(err, zk.ErrNodeExists):
			if p == m.dir {
				return nil
			}
			p = m.dir // the parents exist now: create the directory itself
		case errors.Is(err, zk.ErrNoNode) && i < 64:
			p = p[:strings.LastIndexByte(p, '/')] // the parent is missing: create it first
		default:
			return fmt.Errorf("seqlock: create lock directory %s: %w", p, err)
		}
	}
}

// removeNode deletes a node of ours that we no longer want (a cancelled
// Lock, a TryLock that lost, an Unlock whose delete failed). A leftover node
// would block the whole queue for as long as our session lives, so this is
// what Curator calls a guaranteed delete: if the answer is "the connection
// dropped", it keeps trying in the background until the delete succeeds,
// the node is gone, or our session (and so the node) is over. The caller
// waits at most cleanupWait for it; removeNode reports whether the node is
// known to be gone by then.
func (m *Mutex) removeNode(node string) (gone bool) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		session := m.conn.SessionID()
		deadline := time.Now().Add(guaranteedDeleteFor)
		for {
			state := m.conn.State()
			m.emit(event.Request, "delete", node, "")
			err := m.conn.Delete(node, -1)
			switch {
			case err == nil, errors.Is(err, zk.ErrNoNode), errors.Is(err, zk.ErrClosing):
				return
			case errors.Is(err, zk.ErrConnectionClosed) && state == zk.StateDisconnected:
				// A conn that was closed fails at once, without trying; a
				// live one would have queued the request until it
				// reconnected. The session is closed, the node with it.
				return
			case m.conn.SessionID() != session, time.Now().After(deadline):
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

// guaranteedDeleteFor bounds removeNode's retries: no session outlives the
// server's maxSessionTimeout (40 s by default, 60 s on the test server) of
// silence. cleanupWait bounds how long a caller waits for it.
const (
	guaranteedDeleteFor = 60 * time.Second
	cleanupWait         = 5 * time.Second
)

// Participant is one contender in a lock's queue.
type Participant struct {
	Node string // full path of its node
	Seq  int64  // its sequence number
	Data []byte // what it wrote (WithData)
}

// Participants returns the lock's queue in order: [0] holds the lock (or is
// about to notice that it does), the others wait in that order. Like
// Curator's getParticipantNodes and kazoo's contenders.
func Participants(conn *zk.Conn, dir string) ([]Participant, error) {
	if conn == nil {
		return nil, errors.New("seqlock: nil *zk.Conn")
	}
	if err := zkpath.Validate(dir); err != nil {
		return nil, fmt.Errorf("seqlock: lock directory: %w", err)
	}
	names, _, err := conn.Children(dir)
	if errors.Is(err, zk.ErrNoNode) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("seqlock: list %s: %w", dir, err)
	}
	var out []Participant
	for _, c := range sortQueue(names) {
		p := dir + "/" + c.name
		data, _, err := conn.Get(p)
		if errors.Is(err, zk.ErrNoNode) {
			continue // it left while we looked
		}
		if err != nil {
			return nil, fmt.Errorf("seqlock: read %s: %w", p, err)
		}
		out = append(out, Participant{Node: p, Seq: c.seq, Data: data})
	}
	return out, nil
}

// call1, call2, call3 and call run a ZooKeeper call so that ctx can
// interrupt the wait (go-zookeeper calls take no context). Only reads,
// watches and deletes go through them: abandoning those leaves nothing
// behind. Creates go through create, which cleans up after itself.
func call(ctx context.Context, f func() error) error {
	_, err := call1(ctx, func() (struct{}, error) { return struct{}{}, f() })
	return err
}

func call1[A any](ctx context.Context, f func() (A, error)) (A, error) {
	a, _, _, err := call3(ctx, func() (A, struct{}, struct{}, error) { a, err := f(); return a, struct{}{}, struct{}{}, err })
	return a, err
}

func call2[A, B any](ctx context.Context, f func() (A, B, error)) (A, B, error) {
	a, b, _, err := call3(ctx, func() (A, B, struct{}, error) { a, b, err := f(); return a, b, struct{}{}, err })
	return a, b, err
}

func call3[A, B, C any](ctx context.Context, f func() (A, B, C, error)) (A, B, C, error) {
	type result struct {
		a   A
		b   B
		c   C
		err error
	}
	if err := ctx.Err(); err != nil {
		var r result
		return r.a, r.b, r.c, err
	}
	done := make(chan result, 1)
	go func() {
		a, b, c, err := f()
		done <- result{a, b, c, err}
	}()
	select {
	case r := <-done:
		return r.a, r.b, r.c, r.err
	case <-ctx.Done():
		var r result
		return r.a, r.b, r.c, ctx.Err()
	}
}
