#!/usr/bin/env bash
# The soundness corpus (testdata/soundness, SECURITY.md "Field table" and
# "What local files cannot show"): every committed attack, forged as a hostile
# party would (digests re-derived, ledgers re-chained with amounts and totals
# re-derived, bindings re-bound), must be refused by its named class through
# the command it names, sign must refuse it and verify must answer no for it
# when signed without checks; every positive control must pass all three. The
# corpus must be exactly what its generator writes. OBAUDIT_SOUNDNESS_CORPUS
# names a further directory of vectors in the same form (a held-out corpus).
set -euo pipefail
cd "$(dirname "$0")/../.."

go test ./cmd/obaudit -count=1 -run '^TestSoundnessCorpus$'
go test ./artefact ./execledger -count=1 -run '^TestFieldTable$'
if [ -n "${OBAUDIT_SOUNDNESS_CORPUS:-}" ]; then
  go test ./cmd/obaudit -count=1 -run '^TestSoundnessCorpus$' -soundness-corpus "$(cd "$OBAUDIT_SOUNDNESS_CORPUS" && pwd)"
fi
