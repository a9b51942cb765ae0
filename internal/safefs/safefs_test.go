//go:build unix

package safefs

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/obaudit/obaudit/internal/refusaltest"
	"github.com/obaudit/obaudit/refusal"
)

func chdir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Chdir(dir)
	return dir
}

// absent fails the test unless nothing (not even a dangling link) is at
// path after what.
func absent(t *testing.T, path, what string) {
	t.Helper()
	if _, err := os.Lstat(path); !os.IsNotExist(err) {
		t.Fatalf("%s left %s (Lstat: %v)", what, path, err)
	}
}

func TestWriteFileCreatesWholeFile(t *testing.T) {
	chdir(t)
	if err := os.MkdirAll("a/b", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile("a/b/x.json", []byte("{}\n"), 0o644); err != nil {
		t.Fatalf("WriteFile = %v", err)
	}
	got, err := os.ReadFile("a/b/x.json")
	if err != nil || string(got) != "{}\n" {
		t.Fatalf("read back %q, %v", got, err)
	}
	abs, _ := filepath.Abs("a/b/y.json")
	if err := WriteFile(abs, []byte("1"), 0o600); err != nil {
		t.Fatalf("WriteFile(abs) = %v", err)
	}
}

func TestRefusals(t *testing.T) {
	dir := chdir(t)
	os.MkdirAll("real", 0o755)
	os.Symlink("real", "link")
	os.Symlink(filepath.Join(dir, "real", "target"), "real/leaflink")
	os.WriteFile("real/existing", []byte("keep"), 0o644)
	os.WriteFile("plainfile", []byte("x"), 0o644)
	for _, tc := range []struct {
		name, path string
		want       *refusal.Refusal
	}{
		{"symlinked directory component", "link/x.json", ErrSymlink},
		{"symlink at the file name", "real/leaflink", ErrSymlink},
		{"existing file", "real/existing", ErrExists},
		{"dot-dot component", "real/../x.json", ErrBadPath},
		{"empty path", "", ErrBadPath},
		{"file as directory", "plainfile/x.json", ErrNotDir},
	} {
		t.Run(tc.name, func(t *testing.T) {
			refusaltest.Want(t, WriteFile(tc.path, []byte("new"), 0o644), tc.want)
		})
	}
	if b, _ := os.ReadFile("real/existing"); string(b) != "keep" {
		t.Errorf("existing file changed to %q", b)
	}
	absent(t, "real/target", "a write through the leaf link")
}

func TestReadOnlyDirectoryLeavesNothing(t *testing.T) {
	if os.Geteuid() == 0 {
		// root bypasses directory permissions; the failure path is covered
		// by the injected write failure below.
		t.Log("running as root: permission bits do not bind; checking that the write still succeeds or fails cleanly")
	}
	chdir(t)
	os.MkdirAll("ro", 0o555)
	err := WriteFile("ro/x.json", []byte("data"), 0o644)
	if err == nil {
		if os.Geteuid() != 0 {
			t.Fatal("WriteFile into a read-only directory succeeded")
		}
		return
	}
	absent(t, "ro/x.json", "WriteFile = "+err.Error())
}

func TestFailedWriteMidwayLeavesNothing(t *testing.T) {
	chdir(t)
	calls := 0
	ops := Ops{Write: func(fd int, p []byte) (int, error) {
		calls++
		if calls == 1 {
			return unix.Write(fd, p[:len(p)/2]) // short write
		}
		return 0, unix.ENOSPC
	}}
	err := WriteFileOps("x.json", []byte("0123456789"), 0o644, ops)
	if !errors.Is(err, unix.ENOSPC) {
		t.Fatalf("err = %v, want ENOSPC", err)
	}
	if _, ok := refusal.ClassOf(err); ok {
		t.Fatalf("a write failure must not carry a refusal class: %v", err)
	}
	absent(t, "x.json", "a write failed midway")
}

func TestFailedFsyncLeavesNothing(t *testing.T) {
	chdir(t)
	ops := Ops{Fsync: func(fd int) error { return unix.EIO }}
	if err := WriteFileOps("x.json", []byte("data"), 0o644, ops); !errors.Is(err, unix.EIO) {
		t.Fatalf("err = %v, want EIO", err)
	}
	absent(t, "x.json", "a failed fsync")
}

func TestShortWritesAndInterruptionsAreLooped(t *testing.T) {
	chdir(t)
	n := 0
	ops := Ops{Write: func(fd int, p []byte) (int, error) {
		n++
		if n%2 == 0 {
			return 0, unix.EINTR
		}
		return unix.Write(fd, p[:1])
	}}
	if err := WriteFileOps("x.json", []byte("abcdef"), 0o644, ops); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile("x.json"); string(b) != "abcdef" {
		t.Fatalf("got %q", b)
	}
}

func TestAppendTruncate(t *testing.T) {
	chdir(t)
	f, err := CreateAppendChecked("ledger.ndjson", 0o644, Ops{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.WriteAll([]byte("row1\n")); err != nil {
		t.Fatal(err)
	}
	if err := f.WriteAll([]byte("partial")); err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(5); err != nil {
		t.Fatal(err)
	}
	if err := f.WriteAll([]byte("row2\n")); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile("ledger.ndjson"); string(b) != "row1\nrow2\n" {
		t.Fatalf("got %q", b)
	}
	if _, err := CreateAppendChecked("ledger.ndjson", 0o644, Ops{}, nil); refusal.Of(err) != ErrExists.Class {
		t.Fatalf("second CreateAppendChecked = %v, want %s", err, ErrExists.Class)
	}
}

func TestWalkFallbackRefusesSymlink(t *testing.T) {
	dir := chdir(t)
	os.MkdirAll("a/real", 0o755)
	os.Symlink("real", "a/link")
	rfd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(rfd)
	if _, err := walk(rfd, []string{"a", "link"}, ""); refusal.Of(err) != ErrSymlink.Class {
		t.Fatalf("walk = %v, want %s", err, ErrSymlink.Class)
	}
	fd, err := walk(rfd, []string{"a", "real"}, "")
	if err != nil {
		t.Fatal(err)
	}
	unix.Close(fd)
}

// TestCheckedCreateJudgesTheHeldDirectory: the check sees the descriptor of
// the directory the file is created in (its mode, owner and inode), even
// after the path has been made to name another directory; a refusing check
// creates nothing; File.Dir reaches the same descriptor.
func TestCheckedCreateJudgesTheHeldDirectory(t *testing.T) {
	chdir(t)
	os.Mkdir("d", 0o700)
	os.Chmod("d", 0o700)
	var before unix.Stat_t
	if err := unix.Stat("d", &before); err != nil {
		t.Fatal(err)
	}
	var seen unix.Stat_t
	f, err := CreateAppendChecked("d/j.ndjson", 0o600, Ops{}, func(d *Dir) error {
		// Swap the path to another directory after the walk: the held
		// descriptor still names the original.
		if err := os.Rename("d", "d.orig"); err != nil {
			return err
		}
		if err := os.Mkdir("d", 0o755); err != nil {
			return err
		}
		st, err := d.Stat()
		seen = st
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if seen.Ino != before.Ino || seen.Dev != before.Dev || seen.Mode&0o777 != 0o700 || seen.Mode&unix.S_IFMT != unix.S_IFDIR {
		t.Fatalf("check saw inode %d mode %o, want the held directory (inode %d, 0700)", seen.Ino, seen.Mode, before.Ino)
	}
	if _, err := os.Lstat("d.orig/j.ndjson"); err != nil {
		t.Fatalf("the file was not created in the held directory: %v", err)
	}
	absent(t, "d/j.ndjson", "the create, in the swapped-in directory")
	st, err := f.Dir().Stat()
	if err != nil || st.Ino != before.Ino {
		t.Fatalf("File.Dir().Stat() = inode %d, %v; want %d", st.Ino, err, before.Ino)
	}

	refused := errors.New("refused by the check")
	if _, err := CreateAppendChecked("d.orig/k.ndjson", 0o600, Ops{}, func(*Dir) error { return refused }); err != refused {
		t.Fatalf("CreateAppendChecked = %v, want the check's error", err)
	}
	absent(t, "d.orig/k.ndjson", "a refused check")
}

// TestRelativePaths: a relative path that resolves without a symbolic link
// is accepted ("./x", "../x", "a//b/./x"); a link beneath a ".." anchor is
// still refused, and a ".." after a name or a directory-naming path are
// bad paths.
func TestRelativePaths(t *testing.T) {
	dir := chdir(t)
	os.MkdirAll("work/sub", 0o755)
	os.MkdirAll("real", 0o755)
	os.Symlink("real", "link")
	t.Chdir(filepath.Join(dir, "work", "sub"))
	for _, p := range []string{"./a.json", "../b.json", "../../c.json", "./../../real/d.json", ".//e.json", "../../real/./f.json"} {
		if err := WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Errorf("WriteFile(%q) = %v", p, err)
		}
	}
	for _, want := range []string{"work/sub/a.json", "work/b.json", "c.json", "real/d.json", "work/sub/e.json", "real/f.json"} {
		if _, err := os.Lstat(filepath.Join(dir, want)); err != nil {
			t.Errorf("%s not written: %v", want, err)
		}
	}
	for _, tc := range []struct {
		path string
		want *refusal.Refusal
	}{
		{"../../link/x.json", ErrSymlink},
		{"../../link", ErrSymlink},
		{"../sub/../x.json", ErrBadPath},
		{"./", ErrBadPath},
		{"..", ErrBadPath},
		{"../", ErrBadPath},
		{"../sub/.", ErrBadPath},
		{"./a.json", ErrExists},
	} {
		t.Run(tc.path, func(t *testing.T) { refusaltest.Want(t, WriteFile(tc.path, []byte("new"), 0o644), tc.want) })
	}
	absent(t, filepath.Join(dir, "real", "x.json"), "a write through the link")
}

// TestMissingDirectory: a missing directory component is a failure (not a
// refusal) that still reads as "not exist", and says how to make the
// directory, with mode 0700 for a private file.
func TestMissingDirectory(t *testing.T) {
	chdir(t)
	for _, tc := range []struct {
		perm uint32
		hint string
	}{{0o600, "mkdir -m 0700 nodir"}, {0o644, "mkdir -p nodir"}} {
		err := WriteFile("nodir/x.json", []byte("x"), tc.perm)
		if _, ok := refusal.ClassOf(err); ok || !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("WriteFile into a missing directory = %v, want a not-exist failure", err)
		}
		var m *missingDirError
		if !errors.As(err, &m) || m.hint != tc.hint {
			t.Errorf("perm %o: hint %+v, want %q", tc.perm, m, tc.hint)
		}
	}
	if _, err := CreateAppendChecked("nodir/j.ndjson", 0o600, Ops{}, nil); !errors.As(err, new(*missingDirError)) {
		t.Errorf("CreateAppendChecked into a missing directory = %v", err)
	}
}
