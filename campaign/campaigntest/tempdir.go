// Package campaigntest holds what tests of campaign logs share.
package campaigntest

import (
	"os"
	"testing"
	"time"
)

// TempDir is t.TempDir for a directory that will hold a campaign log
// written in this process. tessera's POSIX appender cannot be joined:
// after its shutdown returns and its context is cancelled, the checkpoint
// publisher may still be inside the iteration it began just before (that
// iteration opens .state/publish.lock with O_CREATE), so a removal racing
// it can find .state refilled ("directory not empty"). The cleanup retries
// the removal for up to two seconds and fails the test if it still cannot
// remove the directory. A process exits instead, so the CLI is not exposed.
func TempDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "obaudit-campaign-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for range 100 {
			if err = os.RemoveAll(dir); err == nil {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Errorf("removing %s: %v", dir, err)
	})
	return dir
}
