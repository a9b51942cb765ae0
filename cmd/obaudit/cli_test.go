package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// obaudit runs the CLI in-process, on an empty stdin, and returns its exit
// code, stdout and stderr.
func obaudit(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// mustRun runs the CLI in-process and returns its stdout; the test fails
// unless it exits 0.
func mustRun(t testing.TB, args ...string) string {
	t.Helper()
	code, out, errs := obaudit(args...)
	if code != 0 {
		t.Fatalf("obaudit %v = %d: %s%s", args, code, out, errs)
	}
	return out
}
