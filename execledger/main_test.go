//go:build unix

package execledger_test

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/obaudit/obaudit/execledger"
)

// TestMain dispatches the child processes the crash test and the 1 GiB
// memory check start from this test binary ($OBAUDIT_CRASH_FILE,
// $OBAUDIT_VERIFY_CHILD); otherwise it runs the tests.
func TestMain(m *testing.M) {
	if p := os.Getenv("OBAUDIT_CRASH_FILE"); p != "" {
		os.Exit(crashChild(p))
	}
	if p := os.Getenv("OBAUDIT_VERIFY_CHILD"); p != "" {
		os.Exit(verifyChild(p))
	}
	os.Exit(m.Run())
}

// verifyChild reads the journal at path in full and prints its row count
// and time for the parent, which reads this process's peak memory.
func verifyChild(path string) int {
	f, err := os.Open(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer f.Close()
	t0 := time.Now()
	a, err := execledger.Read(f, execledger.Options{DiscardCalls: true, RequireComplete: true})
	if err != nil || !a.Scored() {
		fmt.Fprintf(os.Stderr, "Read = %v\n", err)
		return 1
	}
	rows := a.RowsVerified
	fmt.Printf("rows %d seconds %.2f\n", rows, time.Since(t0).Seconds())
	return 0
}
