package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/lockstep-zk/lockstep/internal/znode"
	"github.com/lockstep-zk/lockstep/workshop/class/classroom"
)

// stop ends the class serve runs from the class directory, and with
// -forget removes what serving again would need.
func stop(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("stop", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", "lockstep-class", "the class directory serve keeps")
	forget := fs.Bool("forget", false, "also remove the class directory (code, admin secret, ZooKeeper's data with everyone's progress) and, on ZK_SERVERS, the class tree")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	st, err := readState(*dir)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("stop: no class directory %s: nothing to stop", *dir)
	}
	if err != nil {
		return err
	}
	summary, err := askStop(*dir, time.Minute)
	switch {
	case errors.Is(err, errNotServing):
		fmt.Fprintf(stdout, "no serve is running for %s\n", *dir)
	case err != nil:
		return err
	default:
		fmt.Fprint(stdout, summary)
	}
	if !*forget && summary != "" {
		return nil
	}
	if !*forget {
		fmt.Fprintf(stdout, "kept %s (class code, admin secret, everyone's progress): serve again with -dir %s, or remove it with stop -forget\n", keptWhat(st, *dir), *dir)
		return nil
	}
	if st.External {
		h, err := classroom.OpenHost(ctx, st.Servers, st.Root, st.AdminSecret)
		if err != nil {
			return fmt.Errorf("stop: remove the class tree from ZK_SERVERS: %w (the class directory is kept)", err)
		}
		err = znode.DeleteTree(h.Conn(), st.Root)
		h.Close()
		if err != nil {
			return fmt.Errorf("stop: remove the class tree %s from ZK_SERVERS: %w (the class directory is kept)", st.Root, err)
		}
		fmt.Fprintf(stdout, "removed the class tree %s from %v\n", st.Root, st.Servers)
	}
	if st.Data != "" && !within(st.Data, *dir) {
		if err := os.RemoveAll(st.Data); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "removed %s (ZooKeeper's data: everyone's progress)\n", st.Data)
	}
	if err := os.RemoveAll(*dir); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "removed %s (class code, admin secret, snapshot of everyone's progress%s)\n", *dir, map[bool]string{true: ", ZooKeeper's data", false: ""}[st.Data != "" && within(st.Data, *dir)])
	return nil
}

// keptWhat names what stop keeps: the class directory, and ZooKeeper's
// data if it lives elsewhere.
func keptWhat(st classState, dir string) string {
	if st.Data == "" || within(st.Data, dir) {
		return dir
	}
	return dir + " and " + st.Data
}

// within: path p is dir or under it.
func within(p, dir string) bool {
	ap, err1 := filepath.Abs(p)
	ad, err2 := filepath.Abs(dir)
	if err1 != nil || err2 != nil {
		return false
	}
	rel, err := filepath.Rel(ad, ap)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}
