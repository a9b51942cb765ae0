package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/obaudit/obaudit/cmd/obaudit/internal/startgc"
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
	// exitInterrupted: stopped by SIGINT or SIGTERM (128 + SIGINT, the
	// shell's convention), whichever signal it was.
	exitInterrupted = 130
)

// errNo reports that a command ran and its answer is no. Its report has
// already been written to stdout; the detail goes to stderr.
type errNo struct{ detail string }

func (e *errNo) Error() string { return e.detail }

func answerNo(format string, args ...any) error {
	return &errNo{detail: fmt.Sprintf(format, args...)}
}

// answerNoUnless is nil when ok, else answerNo(format, args...): the last
// step of a command that has written its report (args are evaluated
// either way).
func answerNoUnless(ok bool, format string, args ...any) error {
	if ok {
		return nil
	}
	return answerNo(format, args...)
}

// ranErr marks an error returned by a RunE, as opposed to one cobra raised
// while reading the command line (which is a usage error).
type ranErr struct{ err error }

func (e *ranErr) Error() string { return e.err.Error() }
func (e *ranErr) Unwrap() error { return e.err }

// globals are the flags every command shares.
type globals struct {
	json bool
	// handOver runs the whole command line in obaudit-sigstore, for a
	// command that needs what only it links under the flags given (what
	// says so: "obaudit validate --schema runs the published JSON
	// Schema"); it returns the [handedOver] that carries the exit code, or
	// why it could not. A RunE calls it before reading anything.
	handOver func(what string) error
}

// newRootCmd builds a fresh command tree reading stdin and writing stdout
// and stderr (set first: cobra's completion commands keep the writer they
// are made with). Each subcommand lives in its own file as newXCmd(g).
func newRootCmd(g *globals, stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "obaudit",
		Short:         "Run, record, sign and audit OperateBench episodes",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.PersistentFlags().BoolVar(&g.json, "json", false, "write the report, or the failure, as one JSON document")
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
		markSigstore(newVerifyCmd(g)),
		markSigstore(newCommitCmd(g)),
		newVerifyInclusionCmd(g),
		newExportCmd(g),
		newReportCmd(g),
		newValidateCmd(g),
		newReplayCmd(g),
		newPreflightCmd(g),
		newArmsCmd(g),
		newCampaignCmd(g),
	)
	strictCommands(root, g)
	registerCompletions(root)
	markRunErrors(root)
	return root
}

// markRunErrors wraps every RunE in the tree so that its errors are told
// apart from command-line errors, and so that the collector start-up held
// off (startgc) is back on before the command's own work.
func markRunErrors(c *cobra.Command) {
	if f := c.RunE; f != nil {
		c.RunE = func(cmd *cobra.Command, args []string) error {
			startgc.Resume()
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
// below main calls os.Exit. ctx is the command's context: main cancels it,
// with an [interruptError] as its cause, at SIGINT or SIGTERM.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var g globals
	out := &countingWriter{w: stdout}
	root := newRootCmd(&g, interruptibleReader(ctx, stdin), out, stderr)
	g.handOver = func(what string) error {
		code, err := handOverTo(ctx, what, args, stdin, stdout, stderr)
		if err != nil {
			return err
		}
		return &handedOver{code}
	}
	over, code, err := handOver(ctx, root, args, stdin, stdout, stderr)
	switch {
	case over && err == nil:
		return code
	case over:
		err = &ranErr{err}
	default:
		root.SetArgs(args)
		err = root.ExecuteContext(ctx)
		if h := (*handedOver)(nil); errors.As(err, &h) {
			return h.code
		}
	}
	o := outcomeOf(ctx, err)
	o.print(stderr)
	// With --json (anywhere on the line, even one cobra could not parse),
	// stdout carries exactly one JSON document: the command's report, or,
	// when it wrote none, the outcome.
	if (g.json || jsonRequested(args)) && out.n == 0 && o.exit != exitOK {
		writeOutcomeJSON(stdout, o)
	}
	return o.exit
}

// outcome is how a command ended: its exit code, and for a failure its
// class (a refusal class, or one of the classUsage, classFailure,
// classInterrupted, classNo names, which have no slash) and detail.
type outcome struct {
	exit   int
	class  string
	detail string
}

// Outcome classes that are not refusals (a refusal class always has a
// slash).
const (
	classUsage       = "usage"
	classFailure     = "failure"
	classInterrupted = "interrupted"
	classNo          = "no"
)

// outcomeOf maps a command's error to its exit code, class and detail: the
// one place exit codes are decided.
func outcomeOf(ctx context.Context, err error) outcome {
	if err == nil {
		return outcome{exit: exitOK}
	}
	if cause := context.Cause(ctx); errors.Is(cause, errInterrupted) {
		detail := cause.Error()
		if !errors.Is(err, errInterrupted) && !errors.Is(err, context.Canceled) {
			detail += ": " + err.Error()
		}
		return outcome{exit: exitInterrupted, class: classInterrupted, detail: detail}
	}
	var re *ranErr
	if !errors.As(err, &re) {
		return outcome{exit: exitUsage, class: classUsage, detail: err.Error()}
	}
	if class, ok := refusal.ClassOf(err); ok {
		return outcome{exit: exitRefused, class: string(class), detail: refusal.Detail(err)}
	}
	var no *errNo
	if errors.As(err, &no) {
		return outcome{exit: exitNo, class: classNo, detail: no.detail}
	}
	var ue *usageErr
	if errors.As(err, &ue) {
		return outcome{exit: exitUsage, class: classUsage, detail: ue.err.Error()}
	}
	return outcome{exit: exitFailure, class: classFailure, detail: re.err.Error()}
}

// print writes the outcome's line to stderr: "refused: <class>: <detail>",
// "no: <detail>", "interrupted: <detail>" or "error: <detail>".
func (o outcome) print(stderr io.Writer) {
	switch {
	case o.exit == exitOK:
	case o.exit == exitRefused:
		fmt.Fprintf(stderr, "refused: %s: %s\n", o.class, o.detail)
	case o.exit == exitNo:
		if o.detail != "" {
			fmt.Fprintf(stderr, "no: %s\n", o.detail)
		}
	case o.exit == exitInterrupted:
		fmt.Fprintf(stderr, "interrupted: %s\n", o.detail)
	default:
		fmt.Fprintf(stderr, "error: %s\n", o.detail)
	}
}

// usageErr lets a RunE report a command-line problem it found itself (an
// unknown --form value, say) with the usage exit code.
type usageErr struct{ err error }

func (e *usageErr) Error() string { return e.err.Error() }
func (e *usageErr) Unwrap() error { return e.err }

func usagef(format string, args ...any) error {
	return &usageErr{fmt.Errorf(format, args...)}
}
