// Package randhex makes the random names lockstep gives its runs, roots and
// tokens.
package randhex

import (
	"crypto/rand"
	"encoding/hex"
)

// String returns n random bytes as 2n hex digits: "3fa9c1" for n = 3.
func String(n int) string {
	b := make([]byte, n)
	rand.Read(b) // never fails (crypto/rand's documentation)
	return hex.EncodeToString(b)
}
