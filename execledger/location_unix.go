//go:build unix

package execledger

import (
	"os"

	"github.com/obaudit/obaudit/internal/safefs"
	"github.com/obaudit/obaudit/refusal"
	"golang.org/x/sys/unix"
)

// checkDirectory requires the held directory d (reached by internal/safefs's
// no-follow walk, which refuses a symbolic link in any component) to be a
// directory of mode exactly 0700 owned by the effective uid. It judges the
// open descriptor (fstat), so a directory swapped in at the path after the
// walk is not the one judged or written into.
func checkDirectory(d *safefs.Dir) error {
	st, err := d.Stat()
	if err != nil {
		return err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return refusal.New(ErrLocation, "the ledger directory is not a directory")
	}
	if perm := st.Mode & 0o777; perm != 0o700 {
		return refusal.New(ErrLocation, "the ledger directory is mode %#o, not 0700", perm)
	}
	if int(st.Uid) != os.Geteuid() {
		return refusal.New(ErrLocation, "the ledger directory is not owned by the effective user")
	}
	return nil
}
