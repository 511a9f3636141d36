package jvm

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestMissingSaysWhatToInstall(t *testing.T) {
	t.Run("without Java the reason names the JDK package, on one line", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir())
		t.Setenv("JAVA_HOME", "")
		got := Missing(CuratorClasspath)
		if !strings.HasPrefix(got, "no java in PATH") || !strings.Contains(got, "default-jdk-headless") || strings.Contains(got, "\n") {
			t.Fatalf("reason %q, want one line naming java and the package", got)
		}
	})
	t.Run("without the jars the reason names the missing jar and Curator's package", func(t *testing.T) {
		if _, _, err := Tools(); err != nil {
			t.Skip(err)
		}
		got := Missing("/nonexistent/curator-recipes.jar")
		if !strings.Contains(got, "/nonexistent/curator-recipes.jar") || !strings.Contains(got, "libcurator-recipes-java") {
			t.Fatalf("reason %q, want the jar and the package", got)
		}
	})
}

// echo is the smallest program Process can talk to: it answers each line
// "echo <line>" and exits at the end of its input.
const echo = `
import java.io.*;

public final class Echo {
    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        System.out.println("hello " + args[0]);
        for (String line; (line = in.readLine()) != null; ) {
            System.out.println(line.startsWith("fail") ? "error " + line : "echo " + line);
        }
    }
}
`

func TestAProgramIsCompiledAndTalkedToLineByLine(t *testing.T) {
	if _, _, err := Tools(); err != nil {
		t.Skip(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	prog, err := Compile(ctx, t.TempDir(), "Echo", []byte(echo)) // an empty directory is a valid class path
	if err != nil {
		t.Fatal(err)
	}
	defer prog.Remove()
	p, err := prog.Start("echo", "world")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if got, err := p.Expect(ctx, "hello", time.Minute); err != nil || got != "world" {
		t.Fatalf("first line: %q, %v; want hello world", got, err)
	}
	if got, err := p.Step(ctx, "one two", "echo", time.Minute); err != nil || got != "one two" {
		t.Fatalf("step: %q, %v; want the line back", got, err)
	}
	if _, err := p.Step(ctx, "fail now", "echo", time.Minute); err == nil || !strings.Contains(err.Error(), "fail now") {
		t.Fatalf("an error line came back as %v", err)
	}
}
