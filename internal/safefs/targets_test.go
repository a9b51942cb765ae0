//go:build unix

package safefs

import (
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/obaudit/obaudit/refusal"
	"golang.org/x/sys/unix"
)

func classOf(err error) refusal.Class { c, _ := refusal.ClassOf(err); return c }

// TestTargetsCheckEveryTargetFirst: one target that exists refuses the
// whole set before anything is written.
func TestTargetsCheckEveryTargetFirst(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "b"), []byte("old"), 0o600)
	os.Symlink("/etc/passwd", filepath.Join(dir, "c"))
	for _, c := range []struct {
		paths []string
		want  refusal.Class
	}{
		{[]string{filepath.Join(dir, "a"), filepath.Join(dir, "b")}, ErrExists.Class},
		{[]string{filepath.Join(dir, "a"), filepath.Join(dir, "c")}, ErrSymlink.Class},
		{[]string{filepath.Join(dir, "a"), filepath.Join(dir, "a")}, ErrBadPath.Class},
		{[]string{filepath.Join(dir, "b", "x")}, ErrNotDir.Class},
	} {
		_, err := CheckTargets(c.paths...)
		if got := classOf(err); got != c.want {
			t.Errorf("CheckTargets(%v) = %v, want %s", c.paths, err, c.want)
		}
		if _, err := os.Lstat(filepath.Join(dir, "a")); !os.IsNotExist(err) {
			t.Fatalf("a target was created by a refused check")
		}
	}
}

// TestTargetsAllOrNothing: a failure on the third write removes the two
// written before it.
func TestTargetsAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	paths := []string{filepath.Join(dir, "1"), filepath.Join(dir, "2"), filepath.Join(dir, "3")}
	writes := 0
	tg, err := CheckTargetsOps(Ops{Write: func(fd int, p []byte) (int, error) {
		writes++
		if writes == 3 {
			return 0, unix.ENOSPC
		}
		return unix.Write(fd, p)
	}}, paths...)
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	if err := tg.WriteAll([][]byte{[]byte("a"), []byte("b"), []byte("c")}, 0o600); err == nil {
		t.Fatal("WriteAll succeeded through a failing write")
	}
	for _, p := range paths {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("%s is left behind", p)
		}
	}
}

// TestOpenRegular: a FIFO without a writer, a device, a socket and a
// directory are refused by class, at once (no read, no hang); a regular
// file and a link to one are opened.
func TestOpenRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, p := range []string{fifo, "/dev/null", "/dev/zero", sock, dir} {
			if _, err := OpenRegular(p); classOf(err) != ErrNotRegular.Class {
				t.Errorf("OpenRegular(%s) = %v, want %s", p, err, ErrNotRegular.Class)
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("OpenRegular hung on a non-regular input")
	}
	reg := filepath.Join(dir, "reg")
	os.WriteFile(reg, []byte("x"), 0o600)
	os.Symlink(reg, filepath.Join(dir, "link"))
	for _, p := range []string{reg, filepath.Join(dir, "link")} {
		f, err := OpenRegular(p)
		if err != nil {
			t.Fatalf("OpenRegular(%s) = %v", p, err)
		}
		b := make([]byte, 2)
		if n, _ := f.Read(b); n != 1 {
			t.Errorf("read %d bytes from %s", n, p)
		}
		f.Close()
	}
}
