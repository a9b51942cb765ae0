//go:build linux

package safefs

import (
	"errors"
	"strings"

	"golang.org/x/sys/unix"
)

// openBeneath resolves dirs beneath rfd in one openat2 call that refuses
// every symbolic link and any escape. It returns errNoOpenat2 where the
// kernel (or a seccomp filter) does not offer openat2.
func openBeneath(rfd int, dirs []string, pre string) (int, error) {
	how := unix.OpenHow{
		Flags:   unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS,
	}
	fd, err := unix.Openat2(rfd, strings.Join(dirs, "/"), &how)
	if err == nil {
		return fd, nil
	}
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM) {
		return -1, errNoOpenat2
	}
	// Walk to find and name the offending component precisely.
	return walk(rfd, dirs, pre)
}
