package main

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"

	"github.com/obaudit/obaudit/artefact/sigstore"
	"github.com/obaudit/obaudit/commitment"
	"github.com/obaudit/obaudit/export/agentrun"
	agentrunschemas "github.com/obaudit/obaudit/schemas/agentrun"
	"github.com/spf13/cobra"
)

// The default build links two libraries' worth less than obaudit-sigstore:
// sigstore-go's verification (its transparency-log, Rekor and gRPC
// packages) and github.com/santhosh-tekuri/jsonschema/v5, whose package
// initialisation compiles its draft metaschemas. Together their package
// initialisation was most of every process's start-up (BENCHMARKS.md,
// "Start-up"). A binary built with the obaudit_sigstore tag
// (obaudit-sigstore) links both (sigstore_linked.go); the default build
// hands each command that needs one of them whole to obaudit-sigstore,
// which is the same command line with them: before Execute, for a command
// marked by [markSibling]; from inside its RunE, before it reads anything,
// for a command that needs them only under a flag ([globals.handOver]).

// verifierSet makes Sigstore bundle verifiers (artefact/sigstore/sigverify).
type verifierSet struct {
	// key verifies bundles signed by one pinned public key.
	key func(pub *ecdsa.PublicKey) (commitment.Verifier, error)
	// keyless verifies certificate-signed bundles against a trusted root
	// and an expected identity.
	keyless func(trustedRootJSON []byte, id sigstore.Identity) (commitment.Verifier, error)
}

// verifiersOf adapts sigverify's constructors.
func verifiersOf[V commitment.Verifier](key func(*ecdsa.PublicKey) (V, error), keyless func([]byte, sigstore.Identity) (V, error)) verifierSet {
	return verifierSet{
		key: func(pub *ecdsa.PublicKey) (commitment.Verifier, error) {
			v, err := key(pub)
			if err != nil {
				return nil, err
			}
			return v, nil
		},
		keyless: func(root []byte, id sigstore.Identity) (commitment.Verifier, error) {
			v, err := keyless(root, id)
			if err != nil {
				return nil, err
			}
			return v, nil
		},
	}
}

// verifiers are this binary's: set at init by sigstore_linked.go (and by
// the tests), else none.
var verifiers verifierSet

// agentRunSchema is the compiled Agent Run schema
// (export/agentrun/agentrunschema.Schema).
type agentRunSchema interface {
	agentrun.Checker
	Sources() []agentrunschemas.Source
	StandInsUsed() int
}

// schemaSet is the JSON Schema validation a binary links.
type schemaSet struct {
	// agentRun compiles the Agent Run schema, its external $ids resolved
	// to supplied (nil: the embedded stand-ins).
	agentRun func(supplied fs.FS) (agentRunSchema, error)
	// artefact holds a tree to the published contract-8 schema (one it
	// speaks to: artefact.SchemaApplies).
	artefact func(tree any) error
}

// schemasOf adapts the schema packages' functions.
func schemasOf[S agentRunSchema](agentRun func(fs.FS) (S, error), artefact func(any) error) schemaSet {
	return schemaSet{
		agentRun: func(supplied fs.FS) (agentRunSchema, error) {
			s, err := agentRun(supplied)
			if err != nil {
				return nil, err
			}
			return s, nil
		},
		artefact: artefact,
	}
}

// schemaLib is this binary's: set at init by sigstore_linked.go (and by
// the tests), else none.
var schemaLib schemaSet

// linked reports whether this binary links what obaudit-sigstore links.
func linked() bool { return verifiers.key != nil && schemaLib.artefact != nil }

// siblingAnnotation marks a command that runs only where [linked] holds;
// its value says why ("verifies Sigstore bundles").
const siblingAnnotation = "obaudit/sibling"

// sigstoreBinary is the name obaudit-sigstore is installed under.
const sigstoreBinary = "obaudit-sigstore"

// markSibling marks c as a command that needs what obaudit-sigstore links,
// for the reason why.
func markSibling(c *cobra.Command, why string) *cobra.Command {
	if c.Annotations == nil {
		c.Annotations = map[string]string{}
	}
	c.Annotations[siblingAnnotation] = why
	return c
}

// markSigstore marks c as a command that verifies bundles.
func markSigstore(c *cobra.Command) *cobra.Command {
	return markSibling(c, "verifies Sigstore bundles")
}

// handOver reports whether args name a command marked by [markSibling]
// while this binary does not link what it needs. If so it runs the command
// line in obaudit-sigstore ([handOverTo]) and returns its exit code, or the
// error that kept it from starting (before anything was read or written).
func handOver(ctx context.Context, root *cobra.Command, args []string, stdin io.Reader, stdout, stderr io.Writer) (bool, int, error) {
	if linked() {
		return false, 0, nil
	}
	c, _, err := root.Find(args)
	if err != nil || c.Annotations[siblingAnnotation] == "" || asksHelp(args) {
		return false, 0, nil
	}
	code, err := handOverTo(ctx, c.CommandPath()+" "+c.Annotations[siblingAnnotation], args, stdin, stdout, stderr)
	return true, code, err
}

// handOverTo runs the command line args in obaudit-sigstore, installed
// beside this executable (never looked up on PATH: what verifies a
// signature is not chosen by the environment), and returns its exit code,
// or the error that kept it from starting. what says what needs it ("obaudit
// verify verifies Sigstore bundles").
func handOverTo(ctx context.Context, what string, args []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	if os.Getenv(handedOverEnv) != "" {
		// A default build installed under obaudit-sigstore's name: handing
		// over again would run itself for ever.
		self, _ := os.Executable()
		return 0, fmt.Errorf("%s was handed a command by obaudit (%s), and it does not link what that needs: it is a default build, not obaudit-sigstore; rebuild it with go build -tags obaudit_sigstore", self, what)
	}
	path, err := siblingPath()
	if err != nil {
		return 0, fmt.Errorf("%s in %s, %w", what, sigstoreBinary, err)
	}
	return execSibling(ctx, path, args, stdin, stdout, stderr)
}

// handedOver is the error a RunE returns when it handed its command line to
// obaudit-sigstore ([globals.handOver]), which ran it: run exits with its
// code and prints nothing of its own.
type handedOver struct{ code int }

func (h *handedOver) Error() string {
	return fmt.Sprintf("handed over to %s (exit %d)", sigstoreBinary, h.code)
}

// handedOverEnv marks, in the environment of the obaudit-sigstore obaudit
// runs, that the command was handed over, so that a binary without the
// verifiers never hands it over again.
const handedOverEnv = "OBAUDIT_HANDED_OVER"

// handOverEnv is the environment obaudit-sigstore runs with.
func handOverEnv() []string { return append(os.Environ(), handedOverEnv+"=1") }

// siblingPath is obaudit-sigstore's path: beside this executable, with
// symlinks resolved, and a regular file.
func siblingPath() (string, error) {
	name := sigstoreBinary
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	self, err := os.Executable()
	if err == nil {
		self, err = filepath.EvalSymlinks(self)
	}
	if err != nil {
		return "", fmt.Errorf("and this executable's own path is unknown (%v)", err)
	}
	path := filepath.Join(filepath.Dir(self), name)
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return "", fmt.Errorf("which is not installed beside %s; build it there: go build -tags obaudit_sigstore -o %s ./cmd/obaudit", self, path)
	}
	return path, nil
}

// verification says where this binary's bundle verification and JSON
// Schema validation are: "linked", or "beside" and the obaudit-sigstore it
// hands them to, or "missing" and why.
func verification() (state, detail string) {
	if linked() {
		return "linked", ""
	}
	path, err := siblingPath()
	if err != nil {
		return "missing", sigstoreBinary + ", " + err.Error()
	}
	return "beside", path
}

// asksHelp reports whether args ask for a command's help (-h or --help
// before any "--"), which obaudit prints itself: every command is in its
// tree, only the verifiers are not.
func asksHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "--help":
			return true
		}
	}
	return false
}
