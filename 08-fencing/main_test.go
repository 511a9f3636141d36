package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lockstep-zk/lockstep/08-fencing/fencing"
	"github.com/lockstep-zk/lockstep/internal/demo"
	"github.com/lockstep-zk/lockstep/internal/zktest"
)

func TestMain(m *testing.M) { zktest.Main(m) }

func TestDemo(t *testing.T) {
	t.Run("the unfenced write corrupts, the token store and the multi refuse it", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		var out bytes.Buffer
		var verdicts []verdict
		p := program
		p.Run = func(ctx context.Context, env *demo.Env) (err error) {
			verdicts, err = run(ctx, env)
			return err
		}
		err := demo.Execute(ctx, p, []string{"-servers", strings.Join(zktest.Servers(t), ","), "-session", "1s"}, &out)
		t.Log("\n" + out.String())
		if err != nil {
			t.Fatal(err)
		}
		if len(verdicts) != 3 {
			t.Fatalf("%d verdicts, want 3", len(verdicts))
		}
		if v := verdicts[0]; !v.Corrupted || v.StaleWriteErr != nil {
			t.Errorf("no fencing: %+v, want the stale write to land", v)
		}
		if v := verdicts[1]; !v.Refused || !errors.Is(v.StaleWriteErr, fencing.ErrStaleToken) {
			t.Errorf("token store: %+v, want ErrStaleToken", v)
		}
		if v := verdicts[2]; !v.Refused || !errors.Is(v.StaleWriteErr, fencing.ErrNotHeld) {
			t.Errorf("multi: %+v, want ErrNotHeld", v)
		}
		if n := strings.Count(out.String(), "verdict: CORRUPTED"); n != 1 {
			t.Errorf("%d CORRUPTED verdicts printed, want 1", n)
		}
		if n := strings.Count(out.String(), "verdict: SAFE"); n != 2 {
			t.Errorf("%d SAFE verdicts printed, want 2", n)
		}
	})
	t.Run("bad flags are errors before anything connects", func(t *testing.T) {
		for _, args := range [][]string{
			{"-session", "0s"},
			{"-path", "relative"},
			{"-path", "/"},
		} {
			var out bytes.Buffer
			err := demo.Execute(context.Background(), program, append([]string{"-servers", "127.0.0.1:1"}, args...), &out)
			if err == nil {
				t.Errorf("%q: no error", args)
			}
			if out.Len() > 0 {
				t.Errorf("%q: printed %q before the error: it should not have got that far", args, out.String())
			}
		}
	})
}
