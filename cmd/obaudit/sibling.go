package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
)

// runChild runs path with args and the given streams and returns its exit
// code. An interrupt of this process reaches the child through the
// terminal's process group; the child decides its own exit.
func runChild(_ context.Context, path string, args []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	c := exec.Command(path, args...)
	c.Stdin, c.Stdout, c.Stderr, c.Env = stdin, stdout, stderr, handOverEnv()
	err := c.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() >= 0 {
		return ee.ExitCode(), nil
	}
	if err != nil {
		return 0, fmt.Errorf("running %s: %w", path, err)
	}
	return 0, nil
}
