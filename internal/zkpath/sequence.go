package zkpath

import (
	"regexp"
	"slices"
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

// Queue is a lock directory's listing as a queue: the names that end in
// one of names followed by a sequence number (lock-0000000007), lowest
// sequence first. Other children are left out, as Curator and zk.Lock
// leave them out. The protection prefix is random, so only the sequence
// gives the order. seqlock's core reads its queue this way, and so does
// 07's Leader, which lists the directory itself to set a children watch.
func Queue(children []string, names ...string) []string {
	queue := make([]string, 0, len(children))
	for _, c := range children {
		if _, ok := SequenceOf(c); ok && slices.ContainsFunc(names, func(n string) bool { return strings.HasSuffix(c[:len(c)-SequenceDigits], n) }) {
			queue = append(queue, c)
		}
	}
	slices.SortFunc(queue, func(a, b string) int { return strings.Compare(a[len(a)-SequenceDigits:], b[len(b)-SequenceDigits:]) })
	return queue
}
