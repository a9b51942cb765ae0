package main

import (
	"context"
	"errors"
	"io"
	"os"
	"syscall"
)

// Interrupts. main cancels the command's context (cmd.Context()) at the
// first SIGINT or SIGTERM, with an *interruptError as its cause; a second
// signal ends the process at once. A long command watches the context:
// it dispatches no new work once ctx.Done() is closed, finishes or undoes
// what it holds (no file is left half-written), and returns
// interrupted(ctx) (or any error: once the context is interrupted, the
// process exits 130 whatever the command returns, with the class
// "interrupted" in --json). Reads of stdin ("-") end at the interrupt.

// errInterrupted matches (errors.Is) every interruptError.
var errInterrupted = errors.New("interrupted")

// interruptError is the cancellation cause of an interrupted command
// context: the signal that arrived.
type interruptError struct{ sig os.Signal }

func (e *interruptError) Error() string {
	switch e.sig {
	case os.Interrupt:
		return "interrupted by SIGINT"
	case syscall.SIGTERM:
		return "interrupted by SIGTERM"
	}
	return "interrupted by " + e.sig.String()
}

func (e *interruptError) Is(target error) bool { return target == errInterrupted }

// interruptSignals are the signals that interrupt a command.
var interruptSignals = []os.Signal{os.Interrupt, syscall.SIGTERM}

// withInterrupts returns a context cancelled, with an *interruptError
// cause, by the first signal received on sigs; every later signal calls
// force (main: exit 130 at once). stop releases the watcher.
func withInterrupts(parent context.Context, sigs <-chan os.Signal, force func(os.Signal)) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sigs:
			cancel(&interruptError{sig: s})
		case <-done:
			return
		}
		for {
			select {
			case s := <-sigs:
				force(s)
			case <-done:
				return
			}
		}
	}()
	return ctx, func() { close(done); cancel(nil) }
}

// interrupted returns the interruption that cancelled ctx, or nil: the
// error a long command returns when it stops for a signal.
func interrupted(ctx context.Context) error {
	if cause := context.Cause(ctx); errors.Is(cause, errInterrupted) {
		return cause
	}
	return nil
}

// interruptibleReader makes reads of r end, with the interruption as the
// error, once ctx is interrupted: a command blocked reading stdin stops at
// Ctrl-C. The read in flight is abandoned (its goroutine ends with the
// process).
func interruptibleReader(ctx context.Context, r io.Reader) io.Reader {
	if r == nil {
		return nil
	}
	return &ctxReader{ctx: ctx, r: r}
}

type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

type readResult struct {
	n   int
	err error
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, context.Cause(c.ctx)
	}
	if c.ctx.Done() == nil {
		return c.r.Read(p)
	}
	buf := make([]byte, len(p))
	ch := make(chan readResult, 1)
	go func() {
		n, err := c.r.Read(buf)
		ch <- readResult{n, err}
	}()
	select {
	case res := <-ch:
		copy(p, buf[:res.n])
		return res.n, res.err
	case <-c.ctx.Done():
		return 0, context.Cause(c.ctx)
	}
}
