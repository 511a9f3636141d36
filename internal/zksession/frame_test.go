package zksession

import (
	"encoding/binary"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/internal/zkwire"
)

// connectResponse encodes a ConnectResponse frame as a server sends it.
func connectResponse(timeoutMs int32, sessionID int64) []byte {
	body := binary.BigEndian.AppendUint32(nil, 0)                 // protocolVersion
	body = binary.BigEndian.AppendUint32(body, uint32(timeoutMs)) // timeOut
	body = binary.BigEndian.AppendUint64(body, uint64(sessionID)) // sessionId
	body = binary.BigEndian.AppendUint32(body, 16)                // passwd length
	body = append(body, make([]byte, 16)...)                      // passwd
	body = append(body, 0)                                        // readOnly
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(body))), body...)
}

func TestConnectFrame(t *testing.T) {
	frame := connectResponse(4000, 0x1234)
	t.Run("read whole, as one read", func(t *testing.T) {
		r := NewRecorder()
		f := r.splitter()
		f.Feed(frame)
		if got := r.timeoutMs.Load(); got != 4000 {
			t.Fatalf("timeout = %d ms, want 4000", got)
		}
	})
	t.Run("read the way go-zookeeper does, and byte by byte", func(t *testing.T) {
		for _, sizes := range [][]int{{4, len(frame) - 4}, {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 99}, {19, 2, 99}} {
			r := NewRecorder()
			f := r.splitter()
			rest := frame
			for _, n := range sizes {
				n = min(n, len(rest))
				f.Feed(rest[:n])
				rest = rest[n:]
			}
			if got := r.timeoutMs.Load(); got != 4000 {
				t.Errorf("reads of %v: timeout = %d ms, want 4000", sizes, got)
			}
		}
	})
	t.Run("the session's password is kept under its ID, until the session ends", func(t *testing.T) {
		r := NewRecorder()
		r.splitter().Feed(frame)
		if pw, ok := passwords.Load(int64(0x1234)); !ok || len(pw.([]byte)) != 16 {
			t.Fatalf("password of session 0x1234 = %v, %v: want the 16 bytes of the frame", pw, ok)
		}
		r.splitter().Feed(connectResponse(0, 0)) // the next connect: "expired"
		if _, ok := passwords.Load(int64(0x1234)); ok {
			t.Fatal("the password of an expired session is still kept")
		}
	})
	t.Run("only the first frame counts", func(t *testing.T) {
		r := NewRecorder()
		f := r.splitter()
		f.Feed(frame)
		f.Feed(connectResponse(9000, 0x99)) // a later reply that happens to look alike
		if got := r.timeoutMs.Load(); got != 4000 {
			t.Fatalf("timeout = %d ms, want 4000", got)
		}
	})
	t.Run("an expired-session answer keeps the last grant", func(t *testing.T) {
		r := NewRecorder()
		r.granted(zkwire.ConnectResponse{TimeoutMs: 6000, SessionID: 1})
		f := r.splitter()
		f.Feed(connectResponse(0, 0))
		if got := r.timeoutMs.Load(); got != 6000 {
			t.Fatalf("timeout = %d ms, want 6000 (the last real grant)", got)
		}
	})
	t.Run("a frame too short to be a ConnectResponse is ignored", func(t *testing.T) {
		r := NewRecorder()
		f := r.splitter()
		f.Feed(append(binary.BigEndian.AppendUint32(nil, 4), make([]byte, 30)...))
		if got := r.timeoutMs.Load(); got != 0 {
			t.Fatalf("timeout = %d ms, want 0 (unknown)", got)
		}
	})
}

// The Dialer passes every byte through unchanged while it listens.
func TestDialerPassesBytesThrough(t *testing.T) {
	srv, cli := net.Pipe()
	defer srv.Close()
	r := NewRecorder()
	d := r.Dialer(func(string, string, time.Duration) (net.Conn, error) { return cli, nil })
	c, err := d("tcp", "ignored", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	want := append(connectResponse(12000, 7), "and then a reply"...)
	go srv.Write(want)
	got := make([]byte, len(want))
	for n := 0; n < len(got); {
		m, err := c.Read(got[n : n+min(5, len(got)-n)])
		if err != nil {
			t.Fatal(err)
		}
		n += m
	}
	if string(got) != string(want) {
		t.Fatalf("bytes changed on the way:\n got %q\nwant %q", got, want)
	}
	if got := r.timeoutMs.Load(); got != 12000 {
		t.Fatalf("timeout = %d ms, want 12000", got)
	}
}

func TestParseAuth(t *testing.T) {
	a, err := ParseAuth("alice:s3cr:et")
	if err != nil {
		t.Fatal(err)
	}
	if *a != (Auth{Scheme: "digest", User: "alice", Password: "s3cr:et"}) {
		t.Fatalf("ParseAuth = %+v", *a)
	}
	if string(a.Credentials()) != "alice:s3cr:et" {
		t.Fatalf("Credentials = %q", a.Credentials())
	}
	if s := a.String(); s != "digest:alice:***" {
		t.Fatalf("String = %q: must not show the password", s)
	}
	for _, bad := range []string{"", "alice", ":pw", "alice:", " alice:pw"} {
		if _, err := ParseAuth(bad); err == nil {
			t.Errorf("ParseAuth(%q) = nil error, want one saying user:password", bad)
		}
	}
}

func TestACL(t *testing.T) {
	if acl := ACL(nil); acl[0].Scheme != "world" {
		t.Fatalf("ACL(nil) = %v, want world:anyone", acl)
	}
	if acl := ACL(&Auth{Scheme: "digest", User: "u", Password: "p"}); acl[0].Scheme != "auth" {
		t.Fatalf("ACL of a session with credentials = %v, want creator-only (auth)", acl)
	}
}

func TestExplain(t *testing.T) {
	t.Run("without known credentials it claims none", func(t *testing.T) {
		msg := Explain(nil, zk.ErrNoAuth).Error()
		if strings.Contains(msg, "no credentials") || strings.Contains(msg, "without credentials") {
			t.Errorf("Explain(nil) claims what it cannot know: %s", msg)
		}
	})
	t.Run("it names the user, never the password", func(t *testing.T) {
		msg := Explain(&Auth{Scheme: "digest", User: "alice", Password: "s3cret"}, zk.ErrNoAuth).Error()
		if !strings.Contains(msg, "alice") || strings.Contains(msg, "s3cret") {
			t.Errorf("Explain = %s", msg)
		}
	})
	t.Run("other errors come back as they are", func(t *testing.T) {
		if err := Explain(nil, zk.ErrNoNode); err != zk.ErrNoNode {
			t.Errorf("Explain(ErrNoNode) = %v", err)
		}
	})
}

func TestCheckServers(t *testing.T) {
	err := CheckServers([]string{"127.0.0.1:2181", "127.0.0.1:2182/app"})
	if !errors.Is(err, ErrChroot) || !strings.Contains(err.Error(), `"/app"`) || !strings.Contains(err.Error(), "-path /app") {
		t.Fatalf("CheckServers with a chroot = %v, want ErrChroot naming /app and -path", err)
	}
	if err := CheckServers([]string{"127.0.0.1:2181", "[::1]:2181"}); err != nil {
		t.Fatalf("CheckServers without a chroot = %v", err)
	}
}

type discard struct{}

func (discard) Printf(string, ...any) {}
