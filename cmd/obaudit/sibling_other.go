//go:build !unix

package main

import (
	"context"
	"io"
)

// execSibling runs path as a child with the same command line and streams
// and returns its exit code (no exec on this host).
func execSibling(ctx context.Context, path string, args []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	return runChild(ctx, path, args, stdin, stdout, stderr)
}
