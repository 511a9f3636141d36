package classroom

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"sort"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/internal/zkcall"
	"github.com/lockstep-zk/lockstep/internal/zksession"
)

// ErrOtherHost: the root holds a class another admin secret created.
var ErrOtherHost = errors.New("classroom: the class at this root was created by another host (another admin secret)")

// Host is the host's admin session on the class's servers.
type Host struct {
	root string
	conn zkcall.Conn
}

// NewAdminSecret and NewCode make the host's two secrets: the admin
// secret (never printed) and the class code (printed in the join line).
// The code is short enough to read aloud: 10 symbols of 32, 50 bits.
func NewAdminSecret() string { return newSecret(32) }

// NewCode makes a class code; see NewAdminSecret.
func NewCode() string { return newSecret(10) }

// OpenHost dials servers as the host (digest "host:<adminSecret>").
func OpenHost(ctx context.Context, servers []string, root, adminSecret string) (*Host, error) {
	if root != path.Clean(root) || root == "/" || root == "" || root[0] != '/' {
		return nil, fmt.Errorf("classroom: class root %q: want an absolute path below /", root)
	}
	d, err := zksession.Dial(ctx, servers, zksession.Config{
		Timeout: 10 * time.Second,
		Auth:    &zksession.Auth{Scheme: "digest", User: HostUser, Password: adminSecret},
	})
	if err != nil {
		if errors.Is(err, zk.ErrNoServer) {
			return nil, fmt.Errorf("%w at %v: %v", ErrUnreachable, servers, err)
		}
		return nil, fmt.Errorf("classroom: host session: %w", err)
	}
	go drain(d.Events)
	return &Host{root: root, conn: zkcall.Conn{Conn: d.Conn, Session: d.Conn.SessionID()}}, nil
}

// Close ends the host's session.
func (h *Host) Close() { h.conn.Close() }

// Conn is the host's session, for what this package does not wrap.
func (h *Host) Conn() *zk.Conn { return h.conn.Conn }

// Create makes the class tree, or opens the one this admin secret made
// before (a restarted class): the root (anyone may read it, it names the
// class and the host's digest identity) and learners, where the class
// code may create a child and read the list, and nothing else. A class
// made with another admin secret is refused (ErrOtherHost).
func (h *Host) Create(ctx context.Context, name, code, adminSecret string) error {
	me := hostID(adminSecret)
	info, _ := json.Marshal(classInfo{Name: name, HostID: me})
	rootACL := append(zk.DigestACL(zk.PermAll, HostUser, adminSecret), zk.WorldACL(zk.PermRead)...)
	learnersACL := append(zk.DigestACL(zk.PermAll, HostUser, adminSecret), zk.DigestACL(zk.PermCreate|zk.PermRead, CodeUser, code)...)
	// The root's parents, if any, are the host's (anyone may read them).
	if err := h.createParents(ctx, path.Dir(h.root), adminSecret); err != nil {
		return err
	}
	_, err := zkcall.Do(ctx, func() ([]zk.MultiResponse, error) {
		return h.conn.Conn.Multi(
			&zk.CreateRequest{Path: h.root, Data: info, Acl: rootACL},
			&zk.CreateRequest{Path: learnersPath(h.root), Acl: learnersACL},
		)
	})
	if err == nil {
		return nil
	}
	if !errors.Is(err, zk.ErrNodeExists) {
		return fmt.Errorf("classroom: create the class tree at %s: %w", h.root, err)
	}
	data, _, err := h.conn.Get(ctx, h.root)
	if err != nil {
		return fmt.Errorf("classroom: read %s: %w", h.root, err)
	}
	var old classInfo
	if json.Unmarshal(data, &old) != nil || old.HostID != me {
		return fmt.Errorf("%w: %s", ErrOtherHost, h.root)
	}
	// Ours: the code may be a new one.
	if _, err := zkcall.Do(ctx, func() (*zk.Stat, error) { return h.conn.SetACL(learnersPath(h.root), learnersACL, -1) }); err != nil {
		return fmt.Errorf("classroom: set the class code on %s: %w", learnersPath(h.root), err)
	}
	return nil
}

func (h *Host) createParents(ctx context.Context, p, adminSecret string) error {
	if p == "/" {
		return nil
	}
	if err := h.createParents(ctx, path.Dir(p), adminSecret); err != nil {
		return err
	}
	acl := append(zk.DigestACL(zk.PermAll, HostUser, adminSecret), zk.WorldACL(zk.PermRead)...)
	_, err := zkcall.Do(ctx, func() (string, error) { return h.conn.Conn.Create(p, nil, 0, acl) })
	if err != nil && !errors.Is(err, zk.ErrNodeExists) {
		return fmt.Errorf("classroom: create %s: %w", p, err)
	}
	return nil
}

// Lockdown makes the servers' root readable by anyone and writable by the
// host alone, so that a learner can create nothing outside the class tree.
// serve does it on the ensemble it starts, never on ZK_SERVERS (a server
// the host runs for more than the class).
func (h *Host) Lockdown(ctx context.Context, adminSecret string) error {
	acl := append(zk.DigestACL(zk.PermAll, HostUser, adminSecret), zk.WorldACL(zk.PermRead)...)
	for _, p := range []string{"/", "/zookeeper", "/zookeeper/quota"} {
		if _, err := zkcall.Do(ctx, func() (*zk.Stat, error) { return h.conn.SetACL(p, acl, -1) }); err != nil {
			return fmt.Errorf("classroom: lock down %s: %w", p, err)
		}
	}
	return nil
}

// Snapshot is the class's learners as the host keeps them between two
// runs of serve: each name's ACL (digest hashes, not secrets) and progress.
type Snapshot struct {
	Learners []SavedLearner `json:"learners"`
}

// SavedLearner is one learner in a Snapshot.
type SavedLearner struct {
	Name     string          `json:"name"`
	ACL      []zk.ACL        `json:"acl"`
	Progress json.RawMessage `json:"progress"`
}

// Export reads every learner's ACL and progress.
func (h *Host) Export(ctx context.Context) (Snapshot, error) {
	names, _, err := h.conn.Children(ctx, learnersPath(h.root))
	if err != nil {
		return Snapshot{}, fmt.Errorf("classroom: list the learners: %w", err)
	}
	sort.Strings(names)
	var s Snapshot
	for _, n := range names {
		acl, err := zkcall.Do(ctx, func() ([]zk.ACL, error) {
			acl, _, err := h.conn.GetACL(learnerPath(h.root, n))
			return acl, err
		})
		if errors.Is(err, zk.ErrNoNode) {
			continue
		}
		if err != nil {
			return Snapshot{}, fmt.Errorf("classroom: ACL of %q: %w", n, err)
		}
		data, _, err := h.conn.Get(ctx, progressPath(h.root, n))
		if errors.Is(err, zk.ErrNoNode) {
			continue
		}
		if err != nil {
			return Snapshot{}, fmt.Errorf("classroom: progress of %q: %w", n, err)
		}
		s.Learners = append(s.Learners, SavedLearner{Name: n, ACL: acl, Progress: data})
	}
	return s, nil
}

// Import puts back the learners of s that the tree lacks, each with the
// ACL it had: their laptops' kept secrets open them again. It returns how
// many it put back.
func (h *Host) Import(ctx context.Context, s Snapshot, adminSecret string) (int, error) {
	n := 0
	for _, l := range s.Learners {
		if err := CheckName(l.Name); err != nil {
			return n, fmt.Errorf("classroom: snapshot: %w", err)
		}
		// Created with the host's full rights first (the host may not
		// create in a learner's subtree), then given the learner's ACL.
		building := append(zk.DigestACL(zk.PermAll, HostUser, adminSecret), l.ACL...)
		_, err := zkcall.Do(ctx, func() ([]zk.MultiResponse, error) {
			return h.conn.Conn.Multi(
				&zk.CreateRequest{Path: learnerPath(h.root, l.Name), Acl: building},
				&zk.CreateRequest{Path: progressPath(h.root, l.Name), Data: l.Progress, Acl: l.ACL},
				&zk.CreateRequest{Path: workspacePath(h.root, l.Name), Acl: l.ACL},
			)
		})
		if errors.Is(err, zk.ErrNodeExists) {
			continue
		}
		if err != nil {
			return n, fmt.Errorf("classroom: put back %q: %w", l.Name, err)
		}
		if _, err := zkcall.Do(ctx, func() (*zk.Stat, error) { return h.conn.SetACL(learnerPath(h.root, l.Name), l.ACL, -1) }); err != nil {
			return n, fmt.Errorf("classroom: put back the ACL of %q: %w", l.Name, err)
		}
		n++
	}
	return n, nil
}
