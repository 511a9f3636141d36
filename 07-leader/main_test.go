package main

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lockstep-zk/lockstep/internal/demo"
	"github.com/lockstep-zk/lockstep/internal/zksession"
	"github.com/lockstep-zk/lockstep/internal/zktest"
)

func TestMain(m *testing.M) { zktest.Main(m) }

// A candidate's Session is one ZooKeeper session. When the server expires
// a follower's, the follower opens a new one (over the same link) and
// campaigns again; when the leader then dies, it is the one that leads.
func TestACandidateWhoseSessionExpiresCampaignsAgainOnANewSession(t *testing.T) {
	job = 50 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	lo, _ := zktest.SessionBounds(t) // the shortest session the server grants: the quickest expiry
	lines := &lineFeed{lines: make(chan string, 10000)}
	p := demo.Program{Name: "07-leader", Path: "election", Run: func(ctx context.Context, env *demo.Env) error {
		ctx, stop := context.WithCancel(ctx)
		s := &story{tl: demo.NewTimeline(env.Out), candidates: 2, finished: stop}
		s.tl.Show = demo.Milestone
		var cands []*candidate
		for _, name := range []string{"candidate-1", "candidate-2"} {
			c, err := newCandidate(ctx, env, name, s)
			if err != nil {
				stop()
				return err
			}
			cands = append(cands, c)
		}
		var wg sync.WaitGroup
		for _, c := range cands {
			wg.Go(func() { c.run(ctx) })
		}
		defer wg.Wait()
		defer stop()

		leaderName := lines.await(t, regexp.MustCompile(`(candidate-\d) acquired`))[1]
		leader, follower := cands[0], cands[1]
		if leaderName == follower.name {
			leader, follower = follower, leader
		}
		_, sess := follower.election()
		if err := zksession.Expire(ctx, follower.link, sess.Conn(), sess.Timeout()); err != nil {
			t.Errorf("expire %s's session: %v", follower.name, err)
			return nil
		}
		lines.await(t, regexp.MustCompile(regexp.QuoteMeta(follower.name)+` lost its session \(.*session expired.*\); it opens a new one and campaigns again`))
		if _, now := follower.election(); now == sess || now.Conn().SessionID() == 0 {
			t.Errorf("%s still campaigns on its expired session", follower.name)
		}
		leader.kill()
		lines.await(t, regexp.MustCompile(regexp.QuoteMeta(follower.name)+` acquired`))
		return nil
	}}
	if err := demo.Execute(ctx, p, []string{"-servers", strings.Join(zktest.Servers(t), ","), "-session", lo.String()}, lines); err != nil {
		t.Fatal(err)
	}
}

// lineFeed is the demo's output, line by line, for a test to wait on.
type lineFeed struct {
	mu    sync.Mutex
	part  bytes.Buffer
	lines chan string
	seen  strings.Builder // what the test has read, for its failure message
}

func (f *lineFeed) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.part.Write(p)
	for {
		line, err := f.part.ReadString('\n')
		if err != nil {
			f.part.WriteString(line) // not a whole line yet
			return len(p), nil
		}
		f.lines <- strings.TrimSuffix(line, "\n")
	}
}

// await reads lines until one matches re, and returns its submatches.
func (f *lineFeed) await(t *testing.T, re *regexp.Regexp) []string {
	t.Helper()
	deadline := time.After(zktest.Patience)
	for {
		select {
		case line := <-f.lines:
			f.seen.WriteString(line + "\n")
			if m := re.FindStringSubmatch(line); m != nil {
				return m
			}
		case <-deadline:
			t.Fatalf("no line matching %q after %v; the demo said:\n%s", re, zktest.Patience, f.seen.String())
		}
	}
}
