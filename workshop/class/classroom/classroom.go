// Package classroom is the class's side of ZooKeeper: one tree on the
// class's ensemble where every learner has a subtree of their own, with a
// presence node that lives as long as the learner's session and a progress
// node the host's screen watches.
//
// The tree, and who may do what in it (ACLs, ZooKeeper's digest scheme):
//
//	<root>                       host: all · anyone: read (the class's name)
//	└── learners                 host: all · class code: create, read
//	    └── <name>               <name>: all · host: read, delete, admin
//	        ├── progress         <name>: all · host: read, delete, admin
//	        ├── presence         ephemeral: gone with the learner's session
//	        └── work             the learner's own checks run below here
//
// The class code is a digest identity ("class:<code>") that may only add a
// child to learners; every node below <name> is writable with <name>'s
// secret alone. ZooKeeper checks a DELETE against the parent's ACL, so a
// learner can delete nothing of another's: learners grants the class code
// no delete, and <name> grants nobody but its owner (and the host) any.
//
// The host authenticates as "host:<admin secret>"; the admin secret never
// leaves the host's class directory. A learner joins with the join line
// (servers, root and class code) and a name: Join.
package classroom

import (
	"errors"
	"fmt"
	"path"
	"strings"
	"time"
	"unicode"

	"github.com/go-zookeeper/zk"
)

// Errors a learner's Join and Report can return, checked with errors.Is.
// Their text is what the runner prints.
var (
	// ErrNameTaken: another laptop took the name first.
	ErrNameTaken = errors.New("classroom: that name is taken")
	// ErrWrongSecret: the secret kept for the name does not open it.
	ErrWrongSecret = errors.New("classroom: the secret kept for this name does not open it")
	// ErrWrongCode: the class code is not this class's.
	ErrWrongCode = errors.New("classroom: wrong class code")
	// ErrNoClass: the servers answer, but hold no class at the root.
	ErrNoClass = errors.New("classroom: no class here")
	// ErrUnreachable: no server of the join line answers.
	ErrUnreachable = errors.New("classroom: cannot reach the class's ZooKeeper")
	// ErrBadJoinLine: the join line is not one serve printed.
	ErrBadJoinLine = errors.New("classroom: not a join line")
	// ErrBadName: a name the class cannot use.
	ErrBadName = errors.New("classroom: bad name")
	// ErrClosed: the Learner was closed.
	ErrClosed = errors.New("classroom: closed")
)

// The digest users of the class: the host, and the class code's identity.
// A learner's digest user is their name, which may therefore be neither.
const (
	HostUser  = "host"
	CodeUser  = "class"
	learners  = "learners"
	progress  = "progress"
	presence  = "presence"
	workspace = "work"
)

// DefaultRoot is where serve puts the class tree.
const DefaultRoot = "/lockstep-class"

// JoinLine is what a learner pastes: the class's servers, the root of its
// tree and the class code.
type JoinLine struct {
	Servers []string
	Root    string
	Code    string
}

// joinScheme starts every join line, so that a line pasted in the wrong
// place (or a ZK_SERVERS value) is recognised as not one.
const joinScheme = "zk://"

// String is the line serve prints:
// zk://127.0.0.1:2181,127.0.0.1:2182,127.0.0.1:2183/lockstep-class?code=k7q2x9m4
func (j JoinLine) String() string {
	return joinScheme + strings.Join(j.Servers, ",") + j.Root + "?code=" + j.Code
}

// ParseJoinLine reads a line String printed (surrounding spaces and quotes
// are forgiven: a terminal's copy often carries them).
func ParseJoinLine(s string) (JoinLine, error) {
	line := strings.Trim(strings.TrimSpace(s), `"'`)
	bad := func(why string) (JoinLine, error) {
		return JoinLine{}, fmt.Errorf("%w: %q %s (want zk://host:port,…/root?code=…, as the host's screen prints it)", ErrBadJoinLine, s, why)
	}
	rest, ok := strings.CutPrefix(line, joinScheme)
	if !ok {
		return bad("does not start with " + joinScheme)
	}
	rest, code, ok := strings.Cut(rest, "?code=")
	if !ok || code == "" {
		return bad("has no class code")
	}
	i := strings.IndexByte(rest, '/')
	if i < 0 {
		return bad("has no root")
	}
	servers, root := rest[:i], rest[i:]
	var list []string
	for _, srv := range strings.Split(servers, ",") {
		srv = strings.TrimSpace(srv)
		host, port, ok := strings.Cut(srv, ":")
		if !ok || host == "" || port == "" || strings.Trim(port, "0123456789") != "" {
			return bad(fmt.Sprintf("has the server %q (want host:port)", srv))
		}
		list = append(list, srv)
	}
	if root != path.Clean(root) || root == "/" {
		return bad("has the root " + root)
	}
	if strings.ContainsAny(code, ":/ ") {
		return bad("has a class code with ':', '/' or a space")
	}
	return JoinLine{Servers: list, Root: root, Code: code}, nil
}

// CheckName says what is wrong with a learner's name, if anything: 1 to 32
// letters (any script), digits, '-', '_' or '.', and not the class's own
// digest users.
func CheckName(name string) error {
	n := 0
	for _, r := range name {
		n++
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune("-_.", r) {
			return fmt.Errorf("%w %q: use letters, digits, '-', '_' or '.' (no %q)", ErrBadName, name, r)
		}
	}
	switch {
	case n == 0:
		return fmt.Errorf("%w: empty", ErrBadName)
	case n > 32:
		return fmt.Errorf("%w %q: at most 32 characters", ErrBadName, name)
	case name == "." || name == "..":
		return fmt.Errorf("%w %q", ErrBadName, name)
	case name == HostUser || name == CodeUser:
		return fmt.Errorf("%w %q: reserved for the class itself", ErrBadName, name)
	}
	return nil
}

// Paths of the tree under root.
func learnersPath(root string) string        { return path.Join(root, learners) }
func learnerPath(root, name string) string   { return path.Join(root, learners, name) }
func progressPath(root, name string) string  { return path.Join(root, learners, name, progress) }
func presencePath(root, name string) string  { return path.Join(root, learners, name, presence) }
func workspacePath(root, name string) string { return path.Join(root, learners, name, workspace) }

// learnerACL is the ACL of every node of a learner's subtree: everything
// for the learner, and for the host what it needs to read and to clean up,
// but not to write the learner's progress.
func learnerACL(name, secret, hostDigestID string) []zk.ACL {
	acl := zk.DigestACL(zk.PermAll, name, secret)
	return append(acl, zk.ACL{Perms: zk.PermRead | zk.PermDelete | zk.PermAdmin, Scheme: "digest", ID: hostDigestID})
}

// State is where a learner stands on their chapter.
type State string

const (
	Untouched State = "untouched" // the exercise file is as handed out
	Failing   State = "failing"   // the last check failed
	Passing   State = "passing"   // the last check passed
)

// Progress is what a learner's progress node holds (JSON).
type Progress struct {
	Chapter      string    `json:"chapter"`               // "04"
	State        State     `json:"state"`                 // untouched, failing, passing
	Mistake      string    `json:"mistake,omitempty"`     // the mistake the check named ("herd"), if it named one
	HintStage    int       `json:"hint_stage"`            // hints seen on this chapter
	ChapterStart time.Time `json:"chapter_start"`         // on the learner's clock
	LastVerdict  time.Time `json:"last_verdict,omitzero"` // on the learner's clock
}

// check refuses what the host's screen could not show.
func (p Progress) check() error {
	switch p.State {
	case Untouched, Failing, Passing:
	default:
		return fmt.Errorf("classroom: progress state %q: want untouched, failing or passing", p.State)
	}
	if p.Chapter == "" {
		return errors.New("classroom: progress has no chapter")
	}
	if p.HintStage < 0 {
		return fmt.Errorf("classroom: hint stage %d", p.HintStage)
	}
	return nil
}

// hostID is the digest identity ("host:<base64 sha1>") the admin secret
// authenticates as. It is public: the class root's data carries it, so
// that a learner can let the host read their nodes.
func hostID(adminSecret string) string { return zk.DigestACL(zk.PermAll, HostUser, adminSecret)[0].ID }

// classInfo is the class root's data, readable by anyone who can reach the
// servers.
type classInfo struct {
	Name   string `json:"name"`
	HostID string `json:"host_id"`
}
