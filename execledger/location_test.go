//go:build unix

package execledger_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/obaudit/obaudit/execledger"
	lt "github.com/obaudit/obaudit/execledger/ledgertest"
	"github.com/obaudit/obaudit/internal/safefs"
	"github.com/obaudit/obaudit/refusal"
	"golang.org/x/sys/unix"
)

// lowestFreeFD is the descriptor the next open would get: POSIX hands out
// the lowest free number, so a descriptor leaked in between raises it.
func lowestFreeFD(t *testing.T) int {
	t.Helper()
	fd, err := unix.Open("/dev/null", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	unix.Close(fd)
	return fd
}

// TestD1DirectorySwappedInsideCreate is spec §11.7 D1: inside the create
// call (after the no-follow walk and the 0700/owner check of the directory,
// immediately before the exclusive create), the validated directory is
// renamed away and its name replaced by a symbolic link to an attacker's
// 0700 directory. The result is either a refusal (ledger/location or
// fs/symlink) with no file anywhere, or the ledger in the validated
// directory; never a file in the attacker's.
func TestD1DirectorySwappedInsideCreate(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "evidence")
	validated := filepath.Join(base, "evidence.validated")
	attacker := filepath.Join(base, "attacker")
	for _, d := range []string{dir, attacker} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		os.Chmod(d, 0o700)
	}
	const name = "execution_ledger.ndjson"
	swaps := 0
	ops := safefs.Ops{Openat: func(dirfd int, path string, flags int, mode uint32) (int, error) {
		if swaps == 0 {
			if err := os.Rename(dir, validated); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(attacker, dir); err != nil {
				t.Fatal(err)
			}
		}
		swaps++
		return unix.Openat(dirfd, path, flags, mode)
	}}
	w, err := execledger.Create(filepath.Join(dir, name), lt.Header(), execledger.WriterOptions{Ops: ops})
	if swaps != 1 {
		t.Fatalf("the create passed the seam %d times, want once: the swap did not run inside it", swaps)
	}
	if got := lt.Entries(t, attacker); len(got) != 0 {
		t.Fatalf("the attacker's directory holds %v after the create (err %v)", got, err)
	}
	if err != nil {
		if c, _ := refusal.ClassOf(err); c != execledger.ErrLocation.Class && c != safefs.ErrSymlink.Class {
			t.Fatalf("Create = %v (class %q), want success in the validated directory, ledger/location or fs/symlink", err, c)
		}
		if got := lt.Entries(t, validated); len(got) != 0 {
			t.Fatalf("a refused create left %v in the validated directory", got)
		}
		return
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := lt.Entries(t, validated); len(got) != 1 || got[0] != name {
		t.Fatalf("the validated directory holds %v, want [%s]", got, name)
	}
	// The writer's header row went to the validated directory's file too.
	a, _ := readFile(t, filepath.Join(validated, name))
	if a.Terminal != nil || len(a.Calls) != 0 {
		t.Fatalf("the validated directory's ledger reads as terminal %v with %d calls, want the header alone", a.Terminal != nil, len(a.Calls))
	}
	if got := lt.Entries(t, attacker); len(got) != 0 {
		t.Fatalf("the attacker's directory holds %v after the header was written", got)
	}
}

// TestD2RootAnchorOpenFails is spec §11.7 D2: opening the root anchor ("/"
// for an absolute ledger path, "." for a relative one) fails with EACCES.
// Create returns an error whose cause is that OS error (a failure; if it is
// a refusal at all, ledger/location), no descriptor is leaked, and no file is
// created.
func TestD2RootAnchorOpenFails(t *testing.T) {
	for _, tc := range []struct {
		name, root string
		relative   bool
	}{
		{"absolute", "/", false},
		{"relative", ".", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := ledgerDir(t)
			path := filepath.Join(dir, "execution_ledger.ndjson")
			if tc.relative {
				t.Chdir(dir)
				path = "execution_ledger.ndjson"
			}
			var opened []string
			ops := safefs.Ops{Open: func(p string, flags int, mode uint32) (int, error) {
				opened = append(opened, p)
				return -1, unix.EACCES
			}}
			lt.Entries(t, dir) // any descriptor the runtime opens lazily, opened now
			before := lowestFreeFD(t)
			w, err := execledger.Create(path, lt.Header(), execledger.WriterOptions{Ops: ops})
			if err == nil {
				w.Close()
				t.Fatal("Create succeeded although the root anchor could not be opened")
			}
			if len(opened) != 1 || opened[0] != tc.root {
				t.Fatalf("root anchors opened through the seam: %q, want [%q]", opened, tc.root)
			}
			if !errors.Is(err, unix.EACCES) {
				t.Fatalf("Create = %v, whose cause is not the OS error EACCES", err)
			}
			if c, ok := refusal.ClassOf(err); ok && c != execledger.ErrLocation.Class {
				t.Fatalf("Create = %v, a refusal of class %q; want a failure or ledger/location", err, c)
			}
			if after := lowestFreeFD(t); after != before {
				t.Fatalf("lowest free descriptor %d after the failed create, %d before: a descriptor leaked", after, before)
			}
			if got := lt.Entries(t, dir); len(got) != 0 {
				t.Fatalf("the failed create left %v", got)
			}
		})
	}
}
