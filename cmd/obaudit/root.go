package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/obaudit/obaudit/refusal"
	"github.com/spf13/cobra"
)

// Exit codes (upstream OperateBench's, plus one for failures). Documented in
// README.md and SECURITY.md and asserted by the scripts.
const (
	exitOK      = 0  // yes
	exitRefused = 1  // the input was refused, by name
	exitNo      = 2  // it ran and the answer is no
	exitUsage   = 64 // the command line was invalid (EX_USAGE)
	exitFailure = 70 // an I/O or internal failure, not a judgement on the input (EX_SOFTWARE)
)

// errNo reports that a command ran and its answer is no. Its report has
// already been written to stdout; the detail goes to stderr.
type errNo struct{ detail string }

func (e *errNo) Error() string { return e.detail }

func answerNo(format string, args ...any) error {
	return &errNo{detail: fmt.Sprintf(format, args...)}
}

// ranErr marks an error returned by a RunE, as opposed to one cobra raised
// while reading the command line (which is a usage error).
type ranErr struct{ err error }

func (e *ranErr) Error() string { return e.err.Error() }
func (e *ranErr) Unwrap() error { return e.err }

// globals are the flags every command shares.
type globals struct {
	json bool
}

// newRootCmd builds a fresh command tree. Each subcommand lives in its own
// file as newXCmd(g).
func newRootCmd(g *globals) *cobra.Command {
	root := &cobra.Command{
		Use:           "obaudit",
		Short:         "Run, record, sign and audit OperateBench episodes",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().BoolVar(&g.json, "json", false, "write the report as JSON")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return err })
	root.AddCommand(
		newVersionCmd(g),
		newRunCmd(g),
		newCheckCmd(g),
		newCanonCmd(g),
		newDigestCmd(g),
		newLedgerCmd(g),
		newBundleCmd(g),
		newKeygenCmd(g),
		newSignCmd(g),
		newVerifyCmd(g),
		newCommitCmd(g),
		newVerifyInclusionCmd(g),
		newExportCmd(g),
		newReportCmd(g),
		newValidateCmd(g),
		newReplayCmd(g),
		newPreflightCmd(g),
		newArmsCmd(g),
		newCampaignCmd(g),
	)
	markRunErrors(root)
	return root
}

// markRunErrors wraps every RunE in the tree so that its errors are told
// apart from command-line errors.
func markRunErrors(c *cobra.Command) {
	if f := c.RunE; f != nil {
		c.RunE = func(cmd *cobra.Command, args []string) error {
			if err := f(cmd, args); err != nil {
				return &ranErr{err}
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		markRunErrors(sub)
	}
}

// run executes the command line and returns the process exit code. Nothing
// below main calls os.Exit.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var g globals
	root := newRootCmd(&g)
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	return report(err, stderr)
}

// report prints err as "refused: <class>: <detail>" or "error: <detail>"
// and maps it to an exit code.
func report(err error, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	var re *ranErr
	if !errors.As(err, &re) {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return exitUsage
	}
	if class, ok := refusal.ClassOf(err); ok {
		fmt.Fprintf(stderr, "refused: %s: %s\n", class, refusal.Detail(err))
		return exitRefused
	}
	var no *errNo
	if errors.As(err, &no) {
		if no.detail != "" {
			fmt.Fprintf(stderr, "no: %s\n", no.detail)
		}
		return exitNo
	}
	var ue *usageErr
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "error: %v\n", ue.err)
		return exitUsage
	}
	fmt.Fprintf(stderr, "error: %v\n", re.err)
	return exitFailure
}

// usageErr lets a RunE report a command-line problem it found itself (an
// unknown --form value, say) with the usage exit code.
type usageErr struct{ err error }

func (e *usageErr) Error() string { return e.err.Error() }
func (e *usageErr) Unwrap() error { return e.err }

func usagef(format string, args ...any) error {
	return &usageErr{fmt.Errorf(format, args...)}
}
