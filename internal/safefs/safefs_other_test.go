//go:build !unix

package safefs

import (
	"testing"

	"github.com/obaudit/obaudit/refusal"
)

// TestUnsupportedHostFailsClosed: without no-follow primitives every write
// is refused before any filesystem access.
func TestUnsupportedHostFailsClosed(t *testing.T) {
	if _, err := openDir(t.TempDir(), nil, Ops{}); refusal.Of(err) != ErrUnsupportedHost.Class {
		t.Errorf("openDir = %v, want %s", err, ErrUnsupportedHost.Class)
	}
	var d Dir
	if err := d.CreateFile("x", nil, 0o600); refusal.Of(err) != ErrUnsupportedHost.Class {
		t.Errorf("CreateFile = %v, want %s", err, ErrUnsupportedHost.Class)
	}
}
