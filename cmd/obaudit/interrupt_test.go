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
			p := startSignalled(t, cmd)
			p.waitUntil(t, 30*time.Second, 10*time.Millisecond, "it watches signals", func() bool {
				_, err := os.Stat(ready)
				return err == nil
			})
			stdin.Write([]byte("schema_version: 1\n")) // mid-read
			if code := p.signal(t, sig); code != exitInterrupted {
				t.Fatalf("exit %d, want 130; stderr %q", code, p.errb.String())
			}
			doc := oneJSON(t, p.out.Bytes())
			if doc["class"] != classInterrupted || doc["exit"] != float64(130) {
				t.Fatalf("--json outcome %v", doc)
			}
			if _, err := os.Lstat(filepath.Join(dir, "out.json")); !os.IsNotExist(err) {
				t.Fatalf("an interrupted run wrote its artefact: %v", err)
			}
		})
	}
}

// signalled is a real obaudit process that a signal test drives: started,
// waited on until it is ready, signalled.
type signalled struct {
	cmd       *exec.Cmd
	done      chan error
	out, errb bytes.Buffer
}

// startSignalled starts cmd with its stdout and stderr captured.
func startSignalled(t *testing.T, cmd *exec.Cmd) *signalled {
	t.Helper()
	p := &signalled{cmd: cmd, done: make(chan error, 1)}
	cmd.Stdout, cmd.Stderr = &p.out, &p.errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- cmd.Wait() }()
	return p
}

// waitUntil polls ready every poll until it holds; the test fails if the
// process ends first or patience runs out (the process is then killed).
// what says what ready waits for.
func (p *signalled) waitUntil(t *testing.T, patience, poll time.Duration, what string, ready func() bool) {
	t.Helper()
	deadline := time.Now().Add(patience)
	for !ready() {
		select {
		case <-p.done:
			t.Fatalf("obaudit ended before %s: exit %d, stderr %q", what, p.cmd.ProcessState.ExitCode(), p.errb.String())
		default:
		}
		if time.Now().After(deadline) {
			p.cmd.Process.Kill()
			t.Fatalf("obaudit never got to %s", what)
		}
		time.Sleep(poll)
	}
}

// signal sends sig and returns the exit code; the test fails (and the
// process is killed) if it has not ended 30 s later.
func (p *signalled) signal(t *testing.T, sig os.Signal) int {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		p.cmd.Process.Kill()
		t.Fatal("obaudit did not stop at the signal")
	}
	return p.cmd.ProcessState.ExitCode()
}
