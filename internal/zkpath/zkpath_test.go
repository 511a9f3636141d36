package zkpath

import (
	"errors"
	"testing"
)

func TestValidate(t *testing.T) {
	good := []string{"/a", "/locks/orders", "/a.b/c-d_e", "/ünïcode"}
	bad := []string{"", "a", "a/b", "/", "/a/", "/a//b", "/a/./b", "/a/../b", "/a\x00b", "/a\nb"}
	for _, p := range good {
		if err := Validate(p); err != nil {
			t.Errorf("Validate(%q) = %v, want nil", p, err)
		}
	}
	for _, p := range bad {
		if err := Validate(p); !errors.Is(err, ErrInvalid) {
			t.Errorf("Validate(%q) = %v, want ErrInvalid", p, err)
		}
	}
}
