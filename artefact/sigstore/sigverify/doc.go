// Package sigverify verifies Sigstore bundles offline and fail-closed:
// against one pinned public key ([NewKeyVerifier]) or keyless, against a
// trusted root and an expected certificate identity
// ([NewKeylessVerifier]). It is the only package in obaudit that imports
// github.com/sigstore/sigstore-go, whose transparency-log, Rekor, protobuf
// and gRPC packages it links; so only obaudit-sigstore (cmd/obaudit built
// with the obaudit_sigstore tag) links it. The format, the verification
// steps and the refusal classes are the parent package's (artefact/sigstore).
package sigverify
