//go:build unix && !linux

package campaign

import "golang.org/x/sys/unix"

// syncFS has no syncfs(2) outside Linux: sync(2) schedules every
// filesystem's writes (on some systems without waiting for them, which is
// weaker than Linux's syncfs; campaigns meant as evidence run on Linux).
func syncFS(dir string) error {
	unix.Sync()
	return nil
}
