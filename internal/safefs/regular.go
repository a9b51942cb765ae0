package safefs

import (
	"fmt"
	"os"

	"github.com/obaudit/obaudit/refusal"
)

// ErrNotRegular is returned by [OpenRegular] when an input path names
// something other than a regular file (a FIFO, a device, a socket, a
// directory): refused before any byte is read, so nothing waits on a FIFO
// without a writer or reads a device without end.
var ErrNotRegular = refusal.Sentinel("fs/not-regular")

// OpenRegular opens path for reading without blocking (a FIFO without a
// writer does not hang the open), and returns it only if it is a regular
// file. Symbolic links to regular files are followed: an input's name is
// the operator's choice.
func OpenRegular(path string) (*os.File, error) {
	f, err := openNonBlocking(path)
	if err != nil {
		// A socket cannot be opened at all (ENXIO): still refused by class.
		if fi, serr := os.Stat(path); serr == nil && !fi.Mode().IsRegular() {
			return nil, refusal.New(ErrNotRegular, "%s is a %s, not a regular file", path, kindOf(fi.Mode()))
		}
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("stat %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, refusal.New(ErrNotRegular, "%s is a %s, not a regular file", path, kindOf(fi.Mode()))
	}
	if err := clearNonBlocking(f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func kindOf(m os.FileMode) string {
	switch {
	case m&os.ModeNamedPipe != 0:
		return "FIFO"
	case m&os.ModeSocket != 0:
		return "socket"
	case m&os.ModeCharDevice != 0:
		return "character device"
	case m&os.ModeDevice != 0:
		return "device"
	case m.IsDir():
		return "directory"
	}
	return "non-regular file"
}
