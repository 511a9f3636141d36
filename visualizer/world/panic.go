package world

import (
	"fmt"
	"regexp"
	goruntime "runtime"
	"strings"
)

// A chapter's code may panic: with the visualizer built against a learner's
// exercise (go run -tags workshop -overlay …), every TODO(workshop) stub
// does. The world calls a scene's code only from its own goroutines and
// through protect, which turns the panic into a *PanicError; the first one
// closes Failed, and the view ends the normal way (the terminal restored,
// every session closed, every node deleted).

// PanicError is a panic in a scene's code, caught in the worker that ran it.
type PanicError struct {
	Worker string // "worker-2", or "setup"
	Value  any    // what was passed to panic
	Where  string // "04-sequential-lock/seqlock/acquire.go:40", the panic's caller
}

func (e *PanicError) Error() string {
	s := fmt.Sprintf("%s: panic: %v", e.Worker, e.Value)
	if e.Where != "" {
		s += " (at " + e.Where + ")"
	}
	return s
}

// protect runs f and turns a panic inside it into a *PanicError.
func (w *World) protect(worker string, f func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &PanicError{Worker: worker, Value: v, Where: panicSite()}
		}
	}()
	return f()
}

// panicSite is the file:line that called panic, as a path inside the
// module when it is one: the first frame outside the Go runtime.
func panicSite() string {
	pcs := make([]uintptr, 32)
	n := goruntime.Callers(3, pcs) // skip Callers, panicSite, the deferred func
	frames := goruntime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		if !strings.HasPrefix(f.Function, "runtime.") && f.File != "" {
			return fmt.Sprintf("%s:%d", inModule(f.File), f.Line)
		}
		if !more {
			return ""
		}
	}
}

// chapterFile finds a chapter's directory in a source path.
var chapterFile = regexp.MustCompile(`/(\d\d-[^/]+/.+)$`)

// inModule shortens a source path to where a learner finds it:
// "04-sequential-lock/seqlock/acquire.go", else its last two elements.
func inModule(file string) string {
	if m := chapterFile.FindStringSubmatch(file); m != nil {
		return m[1]
	}
	parts := strings.Split(file, "/")
	return strings.Join(parts[max(0, len(parts)-2):], "/")
}

// fail records the first panic and closes Failed.
func (w *World) fail(err error) {
	w.failOnce.Do(func() {
		w.failure = err
		close(w.failed)
	})
}

// Failed is closed when a scene's code panicked: the view must end.
func (w *World) Failed() <-chan struct{} { return w.failed }

// Err is the panic (a *PanicError) that closed Failed, or nil.
func (w *World) Err() error {
	select {
	case <-w.failed:
		return w.failure
	default:
		return nil
	}
}
