//go:build unix

package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"syscall"
)

// execSibling replaces this process with path, given the same command line,
// environment and standard streams: same process, same signals, its exit
// status is the command's. It returns only if the exec failed, or when the
// streams are not this process's own (a test driving run in-process), in
// which case it runs path as a child instead.
func execSibling(ctx context.Context, path string, args []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	if stdin == io.Reader(os.Stdin) && stdout == io.Writer(os.Stdout) && stderr == io.Writer(os.Stderr) {
		err := syscall.Exec(path, append([]string{path}, args...), handOverEnv())
		return 0, fmt.Errorf("running %s: %w", path, err)
	}
	return runChild(ctx, path, args, stdin, stdout, stderr)
}
