package rwlock

import (
	"crypto/rand"
	"fmt"
	"strconv"
	"strings"
)

// Curator's names, so a Java InterProcessReadWriteLock can share the
// directory. Curator depends on both markers having the same length.
const (
	readMarker  = "__READ__"
	writeMarker = "__WRIT__"
	seqDigits   = 10 // ZooKeeper appends %010d to a sequential node's name
)

// protectedPrefix is Curator's "protection" for a create: "_c_", a random
// UUID in its canonical 8-4-4-4-12 form, "-". If the connection drops while
// the create is on its way, we can find out whether it happened by looking
// for a child with this prefix.
func protectedPrefix() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40 // version 4
	b[8] = b[8]&0x3f | 0x80 // RFC 4122 variant
	return fmt.Sprintf("_c_%x-%x-%x-%x-%x-", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// contender is one node in the lock directory.
type contender struct {
	name  string
	write bool
	seq   int64
}

// queueOf is step 2 of 05-rwlock/README.md: turn the directory's children
// into the queue of contenders, ordered by sequence number. parseNode reads
// a name (ok == false: not a lock node, skip it). The protected prefixes
// are random, so only the sequence suffix orders nodes.
func queueOf(children []string) []contender {
	panic("TODO(workshop): parse each child (parseNode), keep the lock nodes, sort them by sequence number — step 2 of 05-rwlock/README.md")
}

func parseNode(name string) (contender, bool) {
	n := len(name) - seqDigits
	if n < len(readMarker) {
		return contender{}, false
	}
	seq, err := strconv.ParseInt(name[n:], 10, 64)
	if err != nil || seq < 0 {
		return contender{}, false
	}
	switch marker := name[n-len(readMarker) : n]; {
	case marker == writeMarker:
		return contender{name, true, seq}, true
	case marker == readMarker:
		return contender{name, false, seq}, true
	}
	return contender{}, false
}

// tokenOf is a held node's token: the sequence number ZooKeeper gave it,
// plus one, so that the first holder of a directory gets 1 and 0 can mean
// "nothing held".
func tokenOf(node string) int64 {
	c, _ := parseNode(node[strings.LastIndexByte(node, '/')+1:])
	return c.seq + 1
}
