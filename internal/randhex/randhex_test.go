package randhex

import (
	"regexp"
	"testing"
)

func TestUUIDIsARandomVersion4UUID(t *testing.T) {
	v4 := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	seen := map[string]bool{}
	for range 1000 {
		u := UUID()
		if !v4.MatchString(u) {
			t.Fatalf("UUID() = %q, not a version-4 UUID", u)
		}
		if seen[u] {
			t.Fatalf("UUID() returned %q twice", u)
		}
		seen[u] = true
	}
	if n := testing.AllocsPerRun(100, func() { UUID() }); n > 1 {
		t.Fatalf("UUID() allocates %v times, want at most 1", n)
	}
}
