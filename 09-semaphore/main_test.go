package main

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/lockstep-zk/lockstep/internal/demo"
	"github.com/lockstep-zk/lockstep/internal/zktest"
)

func TestMain(m *testing.M) { zktest.Main(m) }

func TestDemo(t *testing.T) {
	t.Run("the run ends with leases=N max_seen=N and a revoked holder releasing", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		var out bytes.Buffer
		args := []string{"-servers", strings.Join(zktest.Servers(t), ","), "-workers", "5", "-leases", "2", "-rounds", "2", "-hold", "50ms"}
		if err := demo.Execute(ctx, program(), args, &out); err != nil {
			t.Fatalf("%v\n%s", err, out.String())
		}
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		if last := lines[len(lines)-1]; last != "leases=2 max_seen=2" {
			t.Errorf("last line %q, want leases=2 max_seen=2 (never more than 2, and both used)\n%s", last, out.String())
		}
		if !strings.Contains(out.String(), "was asked for its lease: releases it") {
			t.Errorf("the revocation part is missing:\n%s", out.String())
		}
	})
	t.Run("bad flags are errors before anything connects", func(t *testing.T) {
		for _, args := range [][]string{{"-leases", "0"}, {"-workers", "0"}, {"-rounds", "0"}, {"-hold", "-1s"}, {"-path", "relative"}} {
			var out bytes.Buffer
			err := demo.Execute(context.Background(), program(), append([]string{"-servers", "127.0.0.1:1"}, args...), &out)
			if err == nil || strings.Contains(fmt.Sprint(err), "connect") {
				t.Errorf("%v: err = %v, want a flag error before connecting", args, err)
			}
		}
	})
}
