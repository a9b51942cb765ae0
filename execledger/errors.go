package execledger

import "github.com/obaudit/obaudit/refusal"

// Refusal classes. Each is returned (wrapped in a [*refusal.Refusal] carrying
// detail) by the reader, the writer or both; match with errors.Is. The upstream
// class each corresponds to is named in brackets.
var (
	// ErrNotJSON is returned when a row is not one UTF-8 JSON object (bad
	// UTF-8, bad JSON, an empty line, or a final fragment that is not a
	// recoverable prefix of one object). The input is never echoed.
	// [LedgerSchemaError]
	ErrNotJSON = refusal.Sentinel("ledger/not-json")
	// ErrDuplicateKey is returned when a row names the same object key twice,
	// at any depth. [LedgerSchemaError]
	ErrDuplicateKey = refusal.Sentinel("ledger/duplicate-key")
	// ErrVersion is returned for a ledger_version this build does not read
	// (anything but 2 or 3) or a row whose version differs from the first
	// row's. [LedgerSchemaError]
	ErrVersion = refusal.Sentinel("ledger/version")
	// ErrSchema is returned when a row or payload is missing a field, carries
	// an unknown one, holds a value of the wrong type or shape, or breaks a
	// per-row rule (an attempt that names a fault without a fault outcome, a
	// decision with no answer behind it, …). [LedgerSchemaError]
	ErrSchema = refusal.Sentinel("ledger/schema")
	// ErrVocabulary is returned when a closed-vocabulary field (row kind,
	// attempt outcome, settlement, provider fault, turn reason, stop
	// classification, terminal kind, exclusion code, cost-cap policy, the
	// faults named in fault_counts) holds a value the row's ledger version
	// does not own.
	// [LedgerSchemaError]
	ErrVocabulary = refusal.Sentinel("ledger/vocabulary")
	// ErrForbiddenContent is returned by the recursive scanner when any key or
	// string value at any depth looks like a credential, a header or provider
	// prose, or is longer than 256 code points. [LedgerSecretError]
	ErrForbiddenContent = refusal.Sentinel("ledger/forbidden-content")
	// ErrRowIndex is returned when a row's row_index is not its position: a
	// deleted, duplicated, inserted or re-ordered row. [LedgerChainError]
	ErrRowIndex = refusal.Sentinel("ledger/row-index")
	// ErrBackLink is returned when previous_row_digest_sha256 is not the digest
	// of the row before (or the genesis digest for row 0). [LedgerChainError]
	ErrBackLink = refusal.Sentinel("ledger/back-link")
	// ErrRowDigest is returned when a row does not hash to the
	// row_digest_sha256 it states: an edited row. [LedgerChainError]
	ErrRowDigest = refusal.Sentinel("ledger/row-digest")
	// ErrRowOrder is returned when the journal's shape is wrong: no verified
	// header, a second header, a call or terminal row before the header, or a
	// call_index that is not the number of calls before it. [LedgerChainError]
	ErrRowOrder = refusal.Sentinel("ledger/row-order")
	// ErrAfterTerminal is returned when anything follows the terminal row.
	// [LedgerChainError]
	ErrAfterTerminal = refusal.Sentinel("ledger/after-terminal")
	// ErrDerivedDigest is returned when the header's settings or pricing
	// digest is not the digest of the mapping beside it. [LedgerChainError]
	ErrDerivedDigest = refusal.Sentinel("ledger/derived-digest")
	// ErrArithmetic is returned when an amount does not re-derive: a
	// reservation that is not the call's bound and the run's ceiling at the
	// pinned rates, a measured cost that is not the reported counts at those
	// rates, a forfeited amount that is not the whole reservation.
	// [LedgerChainError]
	ErrArithmetic = refusal.Sentinel("ledger/arithmetic")
	// ErrTotals is returned when a terminal row's totals do not follow from the
	// call rows above it. [LedgerChainError]
	ErrTotals = refusal.Sentinel("ledger/totals")
	// ErrInadmissible is returned for a state the run could not have been in:
	// more calls than max_provider_calls, more attempts than allowed, a turn
	// that does not strictly advance, retries_exhausted before the last
	// allowed attempt, a scored terminal over a fault or a call without a
	// decision, an exclusion with nothing behind it. [LedgerChainError]
	ErrInadmissible = refusal.Sentinel("ledger/inadmissible")
	// ErrIncomplete is returned by a strict read ([Options.RequireComplete])
	// of a verified prefix that has no terminal row. The [*IncompleteError]
	// in the chain carries the prefix's audit.
	// [IncompleteExecutionLedgerError]
	ErrIncomplete = refusal.Sentinel("ledger/incomplete")
	// ErrWriterState is returned when a [Writer] is asked for something its
	// state does not allow: a row after the terminal, any row after a failed
	// write poisoned it, a row after Close, a call_index out of sequence.
	// [LedgerStateError]
	ErrWriterState = refusal.Sentinel("ledger/writer-state")
	// ErrLocation is returned when the ledger's directory is not one this
	// build writes evidence into (not mode 0700, not owned by the effective
	// uid) or the file name is not a plain name. Symbolic links and existing
	// files are refused by internal/safefs as fs/symlink and fs/exists.
	// [LedgerPathError]
	ErrLocation = refusal.Sentinel("ledger/location")
)
