package execledger

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/internal/safefs"
	"github.com/obaudit/obaudit/refusal"
)

// WriterOptions configure [Create]. The zero value is the real system calls.
type WriterOptions struct {
	// Ops is the fault-injection seam over write(2) and fsync(2); nil
	// fields mean the real calls.
	Ops safefs.Ops
}

// WriteError is returned when a row could not be made durable (a failed
// write or fsync). It is a failure, not a refusal. The partial row has been
// truncated away (RolledBack reports whether the truncation itself
// succeeded) and the writer is poisoned: nothing, not even a terminal row,
// is ever appended after it, so the file reads as the verified prefix that
// preceded the failure.
type WriteError struct {
	Row        int
	RolledBack bool
	Err        error
}

func (e *WriteError) Error() string {
	return fmt.Sprintf("execution ledger row %d could not be made durable (rolled back: %v): %v", e.Row, e.RolledBack, e.Err)
}

// Unwrap returns the system error.
func (e *WriteError) Unwrap() error { return e.Err }

// AppendFile is the narrow file seam the writer needs; internal/safefs.File
// implements it, and tests substitute in-memory or failing files.
type AppendFile interface {
	WriteAll([]byte) error
	Sync() error
	Truncate(int64) error
	Size() int64
	Close() error
}

// Writer appends a version-3 execution ledger: one header row, one row per
// model call, one terminal row. Every row is validated by the reader's own
// code before it is appended, then written whole, flushed and fsynced. A
// Writer is not safe for concurrent use.
type Writer struct {
	f         AppendFile
	h         *parsedHeader
	t         *tally
	rows      int
	prev      string
	poison    error
	closed    bool
	terminal  *Terminal
	decisions []int64
	// scratch: the line, the compact row, a payload's compact bytes
	buf, cbuf, pbuf []byte
}

// Create creates the journal at path exclusively (never appending to a file
// this run did not create), beneath a directory reached without following
// symbolic links that must be mode 0700 and owned by the effective uid, and
// writes the header row. The header's settings and pricing digests are
// derived here from the mappings beside them; ledger_version is 3.
func Create(path string, h Header, opts WriterOptions) (*Writer, error) {
	ph, err := prepareHeader(h)
	if err != nil {
		return nil, err
	}
	if name := filepath.Base(path); name == "" || name == "." || name == ".." || name == "/" {
		return nil, refusal.New(ErrLocation, "the ledger needs a plain file name")
	}
	f, err := safefs.CreateAppendChecked(path, 0o600, opts.Ops, checkDirectory)
	if err != nil {
		return nil, err
	}
	return start(f, ph)
}

// NewWriter starts a journal on an already-created, empty append file (a
// safefs.File the caller created, or an in-memory file in tests and the
// vector generator). On success the Writer owns f.
func NewWriter(f AppendFile, h Header) (*Writer, error) {
	ph, err := prepareHeader(h)
	if err != nil {
		return nil, err
	}
	return start(f, ph)
}

func start(f AppendFile, ph *parsedHeader) (*Writer, error) {
	w := &Writer{f: f, h: ph, t: newTally(ph), prev: GenesisDigest}
	if err := w.append(RowHeader, ph.Header.Map()); err != nil {
		f.Close()
		return nil, err
	}
	return w, nil
}

// prepareHeader derives the two digests and validates the header exactly as
// the reader will.
func prepareHeader(h Header) (*parsedHeader, error) {
	sd, err := canon.UpstreamDigest(h.Provider.Settings)
	if err != nil {
		return nil, refusal.Wrap(ErrSchema, err, "header.provider.settings")
	}
	pd, err := canon.UpstreamDigest(h.Controls.Pricing)
	if err != nil {
		return nil, refusal.Wrap(ErrSchema, err, "header.controls.pricing")
	}
	h.Provider.SettingsDigest, h.Controls.PricingDigest = sd, pd
	if d, ok := ParseDecimal(h.Controls.CostCapUSD); ok && d.Sign() > 0 {
		h.Controls.CostCapUSD = d.String()
	}
	v, err := roundTrip(h.Map())
	if err != nil {
		return nil, err
	}
	if err := Scan(v, "header"); err != nil {
		return nil, err
	}
	return decodeHeader(v, Version)
}

// roundTrip renders v canonically and parses it back, so the writer
// validates exactly the value tree the reader will see.
func roundTrip(v any) (any, error) {
	b, err := canon.Upstream(v)
	if err != nil {
		return nil, refusal.Wrap(ErrSchema, err, "a ledger row could not be canonically encoded")
	}
	out, err := canon.Parse(b)
	if err != nil {
		return nil, refusal.Wrap(ErrSchema, err, "a ledger row could not be canonically encoded")
	}
	return out, nil
}

func (w *Writer) usable() error {
	switch {
	case w.poison != nil:
		return refusal.Wrap(ErrWriterState, w.poison, "the journal is poisoned by a failed write; nothing is appended after it")
	case w.closed:
		return refusal.New(ErrWriterState, "the journal is closed")
	case w.terminal != nil:
		return refusal.New(ErrWriterState, "the journal is finalised; nothing follows the terminal row")
	}
	return nil
}

// RecordCall validates c (its shape, its version semantics, its call_index
// against the calls recorded, its admissibility and every amount) and
// appends it. A refused call writes nothing.
func (w *Writer) RecordCall(c Call) error {
	if err := w.usable(); err != nil {
		return err
	}
	if c.CallIndex != w.t.calls {
		return refusal.New(ErrWriterState, "call_index %d where %d calls are recorded", c.CallIndex, w.t.calls)
	}
	if err := normalizeSeconds(&c); err != nil {
		return err
	}
	// The reader's own rules, on the value tree it will read.
	v := c.Map()
	call, err := decodeCall(v, Version)
	if err != nil {
		return err
	}
	if err := w.t.admitCall(call); err != nil {
		return err
	}
	if err := w.append(RowCall, v); err != nil {
		return err
	}
	w.t.addCall(call)
	if call.Decision != nil {
		w.decisions = append(w.decisions, call.CallIndex)
	}
	return nil
}

// Finalize appends the terminal row: kind is scored, excluded or aborted;
// code is nil for scored, the exclusion code for excluded and
// execution_aborted for aborted. Totals are derived from the recorded calls.
func (w *Writer) Finalize(kind, endedAt string, code *string) error {
	if err := w.usable(); err != nil {
		return err
	}
	if !slices.Contains(terminalKinds, kind) {
		return refusal.New(ErrVocabulary, "terminal.kind: not a value this build writes")
	}
	if err := w.t.admitTerminal(kind, endedAt, code); err != nil {
		return err
	}
	t := Terminal{Kind: kind, EndedAt: endedAt, ExclusionCode: code, ExclusionDetail: TerminalDetail(kind), Totals: w.t.totals()}
	v, err := roundTrip(t.Map())
	if err != nil {
		return err
	}
	term, err := decodeTerminal(v, Version)
	if err != nil {
		return err
	}
	if err := w.append(RowTerminal, v.(map[string]any)); err != nil {
		return err
	}
	w.terminal = term
	return nil
}

// append writes one row whole: envelope, scan, digest, line; on any write or
// fsync error it truncates back to the row's start and poisons the writer.
func (w *Writer) append(kind string, payload map[string]any) error {
	if err := Scan(payload, "row "+strconv.Itoa(w.rows)+"."+kind); err != nil {
		return err
	}
	var err error
	w.pbuf, err = canon.Append(w.pbuf[:0], payload, canon.UpstreamForm)
	if err != nil {
		return refusal.Wrap(ErrSchema, err, "row %d could not be canonically encoded", w.rows)
	}
	var d string
	d, w.buf, w.cbuf = renderRow(w.buf[:0], w.cbuf[:0], kind, w.pbuf, w.rows, w.prev)
	return w.write(d)
}

// write appends the rendered line w.buf whole and fsyncs; on any write or
// fsync error it truncates back to the row's start and poisons the writer.
// d is the row's digest.
func (w *Writer) write(d string) error {
	startAt := w.f.Size()
	err := w.f.WriteAll(w.buf)
	if err == nil {
		err = w.f.Sync()
	}
	if err != nil {
		rolled := w.f.Truncate(startAt) == nil
		if rolled {
			w.f.Sync() // best effort: the truncation itself
		}
		w.poison = &WriteError{Row: w.rows, RolledBack: rolled, Err: err}
		return w.poison
	}
	w.rows++
	w.prev = d
	return nil
}

// Close releases the file. It never writes a terminal row: a run whose
// finaliser never ran reads as incomplete.
func (w *Writer) Close() error {
	if w.closed {
		return nil
	}
	w.closed = true
	return w.f.Close()
}

// Poisoned reports whether a failed write has finished the journal.
func (w *Writer) Poisoned() bool { return w.poison != nil }

// normalizeSeconds accepts nil, int64, int or float64 durations and refuses
// anything else, so that Call.Map yields only parse-shaped values.
func normalizeSeconds(c *Call) error {
	norm := func(v any) (any, bool) {
		switch x := v.(type) {
		case nil, int64, float64:
			return v, true
		case int:
			return int64(x), true
		}
		return nil, false
	}
	var ok bool
	if c.TurnLatencySeconds, ok = norm(c.TurnLatencySeconds); !ok {
		return refusal.New(ErrSchema, "call %d.turn_latency_seconds: expected a number of seconds or null", c.CallIndex)
	}
	atts := slices.Clone(c.Attempts)
	for i := range atts {
		if atts[i].LatencySeconds, ok = norm(atts[i].LatencySeconds); !ok {
			return refusal.New(ErrSchema, "call %d attempt %d.latency_seconds: expected a number of seconds or null", c.CallIndex, i+1)
		}
	}
	c.Attempts = atts
	return nil
}

// renderRow appends to dst the spaced line (with newline) of the row whose
// payload's compact canonical bytes are payload, and returns its digest: the SHA-256 of the compact
// canonical row without row_digest_sha256, laid out in scratch (returned
// for reuse). The envelope's keys and values are known, so the row is
// assembled rather than re-encoded.
func renderRow(dst, scratch []byte, kind string, payload []byte, index int, prev string) (string, []byte, []byte) {
	var ixb [20]byte
	ix := strconv.AppendInt(ixb[:0], int64(index), 10)
	version := strconv.Itoa(Version)
	c := envelope(scratch, ",", ":", kind, payload, version, prev, ix, "")
	d := canon.SHA256Hex(c)
	// The spaced line: the same members plus the digest, ", " and ": ".
	line := envelope(dst, ", ", ": ", kind, appendSpaced(nil, payload), version, prev, ix, d)
	return d, append(line, '\n'), c
}

// envelope appends the row object, its members in key order between comma
// and colon: the envelope's, row_digest_sha256 unless digest is "", and the
// payload under kind.
func envelope(dst []byte, comma, colon, kind string, payload []byte, version, prev string, ix []byte, digest string) []byte {
	dst = append(dst, '{')
	if kind < "ledger_version" {
		dst = member(dst, comma, colon, kind, "", payload, "")
	}
	dst = member(dst, comma, colon, "ledger_version", "", version, "")
	dst = member(dst, comma, colon, "previous_row_digest_sha256", `"`, prev, `"`)
	if digest != "" {
		dst = member(dst, comma, colon, "row_digest_sha256", `"`, digest, `"`)
	}
	dst = member(dst, comma, colon, "row_index", "", ix, "")
	dst = member(dst, comma, colon, "row_kind", `"`, kind, `"`)
	if kind > "row_kind" {
		dst = member(dst, comma, colon, kind, "", payload, "")
	}
	return append(dst, '}')
}

// member appends one object member (preceded by comma unless it opens the
// object): the key, colon, and the value between open and close.
//
//go:noinline
func member[V string | []byte](dst []byte, comma, colon, key, open string, v V, close string) []byte {
	if dst[len(dst)-1] != '{' {
		dst = append(dst, comma...)
	}
	dst = append(dst, '"')
	dst = append(dst, key...)
	dst = append(dst, '"')
	dst = append(dst, colon...)
	dst = append(dst, open...)
	dst = append(dst, v...)
	return append(dst, close...)
}

// appendSpaced turns compact canonical JSON into the spaced form: ", " and
// ": " between tokens, strings untouched.
func appendSpaced(dst, compact []byte) []byte {
	for i := 0; i < len(compact); {
		c := compact[i]
		if c == '"' {
			// copy the whole string, escapes included
			j := i + 1
			for j < len(compact) && compact[j] != '"' {
				if compact[j] == '\\' {
					j++
				}
				j++
			}
			dst = append(dst, compact[i:j+1]...)
			i = j + 1
			continue
		}
		dst = append(dst, c)
		if c == ',' || c == ':' {
			dst = append(dst, ' ')
		}
		i++
	}
	return dst
}
