//go:build unix

package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// sigterm is SIGTERM, as interrupt.go names it (this file stays free of
// syscall, so CI's per-OS vet need not build the CLI for every OS).
var sigterm = interruptSignals[1]

// TestWithInterrupts: the first signal cancels the context with an
// interruptError naming it; a second calls force; stop releases the watcher.
func TestWithInterrupts(t *testing.T) {
	sigs := make(chan os.Signal, 2)
	forced := make(chan os.Signal, 1)
	ctx, stop := withInterrupts(context.Background(), sigs, func(s os.Signal) { forced <- s })
	defer stop()
	if interrupted(ctx) != nil {
		t.Fatal("interrupted before any signal")
	}
	sigs <- sigterm
	<-ctx.Done()
	if err := interrupted(ctx); !errors.Is(err, errInterrupted) || err.Error() != "interrupted by SIGTERM" {
		t.Fatalf("cause %v", err)
	}
	sigs <- os.Interrupt
	select {
	case s := <-forced:
		if s != os.Interrupt {
			t.Fatalf("forced by %v", s)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a second signal did not force the exit")
	}
	// Cancelled for another reason: not an interruption.
	ctx2, cancel := context.WithCancel(context.Background())
	cancel()
	if interrupted(ctx2) != nil {
		t.Fatal("a plain cancellation counted as an interruption")
	}
}

// TestInterruptedCommandExits130: in-process, a command whose context is
// interrupted while it reads stdin exits 130, and --json's one document
// says so.
func TestInterruptedCommandExits130(t *testing.T) {
	pr, pw := io.Pipe() // never written: the read blocks until the interrupt
	defer pw.Close()
	sigs := make(chan os.Signal, 1)
	ctx, stop := withInterrupts(context.Background(), sigs, func(os.Signal) {})
	defer stop()
	go func() { time.Sleep(50 * time.Millisecond); sigs <- os.Interrupt }()
	var out, errb bytes.Buffer
	code := run(ctx, []string{"canon", "--json", "-"}, pr, &out, &errb)
	if code != exitInterrupted {
		t.Fatalf("exit %d, want 130; stderr %q", code, errb.String())
	}
	doc := oneJSON(t, out.Bytes())
	if doc["class"] != classInterrupted || doc["exit"] != float64(130) || doc["ok"] != false {
		t.Fatalf("--json outcome %v", doc)
	}
}

// TestSignalMidRun sends SIGINT (and SIGTERM) to a real obaudit process
// blocked mid-command: `run --spec -` reading its spec, with --output
// named. It exits 130, prints the one JSON outcome, and writes nothing.
func TestSignalMidRun(t *testing.T) {
	bin, err := exec.LookPath("obaudit") // the test binary, as testscript.Main installs it
	if err != nil {
		t.Fatal(err)
	}
	for _, sig := range []os.Signal{os.Interrupt, sigterm} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			ready := filepath.Join(dir, "ready")
			cmd := exec.Command(bin, "--json", "run", "--scenario", "V1", "--spec", "-", "--output", "out.json")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), readyFileEnv+"="+ready, exitCodeEnv+"=")
			stdin, err := cmd.StdinPipe() // held open: the spec never ends
			if err != nil {
				t.Fatal(err)
			}
			defer stdin.Close()
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			deadline := time.Now().Add(30 * time.Second)
			for {
				if _, err := os.Stat(ready); err == nil {
					break
				}
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					t.Fatal("obaudit never started watching signals")
				}
				time.Sleep(10 * time.Millisecond)
			}
			stdin.Write([]byte("schema_version: 1\n")) // mid-read
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				t.Fatal("obaudit did not stop at the signal")
			}
			if code := cmd.ProcessState.ExitCode(); code != exitInterrupted {
				t.Fatalf("exit %d, want 130; stderr %q", code, errb.String())
			}
			doc := oneJSON(t, out.Bytes())
			if doc["class"] != classInterrupted || doc["exit"] != float64(130) {
				t.Fatalf("--json outcome %v", doc)
			}
			if _, err := os.Lstat(filepath.Join(dir, "out.json")); !os.IsNotExist(err) {
				t.Fatalf("an interrupted run wrote its artefact: %v", err)
			}
		})
	}
}
