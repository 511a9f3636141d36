// Package zkpath checks znode paths before a lock uses them, so bad input
// is a clear error up front instead of a ZooKeeper error half-way through
// (or, worse, a node created somewhere unexpected).
package zkpath

import (
	"errors"
	"fmt"
	"strings"
)

// ErrInvalid is wrapped by every error Validate returns.
var ErrInvalid = errors.New("invalid znode path")

// Validate accepts absolute paths like /locks/orders: no trailing slash, no
// empty, "." or ".." element, no NUL or control characters, and not "/" itself.
func Validate(p string) error {
	bad := func(why string) error { return fmt.Errorf("%w %q: %s", ErrInvalid, p, why) }
	switch {
	case p == "":
		return bad("empty")
	case p[0] != '/':
		return bad("must start with /")
	case p == "/":
		return bad("the root cannot be a lock")
	case strings.HasSuffix(p, "/"):
		return bad("must not end with /")
	}
	for _, el := range strings.Split(p[1:], "/") {
		switch el {
		case "":
			return bad("empty element (//)")
		case ".", "..":
			return bad("relative element " + el)
		}
	}
	for _, r := range p {
		if r == 0 || (r > 0 && r < 0x20) || r == 0x7f || (r >= 0xd800 && r <= 0xf8ff) || r == 0xfff0 || r == 0xffff {
			return bad(fmt.Sprintf("character %U not allowed", r))
		}
	}
	return nil
}
