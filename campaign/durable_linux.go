//go:build linux

package campaign

import (
	"os"

	"golang.org/x/sys/unix"
)

// syncFS makes every write to the filesystem holding dir durable
// (syncfs(2)): one call stands for the fsyncs of a whole batch of trials'
// files and directory entries.
func syncFS(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	return unix.Syncfs(int(f.Fd()))
}
