// Package safefs creates evidence files beneath a named root without ever
// following a symbolic link, so that a path component renamed or replaced
// with a link between the check and the write cannot redirect the evidence.
//
// Every directory component is opened from the root with no-follow
// semantics: openat2 with RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS where the Linux
// kernel offers it, else a component-by-component O_DIRECTORY|O_NOFOLLOW
// walk. Files are created with O_EXCL|O_NOFOLLOW against the descriptor of
// the checked directory, never re-opened by name. [Dir.CreateFile] writes a
// whole file, fsyncs it and the directory, and on any failure removes what
// it created, so nothing partial is left. On Linux the bytes go to an
// unnamed file (O_TMPFILE) that is linked to its name, exclusively, only
// once they are whole and synced: even a process killed mid-write (SIGKILL,
// a lost machine) leaves no half-written file for a rerun to trip on.
// Elsewhere the name is created first. Hosts without these primitives
// fail closed ([ErrUnsupportedHost]) before touching the filesystem.
//
// # Refusals
//
//   - [ErrSymlink]: a path component or the file name is a symbolic link.
//   - [ErrExists]: the file already exists (it is never overwritten).
//   - [ErrBadPath]: an empty path, a NUL, a path naming a directory rather
//     than a file, or a ".." after a directory name (see [split]).
//   - [ErrNotDir]: a directory component is not a directory.
//   - [ErrUnsupportedHost]: the host lacks no-follow primitives.
//
// Other errors (permission denied, no space, I/O) are failures, not
// refusals.
package safefs

import (
	"github.com/obaudit/obaudit/refusal"
)

// Refusal classes.
var (
	// ErrSymlink is returned when a directory component or the file name is
	// a symbolic link (dangling or not).
	ErrSymlink = refusal.Sentinel("fs/symlink")
	// ErrExists is returned when the file to create already exists.
	ErrExists = refusal.Sentinel("fs/exists")
	// ErrBadPath is returned for an empty path, a NUL byte, a path that
	// names a directory (ends in "/", ".", ".."), or a ".." after a
	// directory name.
	ErrBadPath = refusal.Sentinel("fs/bad-path")
	// ErrNotDir is returned when a directory component is not a directory.
	ErrNotDir = refusal.Sentinel("fs/not-a-directory")
	// ErrUnsupportedHost is returned, before any filesystem access, on hosts
	// without no-follow directory primitives.
	ErrUnsupportedHost = refusal.Sentinel("fs/unsupported-host")
)

// Ops is the narrow seam between this package and the kernel, for fault
// injection in tests. A nil field means the real system call.
type Ops struct {
	// Write writes p to fd, as write(2).
	Write func(fd int, p []byte) (int, error)
	// Fsync flushes fd, as fsync(2).
	Fsync func(fd int) error
	// Open opens the root anchor ("/" or "."), as open(2): the one
	// component opened by name and followed (the operator's choice).
	Open func(path string, flags int, mode uint32) (int, error)
	// Openat creates the file beneath the held directory dirfd, as
	// openat(2). A test may change the filesystem inside it, before
	// calling the real openat, to race the create.
	Openat func(dirfd int, name string, flags int, mode uint32) (int, error)
}

// WriteFile creates path (relative to the working directory, or absolute
// from "/") with the given bytes and mode: every directory component is
// opened with no-follow semantics, the file is created exclusively, written
// whole, fsynced, and its directory fsynced. On any failure nothing is left
// at path.
func WriteFile(path string, data []byte, perm uint32) error {
	return WriteFileOps(path, data, perm, Ops{})
}

// WriteFileOps is WriteFile with an injected syscall seam.
func WriteFileOps(path string, data []byte, perm uint32, ops Ops) error {
	if !Supported {
		return refusal.New(ErrUnsupportedHost, "no no-follow directory primitives on this host")
	}
	root, dirs, name, err := split(path)
	if err != nil {
		return err
	}
	d, err := openDir(root, dirs, ops)
	if err != nil {
		return WithMkdirHint(err, perm)
	}
	defer d.Close()
	return d.CreateFile(name, data, perm)
}

// CreateAppendChecked creates path exclusively (as [WriteFile] does for its
// directory walk) and returns it open for appending, with its directory
// held open so durability of the entry can be forced. check, when not nil,
// runs on the held directory (reached by the no-follow walk) before the
// exclusive create: a property check there ([Dir.Stat]) judges the very
// directory the file will be created in, which a directory swapped in after
// a check by name would not be. An error from check is returned as it is and
// nothing is created.
func CreateAppendChecked(path string, perm uint32, ops Ops, check func(*Dir) error) (*File, error) {
	if !Supported {
		return nil, refusal.New(ErrUnsupportedHost, "no no-follow directory primitives on this host")
	}
	root, dirs, name, err := split(path)
	if err != nil {
		return nil, err
	}
	d, err := openDir(root, dirs, ops)
	if err != nil {
		return nil, WithMkdirHint(err, perm)
	}
	if check != nil {
		if err := check(d); err != nil {
			d.Close()
			return nil, err
		}
	}
	f, err := d.CreateAppend(name, perm)
	if err != nil {
		d.Close()
		return nil, err
	}
	f.dir = d
	return f, nil
}
