//go:build unix

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/obaudit/obaudit/execledger"
	"github.com/obaudit/obaudit/preflight"
	"github.com/obaudit/obaudit/provider/profile"
)

// signalMidModelRun starts the obaudit test binary with args in dir, waits
// until ledger holds a call row, sends sig, and returns the exit code and
// --json stdout.
func signalMidModelRun(t *testing.T, dir, ledger string, env []string, sig os.Signal, args ...string) (int, []byte) {
	t.Helper()
	bin, err := exec.LookPath("obaudit")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), exitCodeEnv+"="), env...)
	p := startSignalled(t, cmd)
	p.waitUntil(t, 60*time.Second, 5*time.Millisecond, "its first call row", func() bool {
		b, _ := os.ReadFile(ledger)
		return bytes.Contains(b, []byte(`"row_kind": "call"`))
	})
	return p.signal(t, sig), p.out.Bytes()
}

// checkInterruptedLedger: the ledger reads back complete (ledger verify's
// reading), excluded with operator_interrupted, and records want calls.
func checkInterruptedLedger(t *testing.T, path string, want int) {
	t.Helper()
	audit, err := execledger.ReadFile(path, execledger.Options{RequireComplete: true})
	if err != nil {
		t.Fatalf("the interrupted ledger does not verify: %v", err)
	}
	if audit.Status() != execledger.TerminalExcluded || audit.Terminal.ExclusionCode == nil || *audit.Terminal.ExclusionCode != execledger.ExclusionInterrupted {
		t.Fatalf("ledger ended %s (%v), want excluded with %s", audit.Status(), audit.Terminal.ExclusionCode, execledger.ExclusionInterrupted)
	}
	if len(audit.Calls) != want {
		t.Fatalf("the ledger records %d calls and the provider received %d", len(audit.Calls), want)
	}
	if want == 0 || want >= 46 {
		t.Fatalf("%d calls: the signal did not land mid-run", want)
	}
}

func checkInterruptedOutcome(t *testing.T, code int, out []byte) {
	t.Helper()
	if code != exitInterrupted {
		t.Fatalf("exit %d, want 130; stdout %q", code, out)
	}
	if doc := oneJSON(t, out); doc["class"] != classInterrupted || doc["exit"] != float64(130) {
		t.Fatalf("--json outcome %v", doc)
	}
}

// TestPreflightSignalMidRun: SIGINT (and SIGTERM) to a preflight whose
// scripted provider answers slowly, once its first call is recorded. It
// exits 130; the ledger verifies, excluded with operator_interrupted; it
// records exactly the calls the provider received (none after the
// signal); no artefact exists.
func TestPreflightSignalMidRun(t *testing.T) {
	t.Parallel()
	for _, sig := range []os.Signal{os.Interrupt, sigterm} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "out")
			if err := os.Mkdir(out, 0o700); err != nil {
				t.Fatal(err)
			}
			report := filepath.Join(dir, "report")
			ledgerName, artefactName := preflight.OutputNames(modelInstance, preflight.FaultNone)
			ledger := filepath.Join(out, ledgerName)
			code, stdout := signalMidModelRun(t, dir, ledger,
				[]string{preflightLatencyEnv + "=100ms", preflightReportEnv + "=" + report}, sig,
				"--json", "preflight", "--output-dir", "out", "--operation-instance-id", modelInstance)
			checkInterruptedOutcome(t, code, stdout)
			b, err := os.ReadFile(report)
			if err != nil {
				t.Fatal(err)
			}
			n, err := strconv.Atoi(strings.TrimPrefix(string(b), "requests "))
			if err != nil {
				t.Fatalf("the preflight reported %q", b)
			}
			checkInterruptedLedger(t, ledger, n)
			if _, err := os.Lstat(filepath.Join(out, artefactName)); !os.IsNotExist(err) {
				t.Fatalf("an interrupted preflight wrote its artefact: %v", err)
			}
		})
	}
}

// TestLiveRunSignalMidRun: the same for `run --model … --live` against the
// loopback scripted provider.
func TestLiveRunSignalMidRun(t *testing.T) {
	t.Parallel()
	const name = "openai-gpt-5.6-luna"
	p, err := profile.Embedded(name)
	if err != nil {
		t.Fatal(err)
	}
	const credential = "dummy-credential-7f3a9c"
	base, cert, script, stop, err := loopbackProvider(name, credential, preflight.FaultNone)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	script.Latency = 100 * time.Millisecond // set before any request
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	if err := os.Mkdir(out, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ca.pem"), cert, 0o600); err != nil {
		t.Fatal(err)
	}
	ledgerName, artefactName := preflight.OutputNames(modelInstance, preflight.FaultNone)
	ledger := filepath.Join(out, ledgerName)
	code, stdout := signalMidModelRun(t, dir, ledger, []string{p.CredentialEnv + "=" + credential}, os.Interrupt,
		"--json", "run", "--model", name, "--live", "--scenario", "V1",
		"--operation-instance-id", modelInstance, "--base-url", base, "--ca-file", "ca.pem", "--output-dir", "out",
		"--input-usd-per-mtok", "2", "--output-usd-per-mtok", "10", "--cost-cap-usd", "6")
	checkInterruptedOutcome(t, code, stdout)
	checkInterruptedLedger(t, ledger, script.Requests())
	if _, err := os.Lstat(filepath.Join(out, artefactName)); !os.IsNotExist(err) {
		t.Fatalf("an interrupted run wrote its artefact: %v", err)
	}
}
