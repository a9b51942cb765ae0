// Package sigstore signs obaudit run commitments as Sigstore bundles and
// reads and writes their keys. It imports no Sigstore library: a key-signed
// bundle's JSON (the protobuf JSON form, canonicalised) and its DSSE
// pre-authentication encoding are written here directly, and the tests hold
// them byte for byte to sigstore-go's pkg/sign (through protojson) and to
// go-securesystemslib's dsse.PAE, so that signing links no protobuf or
// sigstore-go runtime. Verification is the subpackage sigverify, the only
// package in obaudit that imports github.com/sigstore/sigstore-go (pinned at
// v1.3.0, the newest release that builds with Go 1.26), apart from the
// test-support subpackage sigstoretest, which only tests import. Everything
// else sees them through the small statement-in, bundle-out and bundle-in,
// statement-out shapes of [KeySigner.SignStatement] and
// sigverify.Verifier.VerifyStatement, which the commitment package declares
// as its own Signer and Verifier interfaces.
//
// # Format
//
// A bundle is a Sigstore bundle, media type
// application/vnd.dev.sigstore.bundle.v0.3+json, whose content is a DSSE
// envelope with payload type application/vnd.in-toto+json and exactly one
// signature. The payload is the in-toto Statement bytes exactly as the
// caller passed them. obaudit writes bundles in RFC 8785 canonical form, so
// the bytes of a bundle file are stable across builds (protojson's own
// output is deliberately not). Any v0.1–v0.3 bundle sigstore-go accepts is
// read, including those written by cosign attest-blob.
//
// Keys are ECDSA P-256 (SHA-256): PKCS#8 "PRIVATE KEY" (or SEC 1 "EC PRIVATE
// KEY") PEM for signing, PKIX "PUBLIC KEY" PEM for verifying, the same PEM
// forms cosign reads and writes for unencrypted keys.
//
// # Verification
//
// Verification (sigverify) is offline and fail-closed. With a pinned public key the
// bundle's unauthenticated key hint is ignored and no time is checked (a
// key-signed bundle carries none). Keyless verification takes a Sigstore
// trusted root (JSON) and an expected certificate identity and OIDC issuer;
// it requires one verified transparency-log entry and one verified observer
// timestamp (the log's integrated time or an RFC 3161 timestamp), checks the
// Fulcio certificate chain at every verified timestamp, and then the
// identity. No network access happens in either mode, and no wall clock is
// read: certificate validity is judged at the verified timestamps.
//
// The decision is sigstore-go's. Only after it has refused does this package
// re-run the individual steps to name the refusal's class.
//
// # Refusals
//
// [ErrKeyInvalid], [ErrKeyUnsupported], [ErrTrustedRootInvalid],
// [ErrMalformedBundle],
// [ErrSignatureInvalid], [ErrTlogInvalid], [ErrTimestampInvalid],
// [ErrCertificateInvalid], [ErrIdentityMismatch].
//
// # Compatibility
//
// The bundle format is Sigstore's; obaudit adds nothing to it. A new bundle
// media type is read only once sigstore-go reads it.
package sigstore
