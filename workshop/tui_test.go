package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestAReplayThatSaysWhereItBrokeComesFirst(t *testing.T) {
	dir := t.TempDir()
	write := func(name, header string) string {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, []byte(header+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}
	unmarked := write("TestA.events.jsonl", `{"test":"TestA","chapter":"04","broke_at":-1,"why":""}`)
	marked := write("TestQueue.events.jsonl", `{"test":"TestQueue","chapter":"04","broke_at":0,"why":"release 1 woke 5 waiters"}`+"\n"+`{"Kind":"info","Detail":"x"}`)
	files := []string{unmarked, marked}
	sortReplays(files)
	if want := []string{marked, unmarked}; !slices.Equal(files, want) {
		t.Fatalf("sortReplays = %v, want the marked recording first: %v", files, want)
	}
}
