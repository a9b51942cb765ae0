// Package artefact implements upstream OperateBench's episode artefact:
// a strict reader for contracts 1 to 8, each under its own historical
// semantics, and a writer for contract 8 whose bytes are upstream's.
//
// Three readers make three different claims, and this package is the first
// and the shared part of the second:
//
//   - [Read] and [Validate] establish coherence: the document's identity,
//     execution record, decision tape and provider execution binding
//     describe one run, and its content digests describe its content. They
//     never open a ledger, so they make no claim about what a ledger holds,
//     and a binding read out of an artefact attributes nothing.
//   - Replay (package episode) establishes reproduction; [Compare] and
//     [CheckRetrievalProvenance] are its document half.
//   - Agreement between an artefact and its ledger is package bundle's.
//
// None of them is attestation: a party who can run this build can mint a
// fully coherent record.
//
// # Format
//
// One JSON object rendered in upstream canonical form (sorted keys, compact
// separators, raw UTF-8; see canon.Upstream) followed by exactly one
// newline, created once with mode 0600 ([Encode], [WriteFile]). The field
// names are upstream's ("artifact_version", not "artefact_version").
// Contract 8 has 28 top-level keys ([Fields]); every key belongs to exactly
// one replay section ([Sections]). Three content digests are SHA-256 over
// the canonical bytes of final_state, trajectory and decisions, lowercase
// hex without prefix. [Artefact] is the typed view; values the engine and
// the domain own (events, trajectory rows, final state, decision bodies)
// stay JSON trees so that re-encoding reproduces their bytes.
//
// Domain knowledge the format does not carry (registered agents and their
// kinds, terminal classes, the canonical final-state validator) comes in
// through [Options] as [Domain] entries; the zero Options fails closed.
//
// # Refusals
//
// Every refusal is a refusal.Refusal of one of this package's classes
// (ErrUnsupportedVersion … ErrRetrievalProvenance; SECURITY.md lists them),
// and its detail starts with the JSON pointer of the value it is about,
// which [Pointer] returns. The strict parse refuses first with package
// canon's classes and internal/limits' limits/exceeded; the writer refuses
// with internal/safefs' fs/… classes. Tests assert classes and pointers,
// never messages.
//
// # Compatibility
//
// Contracts 1..8 are read, each held to its own exact top-level field set,
// trajectory row shapes, result vector and finding-code ownership: a
// document does not gain later fields by being read by this build, and may
// not omit fields its contract required. Only contract 8 is written and
// reproduced ([Reproducible]). A new upstream contract is a new entry in
// these tables with its own frozen vectors; the old readers stay.
// schemas/artefact/v8.json is the published JSON Schema of contract 8;
// package artefact/schema runs it as published, held to the named checks as
// an oracle by the tests (obaudit validate --schema runs it too).
//
// Deliberate differences from upstream's reader: duplicate keys, NaN and
// Infinity are refused at parse (upstream's parser takes the last key and
// refuses non-finite numbers one step later), instants must be the exact
// zero-padded form (upstream's strptime is lenient), integers are limited
// to ±(2^53−1), the amount "-0" is refused as non-canonical, and replay
// compares canonical bytes rather than Python equality (1 and 1.0, or
// true and 1, never compare equal).
package artefact
