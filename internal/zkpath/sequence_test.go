package zkpath

import (
	"slices"
	"testing"
)

func TestSequenceOfReadsOnlyTenTrailingDigits(t *testing.T) {
	cases := []struct {
		name string
		seq  int64
		ok   bool
	}{
		{"lock-0000000007", 7, true},
		{"_c_0f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b-lock-0000000012", 12, true},
		{"/locks/orders/lock-9999999999", 9999999999, true},
		{"0000000000", 0, true},
		{"lock-000000007", 0, false},  // nine digits
		{"lock-+000000007", 0, false}, // a sign is not a digit
		{"lock-000000000x", 0, false},
		{"counter", 0, false},
		{"", 0, false},
	}
	for _, c := range cases {
		seq, ok := SequenceOf(c.name)
		if seq != c.seq || ok != c.ok {
			t.Errorf("SequenceOf(%q) = %d, %v; want %d, %v", c.name, seq, ok, c.seq, c.ok)
		}
	}
}

func TestProtectedPrefixMatchesOnlyAtTheStart(t *testing.T) {
	name := "_c_0f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b-lock-0000000012"
	if got := ProtectedPrefix.ReplaceAllString(name, ""); got != "lock-0000000012" {
		t.Errorf("without the prefix: %q, want lock-0000000012", got)
	}
	if ProtectedPrefix.MatchString("lock-_c_0f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b-") {
		t.Error("matched a GUID that is not at the start")
	}
}

func TestQueueKeepsTheNamedContendersInSequenceOrder(t *testing.T) {
	children := []string{
		"_c_0f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b-write-0000000012",
		"counter",
		"_c_1f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b-lock-0000000003",
		"read-0000000007",
		"lock-000000009", // nine digits: not a sequential node
	}
	got := Queue(children, "read-", "write-")
	want := []string{"read-0000000007", "_c_0f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b-write-0000000012"}
	if !slices.Equal(got, want) {
		t.Errorf("Queue = %q, want %q", got, want)
	}
}
