//go:build unix

package campaign

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// errBusy is returned when another process holds the campaign directory's
// lock (a merge in progress).
var errBusy = errors.New("campaign: another merge holds this campaign directory (flock)")

// lockDir takes an exclusive, non-blocking flock(2) on dir, held until
// the returned func is called (or the process ends: a killed merge leaves
// no stale lock).
func lockDir(dir string) (func(), error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, errBusy
		}
		return nil, err
	}
	return func() { unix.Flock(int(f.Fd()), unix.LOCK_UN); f.Close() }, nil
}
