//go:build obaudit_sigstore

package main

import "github.com/obaudit/obaudit/artefact/sigstore/sigverify"

// Built with the obaudit_sigstore tag, this is obaudit-sigstore: it links
// the verifiers itself.
func init() { verifiers = verifiersOf(sigverify.NewKeyVerifier, sigverify.NewKeylessVerifier) }
