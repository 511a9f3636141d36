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

// UUID returns a random version-4 UUID (RFC 4122 variant), the 36
// characters "xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx" in lowercase hex. It
// is written out by hand, with one allocation, because every lock
// acquisition names its node with one (the protected prefix).
func UUID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40 // version 4
	b[8] = b[8]&0x3f | 0x80 // RFC 4122 variant
	var s [36]byte
	hex.Encode(s[0:8], b[0:4])
	s[8] = '-'
	hex.Encode(s[9:13], b[4:6])
	s[13] = '-'
	hex.Encode(s[14:18], b[6:8])
	s[18] = '-'
	hex.Encode(s[19:23], b[8:10])
	s[23] = '-'
	hex.Encode(s[24:36], b[10:16])
	return string(s[:])
}
