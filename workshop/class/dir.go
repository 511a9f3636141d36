package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/lockstep-zk/lockstep/workshop/class/classroom"
)

// The class directory is the host's to keep: what serving again needs to
// give the same class (code, admin secret, the room's ports) and a
// snapshot of everyone's progress.
const (
	classFile    = "class.json"
	snapshotFile = "snapshot.json"
)

// classState is class.json (mode 0600: it holds the admin secret).
type classState struct {
	Name        string    `json:"name"`
	Root        string    `json:"root"`
	Code        string    `json:"code"`
	AdminSecret string    `json:"admin_secret"`
	Addr        string    `json:"addr"`               // the address serve binds for the room
	Ports       []int     `json:"ports,omitempty"`    // the room's ports, one per member
	Data        string    `json:"data,omitempty"`     // ZooKeeper's data directory, kept across serves
	External    bool      `json:"external,omitempty"` // ZK_SERVERS: nothing started
	Servers     []string  `json:"servers,omitempty"`  // where the host's own sessions connect
	JoinServers []string  `json:"join_servers,omitempty"`
	Started     time.Time `json:"started,omitzero"`
}

func (s classState) joinLine() string {
	return classroom.JoinLine{Servers: s.JoinServers, Root: s.Root, Code: s.Code}.String()
}

func readState(dir string) (classState, error) {
	var s classState
	b, err := os.ReadFile(filepath.Join(dir, classFile))
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fmt.Errorf("%s: %w", filepath.Join(dir, classFile), err)
	}
	return s, nil
}

func writeFile(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func writeState(dir string, s classState) error {
	return writeFile(filepath.Join(dir, classFile), s)
}

func readSnapshot(dir string) (classroom.Snapshot, bool, error) {
	var s classroom.Snapshot
	b, err := os.ReadFile(filepath.Join(dir, snapshotFile))
	if errors.Is(err, os.ErrNotExist) {
		return s, false, nil
	}
	if err != nil {
		return s, false, err
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, false, fmt.Errorf("%s: %w", filepath.Join(dir, snapshotFile), err)
	}
	return s, true, nil
}
