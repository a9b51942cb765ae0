//go:build unix

package campaign

import "testing"

// TestLockDir: a second lock on a held directory fails at once; released,
// it can be taken again.
func TestLockDir(t *testing.T) {
	dir := t.TempDir()
	unlock, err := lockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lockDir(dir); err != errBusy {
		t.Fatalf("second lock = %v, want errBusy", err)
	}
	unlock()
	again, err := lockDir(dir)
	if err != nil {
		t.Fatalf("lock after unlock: %v", err)
	}
	again()
}
