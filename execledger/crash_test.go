//go:build unix

package execledger_test

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/obaudit/obaudit/execledger"
	lt "github.com/obaudit/obaudit/execledger/ledgertest"
)

const crashCalls = 40

// crashChild is the child process of TestCrash (dispatched from TestMain
// when $OBAUDIT_CRASH_FILE is set): it writes a whole scored ledger
// (header, crashCalls calls, terminal) with per-row fsync into path, after
// printing "ready". It returns the process exit code.
func crashChild(path string) int {
	os.Stdout.WriteString("ready\n")
	// 40 reservations of 0.0593425 USD need a cap above the fixture's 1 USD:
	// a scored run never reserves more than its cap.
	h := lt.Roomy(lt.Header())
	h.Controls.MaxProviderCalls = 60
	w, err := execledger.Create(path, h, execledger.WriterOptions{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	for i := int64(0); i < crashCalls; i++ {
		if err := w.RecordCall(lt.Answered(i, 1, i)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	if err := w.Finalize("scored", "2031-03-03T09:05:00Z", nil); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	w.Close()
	return 0
}

// TestCrash kills a child writing a ledger at random points (SIGKILL, 200
// runs; 40 under -short) and requires every surviving file to read as a
// verified prefix: absent or empty (killed before the header was durable),
// incomplete, or the complete scored run with its full totals — never
// corrupt past the prefix, never a cheaper scored run.
func TestCrash(t *testing.T) {
	runs := 200
	if testing.Short() {
		runs = 40
	}
	dir := ledgerDir(t)
	full := fullRun(t, dir)
	rng := rand.New(rand.NewPCG(20310303, 9))
	var seen = map[string]int{}
	for i := 0; i < runs; i++ {
		p := filepath.Join(dir, "crash-"+strconv.Itoa(i)+".ndjson")
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "OBAUDIT_CRASH_FILE="+p)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		bufio.NewReader(out).ReadString('\n') // "ready"
		time.Sleep(time.Duration(rng.Int64N(int64(full.elapsed) * 12 / 10)))
		cmd.Process.Kill()
		cmd.Wait()

		b, err := os.ReadFile(p)
		switch {
		case os.IsNotExist(err) || (err == nil && len(b) == 0):
			seen["nothing"]++
			continue
		case err != nil:
			t.Fatal(err)
		}
		a, err := execledger.Read(bytes.NewReader(b), execledger.Options{})
		if err != nil {
			t.Fatalf("run %d: the surviving file is refused: %v", i, err)
		}
		seen[a.Status()]++
		switch a.Status() {
		case execledger.StatusIncomplete:
			if int(a.Totals.ProviderCalls) != a.RowsVerified-1 || !bytes.HasPrefix(full.data, b[:a.LedgerBytes]) {
				t.Fatalf("run %d: the prefix is not a prefix of the run", i)
			}
		case execledger.TerminalScored:
			if a.LedgerDigest() != full.audit.LedgerDigest() || a.Totals.MeasuredCostUSD != full.audit.Totals.MeasuredCostUSD || a.Totals.ProviderCalls != crashCalls {
				t.Fatalf("run %d: a scored ledger that is not the full run", i)
			}
		default:
			t.Fatalf("run %d: status %s", i, a.Status())
		}
	}
	t.Logf("%d runs: %v", runs, seen)
	if seen[execledger.StatusIncomplete] == 0 {
		t.Errorf("no run was killed mid-journal; the kill points do not cover the write")
	}
}

type fullResult struct {
	data    []byte
	audit   *execledger.Audit
	elapsed time.Duration
}

// fullRun lets one child finish, timing it, for the reference bytes.
func fullRun(t *testing.T, dir string) fullResult {
	p := filepath.Join(dir, "full.ndjson")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "OBAUDIT_CRASH_FILE="+p)
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	bufio.NewReader(out).ReadString('\n')
	start := time.Now()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the child failed: %v", err)
	}
	elapsed := time.Since(start)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	a, err := execledger.Read(bytes.NewReader(b), execledger.Options{RequireComplete: true})
	if err != nil || !a.Scored() {
		t.Fatalf("the full run does not read as scored: %v", err)
	}
	return fullResult{data: b, audit: a, elapsed: elapsed}
}
