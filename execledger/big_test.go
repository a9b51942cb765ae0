//go:build unix && ledger1gib

package execledger_test

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// TestVerify1GiB writes a 1 GiB synthetic journal and verifies it in a
// child process (verifyChild, dispatched from TestMain), reporting the
// child's peak resident memory (getrusage ru_maxrss); it fails above
// 64 MiB. It is built only with -tags ledger1gib (CI's ledger step runs it):
//
//	go test -tags ledger1gib ./execledger -run '^TestVerify1GiB$' -v -timeout 60m
func TestVerify1GiB(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "evidence")
	os.Mkdir(dir, 0o700)
	p := filepath.Join(dir, "big.ndjson")
	size := writeBig(t, p, 1<<30)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "OBAUDIT_VERIFY_CHILD="+p)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss // KiB on Linux
	var rows int
	var secs float64
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if _, err := fmt.Sscanf(sc.Text(), "rows %d seconds %f", &rows, &secs); err == nil {
			break
		}
	}
	t.Logf("full verification of %d bytes (%d rows): %.2f s (%.0f MB/s), peak RSS %d KiB", size, rows, secs, float64(size)/secs/1e6, rss)
	if rss > 64<<10 {
		t.Errorf("peak RSS %d KiB is above 64 MiB", rss)
	}
}
