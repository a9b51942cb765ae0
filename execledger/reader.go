package execledger

import (
	"bufio"
	"errors"
	"io"
	"strconv"

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/internal/limits"
	"github.com/obaudit/obaudit/internal/safefs"
	"github.com/obaudit/obaudit/refusal"
)

// Options control a read.
type Options struct {
	// RequireComplete makes a verified prefix with no terminal row a refusal
	// ([ErrIncomplete], carrying the prefix's audit in an [*IncompleteError])
	// instead of an [Audit] whose status is "incomplete".
	RequireComplete bool
	// OnCall, if set, receives every verified call row, in order, as soon as
	// it is verified. An error it returns stops the read and is returned.
	OnCall func(*Call) error
	// DiscardCalls leaves Audit.Calls nil, so memory does not grow with the
	// journal (a streaming read of any size; use OnCall to see the rows).
	DiscardCalls bool
}

// Audit is what a read verified.
type Audit struct {
	// Version is the journal's ledger_version (2 or 3).
	Version int
	// Header is the verified header.
	Header Header
	// Calls are the verified call rows (nil with Options.DiscardCalls).
	Calls []Call
	// DecisionCallIndex lists the call_index of every call carrying a
	// decision, in row order (nil with Options.DiscardCalls).
	DecisionCallIndex []int64
	// Terminal is the verified terminal row, or nil for a prefix.
	Terminal *Terminal
	// Totals are re-derived from the verified call rows, never read off the
	// terminal row.
	Totals Totals
	// RowsVerified counts the rows accepted into the chain.
	RowsVerified int
	// TruncatedTail reports that the file ended in a torn final fragment
	// that was left out of the chain.
	TruncatedTail bool
	// ChainTip is the row_digest_sha256 of the last verified row.
	ChainTip string
	// LedgerBytes is the number of bytes in the verified rows (the torn tail
	// excluded).
	LedgerBytes int64

	discarded bool
}

// Status is the terminal kind, or "incomplete" for a verified prefix.
func (a *Audit) Status() string {
	if a.Terminal == nil {
		return StatusIncomplete
	}
	return a.Terminal.Kind
}

// Complete reports whether the journal ends in a verified terminal row.
func (a *Audit) Complete() bool { return a.Terminal != nil }

// Scored reports whether the terminal kind is scored.
func (a *Audit) Scored() bool { return a.Terminal != nil && a.Terminal.Kind == TerminalScored }

// LedgerDigest is the terminal row's digest (the value an artefact binds as
// execution_ledger_digest_sha256), or "" for an incomplete journal.
func (a *Audit) LedgerDigest() string {
	if a.Terminal == nil {
		return ""
	}
	return a.ChainTip
}

// Summary is the JSON report of a read (upstream ExecutionLedgerAudit.summary,
// plus the chain tip and the pricing identity).
func (a *Audit) Summary() map[string]any {
	var ld, code any
	if a.Terminal != nil {
		ld = a.ChainTip
		code = opt(a.Terminal.ExclusionCode)
	}
	return map[string]any{
		"ledger_version":         a.Version,
		"execution_run_id":       a.Header.ExecutionRunID,
		"operation_instance_id":  a.Header.OperationInstanceID,
		"scenario_id":            a.Header.ScenarioID,
		"model":                  a.Header.Provider.Model,
		"settings_digest_sha256": a.Header.Provider.SettingsDigest,
		"pricing_digest_sha256":  a.Header.Controls.PricingDigest,
		"ledger_digest_sha256":   ld,
		"chain_tip_sha256":       a.ChainTip,
		"status":                 a.Status(),
		"complete":               a.Complete(),
		"scored":                 a.Scored(),
		"truncated_tail":         a.TruncatedTail,
		"rows_verified":          a.RowsVerified,
		"exclusion_code":         code,
		"totals":                 a.Totals.Map(),
	}
}

// IncompleteError is the refusal of a strict read over a verified prefix
// with no terminal row; Audit is that prefix.
type IncompleteError struct {
	*refusal.Refusal
	Audit *Audit
}

// Unwrap returns the refusal.
func (e *IncompleteError) Unwrap() error { return e.Refusal }

// ReadFile reads and verifies the journal at path (see [Read]).
func ReadFile(path string, opts Options) (*Audit, error) {
	f, err := safefs.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, opts)
}

// Read verifies a journal as it streams: every row's shape, the chain
// (index, back-link, digest), the forbidden-content scan, the header's
// derived digests, every amount and the terminal totals, and the cross-row
// admissibility rules. It holds O(1) state per row (plus Calls, unless
// discarded). A final fragment without its newline that is a recoverable
// prefix of one object is a torn write: it is left out and TruncatedTail is
// set. Refusals are the classes in errors.go; I/O errors are returned as
// they are.
func Read(r io.Reader, opts Options) (*Audit, error) {
	rd := &reader{opts: opts, br: bufio.NewReaderSize(r, 256<<10), a: &Audit{}, prev: GenesisDigest}
	if err := rd.run(); err != nil {
		return nil, err
	}
	a := rd.a
	if a.RowsVerified == 0 {
		return nil, refusal.New(ErrRowOrder, "no verified header row, so there is no run to report")
	}
	a.ChainTip = rd.prev
	a.discarded = opts.DiscardCalls
	a.Totals = rd.t.totals()
	if opts.RequireComplete && a.Terminal == nil {
		return nil, &IncompleteError{Refusal: refusal.New(ErrIncomplete, "the journal has no terminal row: a verified prefix of %d rows is incomplete, never a scored run", a.RowsVerified), Audit: a}
	}
	return a, nil
}

type reader struct {
	opts Options
	br   *bufio.Reader
	a    *Audit
	t    *tally
	h    *parsedHeader
	prev string
	line []byte
	dg   digester
}

// next returns the next line without its newline, whether it had one, and
// io.EOF after the last.
func (rd *reader) next() ([]byte, bool, error) {
	rd.line = rd.line[:0]
	for {
		frag, err := rd.br.ReadSlice('\n')
		if len(rd.line)+len(frag) > limits.MaxLedgerLineBytes+1 {
			return nil, false, limits.Exceeded("MaxLedgerLineBytes", limits.MaxLedgerLineBytes, int64(len(rd.line)+len(frag)))
		}
		rd.line = append(rd.line, frag...)
		switch {
		case err == nil:
			return rd.line[:len(rd.line)-1], true, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == io.EOF:
			if len(rd.line) == 0 {
				return nil, false, io.EOF
			}
			return rd.line, false, nil
		default:
			return nil, false, err
		}
	}
}

func (rd *reader) run() error {
	for i := 0; ; i++ {
		line, nl, err := rd.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if rd.a.Terminal != nil {
			return refusal.New(ErrAfterTerminal, "row %d: follows the terminal row", i)
		}
		v, err := canon.Parse(line)
		if err != nil {
			if errors.Is(err, canon.ErrDuplicateKey) {
				return refusal.New(ErrDuplicateKey, "row %d: duplicate object key", i)
			}
			if !nl && recoverablePrefix(line) {
				rd.a.TruncatedTail = true
				return nil
			}
			return refusal.New(ErrNotJSON, "row %d: not one UTF-8 JSON object", i)
		}
		if err := rd.row(i, v); err != nil {
			return err
		}
		rd.a.LedgerBytes += int64(len(line))
		if nl {
			rd.a.LedgerBytes++
		}
	}
}

func (rd *reader) row(i int, v any) error {
	m, ok := v.(map[string]any)
	if !ok {
		return refusal.New(ErrSchema, "row %d: a ledger row is a JSON object", i)
	}
	ver, ok := m["ledger_version"].(int64)
	if !ok || vocabFor(ver) == nil {
		return refusal.New(ErrVersion, "row %d: ledger_version is not a version this build reads (2 or 3)", i)
	}
	if i == 0 {
		rd.a.Version = int(ver)
	} else if int(ver) != rd.a.Version {
		return refusal.New(ErrVersion, "row %d: states execution ledger version %d, but the journal began as version %d; one chain cannot change schema identity between rows", i, ver, rd.a.Version)
	}
	kind, isStr := m["row_kind"].(string)
	if !isStr {
		return refusal.New(ErrSchema, "row %d: row_kind is missing or not a string", i)
	}
	if kind != RowHeader && kind != RowCall && kind != RowTerminal {
		return refusal.New(ErrVocabulary, "row %d: row_kind is not a value this build writes", i)
	}
	var c check
	c.record(m, append(append([]string(nil), envelopeBase...), kind), "row "+strconv.Itoa(i), rd.a.Version)
	if c.err != nil {
		return c.err
	}
	if err := Scan(m, "row "+strconv.Itoa(i)); err != nil {
		return err
	}
	if idx, ok := m["row_index"].(int64); !ok || idx != int64(i) {
		return refusal.New(ErrRowIndex, "row %d: row_index is not its position; a gap, a repeat or a swap is refused", i)
	}
	if p, _ := m["previous_row_digest_sha256"].(string); p != rd.prev {
		return refusal.New(ErrBackLink, "row %d: does not back-link to the row before it", i)
	}
	stated, _ := m["row_digest_sha256"].(string)
	got, err := rd.dg.rowDigest(m)
	if err != nil {
		return refusal.Wrap(ErrSchema, err, "row %d: cannot be canonically encoded", i)
	}
	if got != stated {
		return refusal.New(ErrRowDigest, "row %d: does not hash to the digest it states", i)
	}
	payload := m[kind]
	if kind != RowHeader && rd.h == nil {
		return refusal.New(ErrRowOrder, "row %d: a %s row precedes the header", i, kind)
	}
	switch kind {
	case RowHeader:
		if i != 0 {
			return refusal.New(ErrRowOrder, "row %d: a journal has one header, first", i)
		}
		h, err := decodeHeader(payload, rd.a.Version)
		if err != nil {
			return err
		}
		rd.h, rd.t = h, newTally(h)
		rd.a.Header = h.Header
	case RowCall:
		call, err := decodeCall(payload, rd.a.Version)
		if err != nil {
			return err
		}
		if call.CallIndex != rd.t.calls {
			return refusal.New(ErrRowOrder, "row %d: call_index %d where %d calls precede it", i, call.CallIndex, rd.t.calls)
		}
		if err := rd.t.admitCall(call); err != nil {
			return err
		}
		rd.t.addCall(call)
		if call.Decision != nil && !rd.opts.DiscardCalls {
			rd.a.DecisionCallIndex = append(rd.a.DecisionCallIndex, call.CallIndex)
		}
		if rd.opts.OnCall != nil {
			if err := rd.opts.OnCall(call); err != nil {
				return err
			}
		}
		if !rd.opts.DiscardCalls {
			rd.a.Calls = append(rd.a.Calls, *call)
		}
	case RowTerminal:
		term, err := decodeTerminal(payload, rd.a.Version)
		if err != nil {
			return err
		}
		if err := rd.t.admitTerminal(term.Kind, term.EndedAt, term.ExclusionCode); err != nil {
			return err
		}
		if !totalsEqual(term.Totals, rd.t.totals()) {
			return refusal.New(ErrTotals, "row %d: the terminal totals do not follow from the call rows above them", i)
		}
		rd.a.Terminal = term
	}
	rd.prev = stated
	rd.a.RowsVerified++
	return nil
}
