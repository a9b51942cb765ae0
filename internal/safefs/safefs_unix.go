//go:build unix

package safefs

import (
	"errors"
	"fmt"
	"strings"

	"github.com/obaudit/obaudit/refusal"
	"golang.org/x/sys/unix"
)

// Supported reports whether this host has the no-follow primitives.
const Supported = true

// Dir is an open directory reached without following links.
type Dir struct {
	fd   int
	path string // the directory as shown in messages ("/tmp/w", "out", ".")
	pre  string // what precedes a file name in messages ("/tmp/w/", "out/", "")
	ops  Ops
}

// show is name in d as messages show it.
func (d *Dir) show(name string) string { return d.pre + name }

// openDir opens root (followed as named: it is the operator's choice) and
// then each component of dirs beneath it with no-follow semantics. The
// returned Dir keeps the seam ops.
func openDir(root string, dirs []string, ops Ops) (*Dir, error) {
	for _, c := range dirs {
		if c == "" || c == "." || c == ".." || strings.ContainsAny(c, "/\x00") {
			return nil, refusal.New(ErrBadPath, "component %q is not allowed", c)
		}
	}
	open := unix.Open
	if ops.Open != nil {
		open = ops.Open
	}
	rfd, err := open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", root, err)
	}
	pre := prefixOf(root)
	if len(dirs) == 0 {
		return &Dir{fd: rfd, path: root, pre: pre, ops: ops}, nil
	}
	path := pre + strings.Join(dirs, "/")
	fd, err := openBeneath(rfd, dirs, pre)
	if err == errNoOpenat2 {
		fd, err = walk(rfd, dirs, pre)
	}
	unix.Close(rfd)
	if err != nil {
		if errors.Is(err, unix.ENOENT) {
			return nil, missingDir(path, err)
		}
		return nil, err
	}
	return &Dir{fd: fd, path: path, pre: path + "/", ops: ops}, nil
}

var errNoOpenat2 = errors.New("openat2 unavailable")

// walk opens each component with O_DIRECTORY|O_NOFOLLOW. It does not close
// start. pre is how start's contents are shown in messages (prefixOf).
func walk(start int, dirs []string, pre string) (int, error) {
	fd := start
	for i, c := range dirs {
		nfd, err := unix.Openat(fd, c, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			err = classify(fd, c, pre+strings.Join(dirs[:i+1], "/"), err)
		}
		if fd != start {
			unix.Close(fd)
		}
		if err != nil {
			return -1, err
		}
		fd = nfd
	}
	return fd, nil
}

// classify turns an open error on component name (beneath dirfd) into a
// refusal where the cause is a link or a non-directory.
func classify(dirfd int, name, shown string, err error) error {
	var st unix.Stat_t
	if errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.ELOOP) || errors.Is(err, unix.EEXIST) || errors.Is(err, unix.EXDEV) {
		if serr := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); serr == nil {
			switch st.Mode & unix.S_IFMT {
			case unix.S_IFLNK:
				return refusal.New(ErrSymlink, "%s is a symbolic link", shown)
			case unix.S_IFDIR:
				if errors.Is(err, unix.EEXIST) {
					return refusal.New(ErrExists, "%s already exists, as a directory: name a file in it", shown)
				}
			default:
				if !errors.Is(err, unix.EEXIST) {
					return refusal.New(ErrNotDir, "%s is not a directory", shown)
				}
			}
		}
		if errors.Is(err, unix.EEXIST) {
			return refusal.New(ErrExists, "%s already exists", shown)
		}
		if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.EXDEV) {
			return refusal.New(ErrSymlink, "%s: path resolves through a symbolic link", shown)
		}
	}
	return fmt.Errorf("%s: %w", shown, err)
}

// Close releases the directory descriptor.
func (d *Dir) Close() error { return unix.Close(d.fd) }

// Stat returns the status of the held directory descriptor (fstat(2)): the
// directory this Dir opened, whatever its path names by now.
func (d *Dir) Stat() (unix.Stat_t, error) {
	var st unix.Stat_t
	if err := unix.Fstat(d.fd, &st); err != nil {
		return st, fmt.Errorf("fstat %s: %w", d.path, err)
	}
	return st, nil
}

// Path returns the directory's path as it was opened.
func (d *Dir) Path() string { return d.path }

func (d *Dir) write(fd int, p []byte) (int, error) {
	if d.ops.Write != nil {
		return d.ops.Write(fd, p)
	}
	return unix.Write(fd, p)
}

func (d *Dir) fsync(fd int) error {
	if d.ops.Fsync != nil {
		return d.ops.Fsync(fd)
	}
	return unix.Fsync(fd)
}

func (d *Dir) openat(name string, flags int, perm uint32) (int, error) {
	if d.ops.Openat != nil {
		return d.ops.Openat(d.fd, name, flags, perm)
	}
	return unix.Openat(d.fd, name, flags, perm)
}

// writeAll loops over short writes and retries interrupted ones.
func (d *Dir) writeAll(fd int, p []byte) error {
	for len(p) > 0 {
		n, err := d.write(fd, p)
		if n > 0 {
			p = p[n:]
		}
		if err != nil {
			if errors.Is(err, unix.EINTR) || errors.Is(err, unix.EAGAIN) {
				continue
			}
			return err
		}
		if n == 0 {
			return unix.EIO
		}
	}
	return nil
}

// checkName refuses a file name that is not one plain component.
func checkName(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\x00") {
		return refusal.New(ErrBadPath, "file name %q is not allowed", name)
	}
	return nil
}

func (d *Dir) create(name string, perm uint32) (int, error) {
	if err := checkName(name); err != nil {
		return -1, err
	}
	fd, err := d.openat(name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, perm)
	if err != nil {
		return -1, classify(d.fd, name, d.show(name), err)
	}
	return fd, nil
}

// CreateFile creates name in d exclusively, writes data whole, fsyncs the
// file and the directory. Where the host allows (Linux, [Dir.createUnnamed])
// the bytes are written to an unnamed file that is linked to name only once
// they are whole and synced, so name never exists half-written, even when
// the process is killed; elsewhere name is created first and, on any
// failure, truncated and removed.
func (d *Dir) CreateFile(name string, data []byte, perm uint32) (err error) {
	if err := checkName(name); err != nil {
		return err
	}
	fd, link, unnamed := d.createUnnamed(perm)
	if !unnamed {
		if fd, err = d.create(name, perm); err != nil {
			return err
		}
	}
	named := !unnamed // whether name now exists: removed again on failure
	defer func() {
		if err != nil && named {
			unix.Ftruncate(fd, 0)
			unix.Unlinkat(d.fd, name, 0)
			unix.Fsync(d.fd)
		}
		if cerr := unix.Close(fd); cerr != nil && err == nil {
			err = fmt.Errorf("close %s: %w", d.show(name), cerr)
		}
	}()
	if err = d.writeAll(fd, data); err != nil {
		return fmt.Errorf("write %s: %w", d.show(name), err)
	}
	if err = d.fsync(fd); err != nil {
		return fmt.Errorf("fsync %s: %w", d.show(name), err)
	}
	if unnamed {
		if err = link(name); err != nil {
			return err
		}
		named = true
	}
	if err = d.fsync(d.fd); err != nil {
		return fmt.Errorf("fsync directory %s: %w", d.path, err)
	}
	return nil
}

// File is a file created exclusively beneath a checked directory and held
// open for appending.
type File struct {
	d    *Dir
	dir  *Dir // owned directory, closed with the file (CreateAppendChecked)
	fd   int
	name string
	size int64
}

// CreateAppend creates name in d exclusively and fsyncs the directory so the
// new entry is durable; the file starts empty.
func (d *Dir) CreateAppend(name string, perm uint32) (*File, error) {
	fd, err := d.create(name, perm)
	if err != nil {
		return nil, err
	}
	if err := d.fsync(d.fd); err != nil {
		unix.Close(fd)
		unix.Unlinkat(d.fd, name, 0)
		return nil, fmt.Errorf("fsync directory %s: %w", d.path, err)
	}
	return &File{d: d, fd: fd, name: name}, nil
}

// Dir returns the directory the file was created in, held open by the File
// until Close (for a File from [Dir.CreateAppend], that Dir).
func (f *File) Dir() *Dir { return f.d }

// Name returns the file's path as opened.
func (f *File) Name() string { return f.d.show(f.name) }

// Size returns the number of bytes this File has written and kept.
func (f *File) Size() int64 { return f.size }

// WriteAll appends p, looping over short writes and retrying interruptions.
// On error the bytes written may be partial: the caller decides whether to
// Truncate.
func (f *File) WriteAll(p []byte) error {
	err := f.d.writeAll(f.fd, p)
	if err == nil {
		f.size += int64(len(p))
		return nil
	}
	// Learn how much actually landed so Truncate has the truth.
	if off, serr := unix.Seek(f.fd, 0, 1); serr == nil {
		f.size = off
	}
	return err
}

// Sync flushes the file to stable storage.
func (f *File) Sync() error { return f.d.fsync(f.fd) }

// Truncate cuts the file back to size bytes and repositions the write
// offset there.
func (f *File) Truncate(size int64) error {
	if err := unix.Ftruncate(f.fd, size); err != nil {
		return err
	}
	if _, err := unix.Seek(f.fd, size, 0); err != nil {
		return err
	}
	f.size = size
	return nil
}

// Close closes the file (and the directory it owns, if any).
func (f *File) Close() error {
	err := unix.Close(f.fd)
	if f.dir != nil {
		f.dir.Close()
	}
	return err
}

// absent refuses a name that already exists in d (a link as [ErrSymlink],
// anything else as [ErrExists]); only a name that does not exist passes.
func (d *Dir) absent(name string) error {
	if err := checkName(name); err != nil {
		return err
	}
	var st unix.Stat_t
	err := unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
	switch {
	case errors.Is(err, unix.ENOENT):
		return nil
	case err != nil:
		return fmt.Errorf("%s/%s: %w", d.path, name, err)
	case st.Mode&unix.S_IFMT == unix.S_IFLNK:
		return refusal.New(ErrSymlink, "%s/%s is a symbolic link", d.path, name)
	case st.Mode&unix.S_IFMT == unix.S_IFDIR:
		return refusal.New(ErrExists, "%s/%s already exists, as a directory: name a file in it", d.path, name)
	}
	return refusal.New(ErrExists, "%s/%s already exists", d.path, name)
}

// remove unlinks name from d and fsyncs d.
func (d *Dir) remove(name string) error {
	if err := unix.Unlinkat(d.fd, name, 0); err != nil && !errors.Is(err, unix.ENOENT) {
		return fmt.Errorf("remove %s/%s: %w", d.path, name, err)
	}
	return d.fsync(d.fd)
}
