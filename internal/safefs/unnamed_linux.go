package safefs

import (
	"strconv"

	"golang.org/x/sys/unix"
)

// createUnnamed opens an unnamed regular file in d (O_TMPFILE) whose
// returned link gives it name once it is whole, so that name never exists
// half-written: a process killed while writing leaves nothing behind. The
// link is exclusive (linkat(2) fails with EEXIST on any existing entry,
// a symbolic link included) and is made through /proc/self/fd, which needs
// no privilege. Where the file system has no O_TMPFILE or /proc is not
// mounted, ok is false and nothing is open.
func (d *Dir) createUnnamed(perm uint32) (fd int, link func(name string) error, ok bool) {
	fd, err := d.openat(".", unix.O_TMPFILE|unix.O_WRONLY|unix.O_CLOEXEC, perm)
	if err != nil {
		return -1, nil, false
	}
	proc := "/proc/self/fd/" + strconv.Itoa(fd)
	var st unix.Stat_t
	if unix.Stat(proc, &st) != nil {
		unix.Close(fd)
		return -1, nil, false
	}
	return fd, func(name string) error {
		if err := unix.Linkat(unix.AT_FDCWD, proc, d.fd, name, unix.AT_SYMLINK_FOLLOW); err != nil {
			return classify(d.fd, name, d.show(name), err)
		}
		return nil
	}, true
}
