//go:build unix

package execledger

import (
	"os"
	"syscall"

	"github.com/obaudit/obaudit/refusal"
)

// checkDirectory requires dir to be a real directory (not a link) of mode
// exactly 0700 owned by the effective uid. The no-follow walk and the
// exclusive create are internal/safefs's; this check runs just before it.
func checkDirectory(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		return refusal.New(ErrLocation, "the ledger directory is a symbolic link")
	}
	if !fi.IsDir() {
		return refusal.New(ErrLocation, "the ledger directory is not a directory")
	}
	if fi.Mode().Perm() != 0o700 {
		return refusal.New(ErrLocation, "the ledger directory is mode %#o, not 0700", fi.Mode().Perm())
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		return refusal.New(ErrLocation, "the ledger directory is not owned by the effective user")
	}
	return nil
}
