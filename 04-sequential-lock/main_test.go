package main

import (
	"bytes"
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/lockstep-zk/lockstep/internal/demo"
	"github.com/lockstep-zk/lockstep/internal/zktest"
)

func TestMain(m *testing.M) { zktest.Main(m) }

var shopResult = regexp.MustCompile(`\nstock=(\d+) sold=(\d+) oversold=(\d+)\n$`)

func TestInventory(t *testing.T) {
	shop := func(t *testing.T, args ...string) (out string, stock, sold, oversold int) {
		t.Helper()
		var b bytes.Buffer
		args = append([]string{"-servers", strings.Join(zktest.Servers(t), ","), "-inventory", "-buyers", "200", "-stock", "50"}, args...)
		if err := demo.Execute(zktest.Context(t), chapter.Program(nil), args, &b); err != nil {
			t.Fatalf("%v\n%s", err, b.String())
		}
		m := shopResult.FindStringSubmatch(b.String())
		if m == nil {
			t.Fatalf("no stock=… sold=… oversold=… last line:\n%s", b.String())
		}
		stock, _ = strconv.Atoi(m[1])
		sold, _ = strconv.Atoi(m[2])
		oversold, _ = strconv.Atoi(m[3])
		return b.String(), stock, sold, oversold
	}
	t.Run("buyers on one session sell exactly the stock with the lock", func(t *testing.T) {
		out, stock, sold, oversold := shop(t)
		if stock != 0 || sold != 50 || oversold != 0 {
			t.Fatalf("stock=%d sold=%d oversold=%d, want 0 50 0:\n%s", stock, sold, oversold, out)
		}
		if strings.Contains(out, "counter=") {
			t.Fatalf("the workers ran too:\n%s", out)
		}
	})
	t.Run("without the lock buyers who read the same stock sell the same item: oversold", func(t *testing.T) {
		// 200 buyers read the stock at about the same time and each think
		// 1 ms before writing it back: without the lock many read the same
		// count.
		out, _, _, oversold := shop(t, "-nolock")
		if oversold == 0 {
			t.Fatalf("without the lock nothing was oversold:\n%s", out)
		}
	})
	t.Run("bad shop flags are errors before anything connects", func(t *testing.T) {
		for _, args := range [][]string{
			{"-inventory", "-buyers", "0"},
			{"-inventory", "-stock", "-1"},
		} {
			var out bytes.Buffer
			// Nothing listens on port 1: a connection attempt would fail
			// differently, and print the first line.
			err := demo.Execute(context.Background(), chapter.Program(nil), append([]string{"-servers", "127.0.0.1:1"}, args...), &out)
			if err == nil || out.Len() > 0 {
				t.Errorf("%q: err %v, printed %q", args, err, out.String())
			}
		}
	})
}
