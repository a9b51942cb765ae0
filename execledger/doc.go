// Package execledger implements OperateBench's execution ledger: the
// hash-chained NDJSON journal of every provider call a model-backed run
// made — what each call was authorised to cost, what it cost, how it
// faulted — written row by row as the run goes, and read back with every
// judgement re-derived.
//
// # Format
//
// One JSON object per line, each ending in "\n": a header row, one call row
// per model call, at most one terminal row (kind scored, excluded or
// aborted). Every row carries exactly ledger_version, row_index (its
// position), row_kind, previous_row_digest_sha256 (64 zeros for row 0),
// row_digest_sha256 and one payload named by row_kind. A row's digest is the
// SHA-256 of the upstream canonical JSON (canon.UpstreamDigest) of the row
// without its own digest; the terminal row's digest is the ledger digest an
// artefact binds. Lines are written in upstream's spaced canonical form
// (canon.UpstreamSpaced), byte-compatible with upstream's files.
//
// Amounts are exact decimal strings in one canonical rendering, never
// floats, computed like Python's Decimal at 60 significant digits
// ([Decimal]): a reservation from the call's input bound and the run's
// output ceiling at the pinned rates, a measured cost from the reported
// counts at the same rates, a forfeited reservation whole. The three are
// never summed. The pricing policy and the provider settings are digested
// and the digests re-derived.
//
// # Writing and reading
//
// [Create] makes the file exclusively beneath a directory reached without
// following links (internal/safefs; directory mode 0700, owned by the
// effective user; the mode and owner are judged on the held directory
// descriptor) and writes the header. [Writer.RecordCall] and
// [Writer.Finalize] validate a row with the reader's own code before
// appending it, then write it whole and fsync; a failed write or fsync
// truncates back to the row's start and poisons the writer for good, so
// what survives is always a verified prefix ([WriteError]).
//
// [Read] streams a journal and verifies everything: chain, schema and
// vocabularies of the row's version, the forbidden-content [Scan], derived
// digests, amounts, terminal totals and the cross-row admissibility rules.
// A verified prefix with no terminal row reads as "incomplete" (a strict
// read refuses it with [ErrIncomplete]); a torn final fragment is left out
// of the chain. [Audit.Binding]
// and [Writer.Binding] give the artefact's provider_execution binding of a
// scored journal; a signer wanting a ledger's head and terminal kind reads
// [Audit.ChainTip] and [Audit.Status] after a strict [Read].
//
// # Refusals
//
// Every refusal is a refusal.Refusal of one of the classes declared in
// errors.go (ledger/…); tests assert classes. I/O failures are not
// refusals.
//
// # Compatibility
//
// Versions 2 and 3 are read, each with its own literal vocabularies;
// version 3 is written ([Version]). Version 3 adds three provider faults and
// requires response_received whenever an HTTP status is stated. A change to
// what a row may say is a new ledger_version; the old reader and its frozen
// vectors (testdata/vectors/ledger/v2, v3) stay.
package execledger
