package zktest

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

// fatalTB records the first Fatalf and ends its goroutine, as testing's
// own Fatalf does.
type fatalTB struct {
	testing.TB
	msg chan string
}

func (f fatalTB) Helper() {}

func (f fatalTB) Fatalf(format string, args ...any) {
	f.msg <- fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// until runs Until in a goroutine of its own and returns what it failed
// with ("" if it returned) and how long it took.
func until(t *testing.T, timeout time.Duration, what string, check func() (bool, string)) (string, time.Duration) {
	tb := fatalTB{TB: t, msg: make(chan string, 1)}
	start := time.Now()
	done := make(chan struct{})
	go func() {
		defer close(done)
		Until(tb, timeout, what, check)
	}()
	<-done
	select {
	case m := <-tb.msg:
		return m, time.Since(start)
	default:
		return "", time.Since(start)
	}
}

func TestUntilFailsAtTheFirstEvidenceAndSaysWhatItSaw(t *testing.T) {
	polls := 0
	msg, took := until(t, Patience, "the second Acquire to wait for a lease", func() (bool, string) {
		if polls++; polls < 3 {
			return false, ""
		}
		return false, "it got lease 2 of 1"
	})
	if !strings.Contains(msg, "waiting for the second Acquire to wait for a lease") || !strings.Contains(msg, "it got lease 2 of 1") {
		t.Errorf("Until failed with %q: want what it waited for and what it saw instead", msg)
	}
	if took > Patience/2 {
		t.Errorf("Until took %v to report evidence seen at the third poll: it waited out its timeout", took)
	}

	msg, _ = until(t, 50*time.Millisecond, "a lease", func() (bool, string) { return false, "" })
	if !strings.HasPrefix(msg, "after 50ms, still waiting for a lease") {
		t.Errorf("Until after its timeout failed with %q, want \"after 50ms, still waiting for a lease\"", msg)
	}

	if msg, _ := until(t, Patience, "done", func() (bool, string) { return true, "" }); msg != "" {
		t.Errorf("Until failed with %q on a check that is done", msg)
	}
}
