// Command obaudit runs, records, signs and audits OperateBench episodes.
// See README.md for the command list and exit codes.
//
// Built as it is (go build ./cmd/obaudit) it does not link Sigstore bundle
// verification, whose libraries' start-up is most of a process's: the
// commands that verify a bundle (verify, commit, campaign verify, campaign
// merge) run in obaudit-sigstore, installed beside it, which is this same
// command built with the obaudit_sigstore tag (sigstore.go).
package main

import (
	"context"
	"os"
	"os/signal"

	// First, so that the collector is off while the linked packages
	// initialise (see the package's doc).
	_ "github.com/obaudit/obaudit/cmd/obaudit/internal/startgc"
)

func main() { os.Exit(mainExit(nil)) }

// mainExit runs the command line of this process with SIGINT and SIGTERM
// interrupting it (interrupt.go) and returns the exit code. The test
// binary's "obaudit" command calls it too, so signal tests exercise it;
// ready (nil in the binary) is told when the signals are being watched.
func mainExit(ready func()) int {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, interruptSignals...)
	defer signal.Stop(sigs)
	if ready != nil {
		ready()
	}
	ctx, stop := withInterrupts(context.Background(), sigs, func(os.Signal) {
		os.Stderr.WriteString("interrupted again: exiting at once\n")
		os.Exit(exitInterrupted)
	})
	defer stop()
	return run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
}
