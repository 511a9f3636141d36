package tui

import "testing"

func TestQueueNamesDropTheProtectedPrefixAndTheSubdirectory(t *testing.T) {
	for name, want := range map[string]string{
		"_c_0123456789abcdef0123456789abcdef-lock-0000000012":            "lock-0000000012",
		"_c_7194872a-0cae-472b-9d4e-f7eb3e0786fd-lock-0000000000":        "lock-0000000000",
		"leases/_c_7194872a-0cae-472b-9d4e-f7eb3e0786fd-lease-000000075": "lease-000000075",
		"locks/_c_7194872a-0cae-472b-9d4e-f7eb3e0786fd-lock-0000000078":  "lock-0000000078",
		"lock": "lock",
	} {
		if got := shortNode(name); got != want {
			t.Errorf("shortNode(%q) = %q, want %q", name, got, want)
		}
	}
	if got := compactNode("leases/_c_7194872a-0cae-472b-9d4e-f7eb3e0786fd-lease-0000000075"); got != "lease-75" {
		t.Errorf("compactNode = %q, want lease-75", got)
	}
}
