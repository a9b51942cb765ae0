//go:build linux

package artefact

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/obaudit/obaudit/internal/safefs"
	"github.com/obaudit/obaudit/refusal"
	"golang.org/x/sys/unix"
)

// fsImmutableFL is FS_IMMUTABLE_FL from linux/fs.h.
const fsImmutableFL = 0x10

var payload = []byte("{\"artifact_version\":8}\n")

// absent asserts that nothing exists at path (not even a dangling link).
func absent(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("%s exists after a refused or failed write (lstat: %v)", path, err)
	}
}

func unchanged(t *testing.T, path string, want []byte) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("%s changed: %q, %v", path, got, err)
	}
}

func TestWriteFileCreatesOnceWithMode0600(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.json")
	if err := WriteFile(p, payload); err != nil {
		t.Fatalf("WriteFile = %v", err)
	}
	unchanged(t, p, payload)
	st, err := os.Stat(p)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("mode = %v, %v; want 0600", st.Mode(), err)
	}
	// Write once: a second write is refused and the first bytes stay.
	if err := WriteFile(p, []byte("{}\n")); refusal.Of(err) != safefs.ErrExists.Class {
		t.Fatalf("second WriteFile = %v, want %s", err, safefs.ErrExists.Class)
	}
	unchanged(t, p, payload)
}

func TestWriteFileRefusesSymlinkedDirectory(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	if err := os.Mkdir(real, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	err := WriteFile(filepath.Join(dir, "link", "a.json"), payload)
	if refusal.Of(err) != safefs.ErrSymlink.Class {
		t.Fatalf("WriteFile through a symlinked directory = %v, want %s", err, safefs.ErrSymlink.Class)
	}
	absent(t, filepath.Join(real, "a.json"))
}

func TestWriteFileRefusesSymlinkAtName(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target.json")
	if err := os.WriteFile(target, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "a.json")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(link, payload); refusal.Of(err) != safefs.ErrSymlink.Class {
		t.Fatalf("WriteFile onto a symlink = %v, want %s", err, safefs.ErrSymlink.Class)
	}
	unchanged(t, target, []byte("keep"))

	// A dangling link is refused too, and its target is never created.
	missing := filepath.Join(dir, "missing.json")
	dangling := filepath.Join(dir, "b.json")
	if err := os.Symlink(missing, dangling); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(dangling, payload); refusal.Of(err) != safefs.ErrSymlink.Class {
		t.Fatalf("WriteFile onto a dangling symlink = %v, want %s", err, safefs.ErrSymlink.Class)
	}
	absent(t, missing)
}

func TestWriteFileRefusesExistingFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.json")
	if err := os.WriteFile(p, []byte("earlier run"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(p, payload); refusal.Of(err) != safefs.ErrExists.Class {
		t.Fatalf("WriteFile over an existing file = %v, want %s", err, safefs.ErrExists.Class)
	}
	unchanged(t, p, []byte("earlier run"))
}

// readOnly makes dir refuse new entries: mode 0555 for an ordinary user,
// and (because root ignores mode bits) the immutable inode flag for root.
func readOnly(t *testing.T, dir string) {
	t.Helper()
	if os.Geteuid() != 0 {
		if err := os.Chmod(dir, 0o555); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(dir, 0o700) })
		return
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	flags, err := unix.IoctlGetUint32(fd, unix.FS_IOC_GETFLAGS)
	if err == nil {
		err = unix.IoctlSetPointerInt(fd, unix.FS_IOC_SETFLAGS, int(flags|fsImmutableFL))
	}
	if err != nil {
		t.Skipf("running as root on a filesystem without the immutable flag (%v): cannot make a directory read-only for root", err)
	}
	t.Cleanup(func() {
		fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
		if err == nil {
			unix.IoctlSetPointerInt(fd, unix.FS_IOC_SETFLAGS, int(flags))
			unix.Close(fd)
		}
	})
}

func TestWriteFileReadOnlyDirectoryLeavesNothing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ro")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	readOnly(t, dir)
	p := filepath.Join(dir, "a.json")
	err := WriteFile(p, payload)
	if err == nil {
		t.Fatal("WriteFile into a read-only directory succeeded")
	}
	if !errors.Is(err, fs.ErrPermission) {
		t.Fatalf("WriteFile into a read-only directory = %v, want a permission failure", err)
	}
	if c, ok := refusal.ClassOf(err); ok {
		t.Fatalf("a permission failure carries refusal class %q; it is a failure, not a refusal", c)
	}
	absent(t, p)
}

func TestWriteFileFailingMidwayLeavesNothing(t *testing.T) {
	big := bytes.Repeat([]byte("x"), 1<<20)
	for _, tc := range []struct {
		name string
		ops  safefs.Ops
	}{
		{"write-fails-after-half", safefs.Ops{Write: func() func(int, []byte) (int, error) {
			written := 0
			return func(fd int, p []byte) (int, error) {
				if written >= len(big)/2 {
					return 0, unix.EIO
				}
				n := min(len(p), 4096)
				n, err := unix.Write(fd, p[:n])
				written += n
				return n, err
			}
		}()}},
		{"write-makes-no-progress", safefs.Ops{Write: func(int, []byte) (int, error) { return 0, nil }}},
		{"disk-full", safefs.Ops{Write: func(int, []byte) (int, error) { return 0, unix.ENOSPC }}},
		{"file-fsync-fails", safefs.Ops{Fsync: func() func(int) error {
			calls := 0
			return func(fd int) error {
				calls++
				if calls == 1 {
					return unix.EIO
				}
				return unix.Fsync(fd)
			}
		}()}},
		{"directory-fsync-fails", safefs.Ops{Fsync: func() func(int) error {
			calls := 0
			return func(fd int) error {
				calls++
				if calls == 2 {
					return unix.EIO
				}
				return unix.Fsync(fd)
			}
		}()}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "a.json")
			if err := safefs.WriteFileOps(p, big, FileMode, tc.ops); err == nil {
				t.Fatal("WriteFileOps succeeded under an injected fault")
			}
			absent(t, p)
		})
	}
}

func TestWriteFileRefusesBadPaths(t *testing.T) {
	dir := t.TempDir()
	// ("./" and leading "../" are resolved, safefs.split: not bad paths.)
	for _, p := range []string{"", dir + "/../a.json", dir + "/.", dir + "/a\x00.json", dir + "/"} {
		if err := WriteFile(p, payload); refusal.Of(err) != safefs.ErrBadPath.Class {
			t.Errorf("WriteFile(%q) = %v, want %s", p, err, safefs.ErrBadPath.Class)
		}
	}
}
