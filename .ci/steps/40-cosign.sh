#!/usr/bin/env bash
# Cosign interoperability for run commitments, offline, both directions:
#   1. cosign verify-blob-attestation --key --type <obaudit predicate> --insecure-ignore-tlog
#      accepts a bundle made by `obaudit sign` (for the artefact and for the ledger), and
#      refuses the artefact with one byte changed;
#   2. `obaudit verify` accepts a bundle made by `cosign attest-blob` with the obaudit
#      predicate (from `obaudit sign --predicate-only`), and refuses it for another artefact.
# cosign v3.1.3 is built from the Go module proxy once and cached in $(go env GOPATH)/bin;
# it is a tool, never a dependency of the module.
set -euo pipefail
cd "$(dirname "$0")/../.."

COSIGN_MODULE=github.com/sigstore/cosign/v3
COSIGN_VERSION=v3.1.3
PREDICATE_TYPE=https://obaudit.dev/run-commitment/v1
UPSTREAM=../shared/upstream

bindir="$(go env GOPATH)/bin"
cosign="$bindir/cosign"
if [ -x "$cosign" ] && go version -m "$cosign" | grep -Eq "^[[:space:]]+mod[[:space:]]+${COSIGN_MODULE}[[:space:]]+${COSIGN_VERSION}([[:space:]]|$)"; then
  echo "cosign ${COSIGN_VERSION}: cached at $cosign"
else
  echo "cosign ${COSIGN_VERSION}: building from the module proxy (a few minutes, once)"
  (cd "$(mktemp -d)" && GOFLAGS= GOBIN="$bindir" go install "${COSIGN_MODULE}/cmd/cosign@${COSIGN_VERSION}")
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
go build -o "$work/obaudit" ./cmd/obaudit
# verify, commit and campaign verify/merge run in obaudit-sigstore, beside it
go build -tags obaudit_sigstore -o "$work/obaudit-sigstore" ./cmd/obaudit
cp "$UPSTREAM/artifact8-deterministic-reference-v1.json" "$work/det.json"
cp "$UPSTREAM/artifact8-fake-openai-reference-v1.json" "$work/model.json"
cp "$UPSTREAM/artifact8-fake-openai-reference-v1.execution-ledger-v2.ndjson" "$work/model.ndjson"
cd "$work"

expect_fail() { # expect_fail DESCRIPTION CMD...: the command must exit non-zero
  local what="$1"; shift
  if "$@" >out.txt 2>&1; then
    echo "FAIL: $what was accepted"; cat out.txt; exit 1
  fi
  echo "ok: $what refused"
}

echo "-- 1. obaudit sign -> cosign verify-blob-attestation"
./obaudit keygen --output release >/dev/null
./obaudit sign --key release.key --output model.sigstore.json model.json model.ndjson
for blob in model.json model.ndjson; do
  "$cosign" verify-blob-attestation --key release.pub --bundle model.sigstore.json \
    --type "$PREDICATE_TYPE" --insecure-ignore-tlog=true "$blob"
  echo "ok: cosign accepts obaudit's bundle for $blob"
done
cp model.json tampered.json
printf ' ' >>tampered.json
expect_fail "cosign: obaudit's bundle for the artefact with one byte added" \
  "$cosign" verify-blob-attestation --key release.pub --bundle model.sigstore.json \
  --type "$PREDICATE_TYPE" --insecure-ignore-tlog=true tampered.json
./obaudit keygen --output other >/dev/null
expect_fail "cosign: obaudit's bundle under another key" \
  "$cosign" verify-blob-attestation --key other.pub --bundle model.sigstore.json \
  --type "$PREDICATE_TYPE" --insecure-ignore-tlog=true model.json

echo "-- 2. cosign attest-blob -> obaudit verify"
export COSIGN_PASSWORD=ci-only-not-secret
"$cosign" generate-key-pair --output-key-prefix cs >/dev/null 2>&1
./obaudit sign --predicate-only det.json >predicate.json
"$cosign" attest-blob --key cs.key --predicate predicate.json --type "$PREDICATE_TYPE" \
  --bundle det.cosign.json --tlog-upload=false --use-signing-config=false --yes det.json
./obaudit verify --bundle det.cosign.json --key cs.pub det.json
echo "ok: obaudit accepts cosign's attestation"
code=0; ./obaudit verify --bundle det.cosign.json --key cs.pub model.json 2>err.txt || code=$?
grep -q '^refused: commitment/subject-mismatch: ' err.txt && [ "$code" = 1 ] || { echo "FAIL: obaudit verify of cosign's bundle for another artefact: exit $code"; cat err.txt; exit 1; }
echo "ok: obaudit refuses cosign's attestation for another artefact (commitment/subject-mismatch)"
code=0; ./obaudit verify --bundle det.cosign.json --key release.pub det.json 2>err.txt || code=$?
grep -q '^refused: signature/invalid: ' err.txt && [ "$code" = 1 ] || { echo "FAIL: obaudit verify of cosign's bundle under another key: exit $code"; cat err.txt; exit 1; }
echo "ok: obaudit refuses cosign's attestation under another key (signature/invalid)"
echo "cosign interop passed"
