package classroom

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/internal/zkcall"
	"github.com/lockstep-zk/lockstep/internal/zksession"
)

// SecretStore keeps the secret each name was taken with, per class code:
// the runner keeps it beside the learner's progress, so that the same
// laptop can come back to its name and no other can.
type SecretStore interface {
	// Secret returns the secret kept for name in the class with code.
	Secret(code, name string) (secret string, ok bool, err error)
	// Keep stores it.
	Keep(code, name, secret string) error
}

// Option changes how Join connects.
type Option func(*joinConfig)

type joinConfig struct {
	session time.Duration
	dialer  zk.Dialer
}

// WithSessionTimeout asks for a session of d (default 15 s: a laptop's
// Wi-Fi may drop for a few seconds without the learner showing as gone).
func WithSessionTimeout(d time.Duration) Option { return func(c *joinConfig) { c.session = d } }

// WithDialer opens the session's connections with d (tests put a proxy or
// a source address there).
func WithDialer(d zk.Dialer) Option { return func(c *joinConfig) { c.dialer = d } }

// DefaultSessionTimeout is the session a learner asks for.
const DefaultSessionTimeout = 15 * time.Second

// Learner is a joined learner: a session authenticated with their name's
// secret, their presence node alive while it lives.
type Learner struct {
	name, root string
	secret     string
	conn       zkcall.Conn
	timeout    time.Duration
	once       sync.Once
	closed     chan struct{}
	done       chan struct{} // closed when the session is over
}

// Join takes name in the class of the join line, or comes back to it with
// the secret store kept when it was taken. On success the learner is
// online (their presence node exists) until Close or the session's end.
//
// The first to take a name owns it: the learner's subtree is created in
// one multi, with a digest ACL of a freshly generated secret, which is
// then kept in secrets (if that fails, the subtree is deleted again).
// Errors, each leaving nothing behind on the server or in secrets:
// ErrBadJoinLine, ErrBadName, ErrUnreachable, ErrNoClass, ErrWrongCode,
// ErrNameTaken (no secret kept for the name) and ErrWrongSecret (the kept
// one does not open it).
func Join(ctx context.Context, line, name string, secrets SecretStore, opts ...Option) (*Learner, error) {
	jl, err := ParseJoinLine(line)
	if err != nil {
		return nil, err
	}
	if err := CheckName(name); err != nil {
		return nil, err
	}
	cfg := joinConfig{session: DefaultSessionTimeout}
	for _, o := range opts {
		o(&cfg)
	}
	secret, kept, err := secrets.Secret(jl.Code, name)
	if err != nil {
		return nil, fmt.Errorf("classroom: read the secret kept for %q: %w", name, err)
	}
	if !kept {
		secret = newSecret(24)
	}
	d, err := zksession.Dial(ctx, jl.Servers, zksession.Config{
		Timeout: cfg.session,
		Auth:    &zksession.Auth{Scheme: "digest", User: name, Password: secret},
		Dialer:  cfg.dialer,
	})
	if err != nil {
		if errors.Is(err, zk.ErrNoServer) {
			return nil, fmt.Errorf("%w at %v: is this laptop on the room's network, and is the class served? (%v)", ErrUnreachable, jl.Servers, err)
		}
		return nil, fmt.Errorf("classroom: join %v: %w", jl.Servers, err)
	}
	l := &Learner{name: name, root: jl.Root, conn: zkcall.Conn{Conn: d.Conn, Session: d.Conn.SessionID()}, timeout: d.Timeout(),
		closed: make(chan struct{}), done: make(chan struct{})}
	go l.watchSession(d.Events)
	l.secret = secret
	if err := l.take(ctx, jl, secret, kept, secrets); err != nil {
		d.Conn.Close()
		return nil, err
	}
	return l, nil
}

// take creates the learner's subtree (a new name) or checks the kept
// secret against it (a name this laptop took before), then goes online.
func (l *Learner) take(ctx context.Context, jl JoinLine, secret string, kept bool, secrets SecretStore) error {
	data, _, err := l.conn.Get(ctx, jl.Root)
	if errors.Is(err, zk.ErrNoNode) {
		return fmt.Errorf("%w: %s holds no %s (is the join line the one the host's screen shows?)", ErrNoClass, jl.Servers, jl.Root)
	}
	if err != nil {
		return fmt.Errorf("classroom: read %s: %w", jl.Root, err)
	}
	var info classInfo
	if err := json.Unmarshal(data, &info); err != nil || info.HostID == "" {
		return fmt.Errorf("%w: %s is not a class tree (%q)", ErrNoClass, jl.Root, data)
	}
	// The class code's identity, next to the name's: it is what may add
	// a child to learners, and nothing else.
	if err := l.conn.AddAuth("digest", []byte(CodeUser+":"+jl.Code)); err != nil {
		return fmt.Errorf("classroom: authenticate the class code: %w", err)
	}
	acl := learnerACL(l.name, secret, info.HostID)
	start, _ := json.Marshal(Progress{Chapter: "01", State: Untouched, ChapterStart: time.Now().UTC()})
	mine := learnerPath(l.root, l.name)
	res, err := zkcall.Do(ctx, func() ([]zk.MultiResponse, error) {
		return l.conn.Conn.Multi(
			&zk.CreateRequest{Path: mine, Acl: acl},
			&zk.CreateRequest{Path: progressPath(l.root, l.name), Data: start, Acl: acl},
			&zk.CreateRequest{Path: workspacePath(l.root, l.name), Acl: acl},
		)
	})
	switch {
	case err == nil:
		if kept {
			// A name this laptop held in a class that has since been
			// wiped: taken afresh with the same secret.
			return l.goOnline(ctx, acl)
		}
		if err := secrets.Keep(jl.Code, l.name, secret); err != nil {
			l.deleteSubtree()
			return fmt.Errorf("classroom: keep the secret of %q (the name is free again): %w", l.name, err)
		}
		return l.goOnline(ctx, acl)
	case errors.Is(err, zk.ErrNoAuth) || (len(res) > 0 && errors.Is(res[0].Error, zk.ErrNoAuth)):
		return fmt.Errorf("%w for %s (ask the host for the join line again)", ErrWrongCode, jl.Root)
	case errors.Is(err, zk.ErrNodeExists) || (len(res) > 0 && errors.Is(res[0].Error, zk.ErrNodeExists)):
		if !kept {
			return fmt.Errorf("%w: %q belongs to another laptop; choose another name", ErrNameTaken, l.name)
		}
		// Ours, if the kept secret opens it.
		if _, _, err := l.conn.Get(ctx, progressPath(l.root, l.name)); errors.Is(err, zk.ErrNoAuth) {
			return fmt.Errorf("%w: %q (another laptop may have taken the name while this one's secret was made, or the secret file was changed)", ErrWrongSecret, l.name)
		} else if err != nil {
			return fmt.Errorf("classroom: read the progress of %q: %w", l.name, err)
		}
		return l.goOnline(ctx, acl)
	case errors.Is(err, zk.ErrNoNode):
		return fmt.Errorf("%w: %s has no %s (the class tree is incomplete: ask the host to serve again)", ErrNoClass, jl.Root, learners)
	default:
		return fmt.Errorf("classroom: take the name %q: %w", l.name, err)
	}
}

// goOnline creates the presence node. One left by this name's previous
// session (a runner restarted before its old session expired) is replaced.
func (l *Learner) goOnline(ctx context.Context, acl []zk.ACL) error {
	p := presencePath(l.root, l.name)
	here, _ := json.Marshal(map[string]any{"since": time.Now().UTC()})
	var err error
	for range 2 {
		_, err = zkcall.Do(ctx, func() (string, error) { return l.conn.Conn.Create(p, here, zk.FlagEphemeral, acl) })
		if !errors.Is(err, zk.ErrNodeExists) {
			break
		}
		if err := l.conn.Delete(ctx, p, -1); err != nil && !errors.Is(err, zk.ErrNoNode) {
			return fmt.Errorf("classroom: replace the presence of %q: %w", l.name, err)
		}
	}
	if err != nil {
		return fmt.Errorf("classroom: go online as %q: %w", l.name, err)
	}
	return nil
}

// deleteSubtree undoes a take whose secret could not be kept.
func (l *Learner) deleteSubtree() {
	l.conn.Multi(
		&zk.DeleteRequest{Path: workspacePath(l.root, l.name), Version: -1},
		&zk.DeleteRequest{Path: progressPath(l.root, l.name), Version: -1},
		&zk.DeleteRequest{Path: learnerPath(l.root, l.name), Version: -1},
	)
}

// Name is the learner's name in the class.
func (l *Learner) Name() string { return l.name }

// Workspace is the learner's own subtree for their checks: the only place
// in the class, with their progress, where they may create nodes.
func (l *Learner) Workspace() string { return workspacePath(l.root, l.name) }

// Auth is the learner's digest identity as ZK_AUTH takes it
// ("name:secret"): the runner gives it to the checks it runs under
// Workspace, whose nodes only this identity may create.
func (l *Learner) Auth() string { return l.name + ":" + l.secret }

// SessionTimeout is what the server granted: how long after a laptop
// leaves the host's screen shows it gone.
func (l *Learner) SessionTimeout() time.Duration { return l.timeout }

// Report writes p to the learner's progress node, where the host's screen
// sees it. Calls are meant one at a time (the runner reports a verdict
// after another).
func (l *Learner) Report(ctx context.Context, p Progress) error {
	if err := p.check(); err != nil {
		return err
	}
	select {
	case <-l.closed:
		return ErrClosed
	default:
	}
	data, err := json.Marshal(p)
	if err != nil {
		return err
	}
	// A set of the whole node, whatever its version, is safe to send again:
	// if the connection drops under it (a server of the ensemble dies, the
	// Wi-Fi blinks), it is sent again while the session lives, and the node
	// ends holding p either way. The learner notices a reconnect, no more.
	// Past twice the session timeout without a server, the session is
	// over anyway (a class served again, a laptop off the network): stop
	// trying rather than hang the runner.
	limit := 2 * l.timeout
	bounded, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	_, err = zkcall.Retry(bounded, l.conn.Conn, l.conn.Session, func() (*zk.Stat, error) {
		return l.conn.Set(progressPath(l.root, l.name), data, -1)
	})
	if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		return fmt.Errorf("classroom: report the progress of %q: %w: no server of the class answered for %v", l.name, ErrUnreachable, limit)
	}
	if err != nil {
		return fmt.Errorf("classroom: report the progress of %q: %w", l.name, err)
	}
	return nil
}

// Progress reads back what the class holds for the learner: after a
// rejoin, where they were.
func (l *Learner) Progress(ctx context.Context) (Progress, error) {
	data, _, err := l.conn.Get(ctx, progressPath(l.root, l.name))
	if err != nil {
		return Progress{}, fmt.Errorf("classroom: read the progress of %q: %w", l.name, err)
	}
	var p Progress
	if err := json.Unmarshal(data, &p); err != nil {
		return Progress{}, fmt.Errorf("classroom: progress of %q: %w", l.name, err)
	}
	return p, nil
}

// Done is closed when the learner's session is over: closed, expired (a
// laptop asleep past the session timeout, a class served again), or out of
// reach of every server for a session timeout. The presence node is gone
// then; Join again to come back.
func (l *Learner) Done() <-chan struct{} { return l.done }

// watchSession closes done when the session is over. One whose servers
// stay out of reach for a whole session timeout is over too: the servers have expired it, or are gone (the class served
// again, the laptop off the room's network), and go-zookeeper, which
// learns of an expiry only from a server, would say nothing until one
// answers.
func (l *Learner) watchSession(events <-chan zk.Event) {
	over := false
	end := func() {
		if !over {
			over = true
			close(l.done)
		}
	}
	var unreached <-chan time.Time // set while no server answers
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				end()
				return
			}
			switch ev.State {
			case zk.StateExpired:
				end()
			case zk.StateDisconnected:
				if unreached == nil {
					unreached = time.After(l.timeout)
				}
			case zk.StateHasSession:
				unreached = nil
			}
		case <-unreached:
			unreached = nil
			end()
		}
	}
}

// Close ends the session: the presence node goes with it, the progress
// stays. Safe to call more than once.
func (l *Learner) Close() error {
	l.once.Do(func() {
		close(l.closed)
		l.conn.Close()
	})
	return nil
}

// newSecret is n random bytes as letters and digits.
func newSecret(n int) string {
	const alphabet = "abcdefghijkmnpqrstuvwxyz23456789" // 32 symbols, none easily misread
	b := make([]byte, n)
	rand.Read(b)
	for i := range b {
		b[i] = alphabet[b[i]%32]
	}
	return string(b)
}

func drain(events <-chan zk.Event) {
	for range events {
	}
}

// FileSecrets keeps secrets in one JSON file (mode 0600), by class code and
// name: the runner's choice is a file beside its progress file.
type FileSecrets string

type secretFile map[string]map[string]string // code → name → secret

func (f FileSecrets) read() (secretFile, error) {
	b, err := os.ReadFile(string(f))
	if errors.Is(err, os.ErrNotExist) {
		return secretFile{}, nil
	}
	if err != nil {
		return nil, err
	}
	s := secretFile{}
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", f, err)
	}
	return s, nil
}

// Secret implements SecretStore.
func (f FileSecrets) Secret(code, name string) (string, bool, error) {
	s, err := f.read()
	if err != nil {
		return "", false, err
	}
	secret, ok := s[code][name]
	return secret, ok, nil
}

// Keep implements SecretStore: it writes a temporary file and renames it,
// so that a crash leaves the old file or the new one, never half of one.
func (f FileSecrets) Keep(code, name, secret string) error {
	s, err := f.read()
	if err != nil {
		return err
	}
	if s[code] == nil {
		s[code] = map[string]string{}
	}
	s[code][name] = secret
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(string(f)), 0o700); err != nil {
		return err
	}
	tmp := string(f) + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, string(f))
}
