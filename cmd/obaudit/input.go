package main

import (
	"bytes"
	"crypto/ecdsa"
	"io"
	"os"
	"runtime/debug"
	"sync/atomic"

	"github.com/obaudit/obaudit/artefact/sigstore"
	"github.com/obaudit/obaudit/internal/limits"
	"github.com/obaudit/obaudit/internal/safefs"
	"github.com/spf13/cobra"
)

// readInput reads the named file, or stdin for "-", bounded by
// limits.MaxInputBytes (a larger input is refused as limits/exceeded).
func readInput(cmd *cobra.Command, name string) ([]byte, error) {
	var r io.Reader
	size := 0 // stdin: grown as it is read
	if name == "-" {
		r = cmd.InOrStdin()
	} else {
		f, err := safefs.OpenRegular(name)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
		if fi, err := f.Stat(); err == nil && fi.Size() < limits.MaxInputBytes {
			size = int(fi.Size())
		}
	}
	b, err := readAll(io.LimitReader(r, limits.MaxInputBytes+1), size)
	if err != nil {
		return nil, err
	}
	if len(b) > limits.MaxInputBytes {
		return nil, limits.Exceeded("MaxInputBytes", limits.MaxInputBytes, int64(len(b)))
	}
	boundMemory(len(b))
	return b, nil
}

// readOptional reads an optional input: nil, and nothing read, when name is
// "" (its flag was not given); else readInput, or readInputAs when a kind
// is wanted.
func readOptional(cmd *cobra.Command, name string, want ...*fileKind) ([]byte, error) {
	switch {
	case name == "":
		return nil, nil
	case len(want) == 0:
		return readInput(cmd, name)
	}
	return readInputAs(cmd, name, want...)
}

// readAll is io.ReadAll into a buffer that already holds size bytes and
// bytes.Buffer's one read of slack: a regular file's size is known, and
// growing from 512 bytes to it (copying and faulting in each larger buffer)
// cost a cold validate of the 220 KB V1 artefact 5.2 M instructions,
// against 0.1 M read at the size.
func readAll(r io.Reader, size int) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(size + bytes.MinRead)
	_, err := buf.ReadFrom(r)
	return buf.Bytes(), err
}

// inputBytes is how many bytes this process's commands read whole.
var inputBytes atomic.Int64

// boundMemory raises the Go runtime's soft memory limit to 64 MiB plus 7×
// the bytes read so far (unless GOMEMLIMIT is set): the collector runs as
// often as it must to keep the process within the bound SECURITY.md states
// and BENCHMARKS.md measures, 64 MiB + 8× the input ("Peak memory"); the
// eighth is headroom for memory the collector does not manage.
func boundMemory(n int) {
	total := inputBytes.Add(int64(n))
	if _, set := os.LookupEnv("GOMEMLIMIT"); set {
		return
	}
	debug.SetMemoryLimit(64<<20 + 7*total)
}

// readPrivateKey reads a PEM private key (sigstore.ParsePrivateKey) from
// the named file, or stdin for "-".
func readPrivateKey(cmd *cobra.Command, name string) (*ecdsa.PrivateKey, error) {
	b, err := readInputAs(cmd, name, kindPrivateKey)
	if err != nil {
		return nil, err
	}
	return sigstore.ParsePrivateKey(b)
}

// readPublicKey reads a PEM public key (sigstore.ParsePublicKey) from the
// named file, or stdin for "-".
func readPublicKey(cmd *cobra.Command, name string) (*ecdsa.PublicKey, error) {
	b, err := readInputAs(cmd, name, kindPublicKey)
	if err != nil {
		return nil, err
	}
	return sigstore.ParsePublicKey(b)
}
