package childproc_test

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/lockstep-zk/lockstep/internal/childproc"
)

const echoEnv = "LOCKSTEP_CHILDPROC_TEST"

type echoConfig struct {
	Greeting string `json:"greeting"`
}

type echoMsg struct {
	Said string `json:"said"`
}

// TestMain hands over to the child's part when the parent set echoEnv.
func TestMain(m *testing.M) {
	if cfg, ok, err := childproc.Config[echoConfig](echoEnv); ok {
		if err != nil {
			childproc.Say(echoMsg{Said: err.Error()})
			os.Exit(1)
		}
		fmt.Println("a library's log line, not a message")
		childproc.Say(echoMsg{Said: cfg.Greeting})
		in := bufio.NewScanner(os.Stdin)
		for in.Scan() {
			childproc.Say(echoMsg{Said: "heard " + in.Text()})
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestChild(t *testing.T) {
	t.Run("the child reads its config, answers in typed messages and hears lines on stdin", func(t *testing.T) {
		c := childproc.Start[echoMsg](t, echoEnv, echoConfig{Greeting: "hello"})
		if m := c.Next(t, 30*time.Second); m.Said != "hello" {
			t.Fatalf("first message %+v, want the greeting from its config", m)
		}
		if err := c.Send("GO"); err != nil {
			t.Fatal(err)
		}
		if m := c.Next(t, 30*time.Second); m.Said != "heard GO" {
			t.Fatalf("second message %+v, want it to have heard GO", m)
		}
	})
	t.Run("a config that does not decode is an error naming the variable", func(t *testing.T) {
		t.Setenv(echoEnv, `{"greeting": 42}`)
		_, ok, err := childproc.Config[echoConfig](echoEnv)
		if !ok || err == nil || !strings.Contains(err.Error(), echoEnv) {
			t.Fatalf("Config = ok %v, err %v; want ok and an error naming %s", ok, err, echoEnv)
		}
	})
	t.Run("in the parent there is no config", func(t *testing.T) {
		if _, ok, err := childproc.Config[echoConfig]("LOCKSTEP_CHILDPROC_UNSET"); ok || err != nil {
			t.Fatalf("Config = ok %v, err %v; want not ok, no error", ok, err)
		}
	})
}
