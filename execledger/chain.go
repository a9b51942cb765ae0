package execledger

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"strconv"

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/refusal"
)

// ChainResult is what [VerifyChain] establishes.
type ChainResult struct {
	// Version is the journal's ledger_version.
	Version int
	// Rows counts the rows in the verified chain.
	Rows int
	// ChainTip is the last verified row's digest.
	ChainTip string
	// TerminalKind is the terminal row's kind, or "" for a prefix.
	TerminalKind string
	// TruncatedTail reports a torn final fragment left out of the chain.
	TruncatedTail bool
	// Bytes is the size of the verified rows.
	Bytes int64
}

// VerifyChain checks only the hash chain and the journal's shape, as it
// streams: every row is one JSON object whose ledger_version is 2 or 3 and
// constant, whose row_index is its position, whose back-link is the previous
// row's digest and which hashes to the digest it states; the header comes
// first and once, the terminal last, nothing follows it; a torn final
// fragment is left out. It does NOT check the schema, the vocabularies, the
// scanner, the amounts or the totals: a chain that verifies is a journal
// nobody edited after it was digested, not a journal this build would have
// written. [Read] is the full verification; VerifyChain is the fast
// integrity pass (rows already in canonical form are digested without being
// parsed).
func VerifyChain(r io.Reader) (*ChainResult, error) {
	rd := &reader{br: newBufReader(r)}
	res := &ChainResult{}
	prev := GenesisDigest
	var buf []byte
	header := false
	for i := 0; ; i++ {
		line, nl, err := rd.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if res.TerminalKind != "" {
			return nil, refusal.New(ErrAfterTerminal, "row %d: follows the terminal row", i)
		}
		var (
			kind, stated, previous, computed string
			version, index                   int64 = -1, -1
		)
		var env envelope
		var ok bool
		buf, env, ok = scanCanonical(buf[:0], line)
		if ok && env.version != nil && env.index != nil {
			kind, stated, previous = unquote(env.kind), unquote(env.digest), unquote(env.previous)
			version, _ = strconv.ParseInt(string(env.version), 10, 64)
			index, _ = strconv.ParseInt(string(env.index), 10, 64)
			s := sha256.Sum256(buf)
			computed = hex.EncodeToString(s[:])
		} else {
			v, err := canon.Parse(line)
			if err != nil {
				if errors.Is(err, canon.ErrDuplicateKey) {
					return nil, refusal.New(ErrDuplicateKey, "row %d: duplicate object key", i)
				}
				if !nl && recoverablePrefix(line) {
					res.TruncatedTail = true
					break
				}
				return nil, refusal.New(ErrNotJSON, "row %d: not one UTF-8 JSON object", i)
			}
			m, isObj := v.(map[string]any)
			if !isObj {
				return nil, refusal.New(ErrSchema, "row %d: a ledger row is a JSON object", i)
			}
			if n, isInt := m["ledger_version"].(int64); isInt {
				version = n
			}
			if n, isInt := m["row_index"].(int64); isInt {
				index = n
			}
			kind, _ = m["row_kind"].(string)
			stated, _ = m["row_digest_sha256"].(string)
			previous, _ = m["previous_row_digest_sha256"].(string)
			if computed, err = RowDigest(m); err != nil {
				return nil, refusal.Wrap(ErrSchema, err, "row %d: cannot be canonically encoded", i)
			}
		}
		if vocabs[int(version)] == nil || (i > 0 && int(version) != res.Version) {
			return nil, refusal.New(ErrVersion, "row %d: ledger_version is not this journal's version (2 or 3)", i)
		}
		res.Version = int(version)
		if index != int64(i) {
			return nil, refusal.New(ErrRowIndex, "row %d: row_index is not its position", i)
		}
		if previous != prev {
			return nil, refusal.New(ErrBackLink, "row %d: does not back-link to the row before it", i)
		}
		if computed != stated {
			return nil, refusal.New(ErrRowDigest, "row %d: does not hash to the digest it states", i)
		}
		switch kind {
		case RowHeader:
			if i != 0 {
				return nil, refusal.New(ErrRowOrder, "row %d: a journal has one header, first", i)
			}
			header = true
		case RowCall:
			if !header {
				return nil, refusal.New(ErrRowOrder, "row %d: a call row precedes the header", i)
			}
		case RowTerminal:
			if !header {
				return nil, refusal.New(ErrRowOrder, "row %d: a terminal row precedes the header", i)
			}
			v, _ := canon.Parse(line)
			t, _ := v.(map[string]any)["terminal"].(map[string]any)
			k, _ := t["kind"].(string)
			switch k {
			case TerminalScored, TerminalExcluded, TerminalAborted:
				res.TerminalKind = k
			default:
				return nil, refusal.New(ErrVocabulary, "row %d: terminal.kind is not a value this build writes", i)
			}
		default:
			return nil, refusal.New(ErrVocabulary, "row %d: row_kind is not a value this build writes", i)
		}
		prev = stated
		res.Rows++
		res.Bytes += int64(len(line))
		if nl {
			res.Bytes++
		}
	}
	if res.Rows == 0 {
		return nil, refusal.New(ErrRowOrder, "no verified header row, so there is no run to report")
	}
	res.ChainTip = prev
	return res, nil
}

func unquote(b []byte) string {
	if len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' {
		return string(b[1 : len(b)-1])
	}
	return ""
}
