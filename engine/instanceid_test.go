package engine

import (
	"regexp"
	"strings"
	"testing"
)

// TestValidInstanceIDMatchesPattern holds the byte loop to the pattern it
// spells, ^opinst_[0-9a-f]{32}$, over edge cases and every one-byte change
// of a valid id.
func TestValidInstanceIDMatchesPattern(t *testing.T) {
	pattern := regexp.MustCompile(`^opinst_[0-9a-f]{32}$`)
	valid := "opinst_0123456789abcdef0123456789abcdef"
	cases := []string{
		"", "opinst_", valid, valid + "0", valid[:len(valid)-1], valid + "\n", "\n" + valid,
		strings.ToUpper(valid), "opinst_" + strings.Repeat("f", 32), "opinst_" + strings.Repeat("g", 32),
		"Opinst_" + strings.Repeat("0", 32), "opinst-" + strings.Repeat("0", 32), "opinst_" + strings.Repeat("é", 16),
	}
	for i := range valid {
		for _, c := range []byte{0, '/', '0', '9', ':', '@', 'A', 'F', '`', 'a', 'f', 'g', '_', 0x80, 0xff} {
			b := []byte(valid)
			b[i] = c
			cases = append(cases, string(b))
		}
	}
	for _, s := range cases {
		if got, want := ValidInstanceID(s), pattern.MatchString(s); got != want {
			t.Errorf("ValidInstanceID(%q) = %v, the pattern says %v", s, got, want)
		}
	}
	if !ValidInstanceID(valid) {
		t.Fatalf("ValidInstanceID(%q) = false", valid)
	}
}
