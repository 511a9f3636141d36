package zkpath

import (
	"regexp"
	"strconv"
	"strings"
)

// SequenceDigits is how many digits ZooKeeper appends to a sequential
// node's name: lock-0000000007.
const SequenceDigits = 10

// SequenceOf reads the sequence number at the end of a sequential node's
// name (or path): its last ten characters, all ASCII digits. ok is false
// for a name that does not end that way.
func SequenceOf(name string) (seq int64, ok bool) {
	n := len(name) - SequenceDigits
	if n < 0 || strings.TrimLeft(name[n:], "0123456789") != "" {
		return 0, false
	}
	seq, err := strconv.ParseInt(name[n:], 10, 64)
	return seq, err == nil
}

// ProtectedPrefix matches the "_c_<GUID>-" that Curator, go-zookeeper's
// zk.Lock and seqlock put in front of a node's name, so that a client whose
// create reply was lost can find its node again.
var ProtectedPrefix = regexp.MustCompile(`^_c_[0-9a-f-]{32,36}-`)
