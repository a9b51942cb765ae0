package execledger

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"runtime"
	"sync"

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/internal/limits"
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

const (
	chainChunk   = 2 << 20 // bytes per work unit (> MaxLedgerLineBytes)
	chainBuffers = 4       // chunks in flight: bounds buffer memory at 8 MiB
)

// lineFacts is what a worker learns about one line without judging it.
type lineFacts struct {
	start, end int  // the line within its chunk (newline excluded)
	fast       bool // canonical form: the fields below are set
	version    int64
	index      int64
	kind       []byte // unquoted
	stated     []byte // unquoted
	previous   []byte // unquoted
	computed   [64]byte
}

// chainBuf is one work unit's memory, pooled: its bytes and the facts of
// its lines.
type chainBuf struct {
	b     []byte
	lines []lineFacts
}

// chainBufs keeps work units between calls; a call holds at most
// chainBuffers of them.
var chainBufs = sync.Pool{New: func() any { return &chainBuf{b: make([]byte, chainChunk)} }}

type chunk struct {
	seq   int
	buf   *chainBuf // pooled backing memory
	data  []byte    // complete lines, each ending in '\n' except possibly the last when final
	final bool      // data's last line has no newline (end of input)
	lines []lineFacts
	err   error // a read error after data
	done  chan struct{}
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
// integrity pass. Rows already in canonical form are digested without being
// parsed, on every core (the chain links are then checked in order); memory
// stays bounded whatever the journal's size.
func VerifyChain(r io.Reader) (*ChainResult, error) {
	pool := make(chan *chainBuf, chainBuffers) // units returned by the sequencer
	allocated := 0                             // units taken from chainBufs
	ordered := make(chan *chunk, chainBuffers)
	work := make(chan *chunk, chainBuffers)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range max(1, runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var scratch []byte
			var rs rowScanner
			for c := range work {
				scratch = c.scan(&rs, scratch)
				close(c.done)
			}
		}()
	}
	go func() {
		defer close(work)
		defer close(ordered)
		var carry []byte
		for seq := 0; ; seq++ {
			var cb *chainBuf
			select {
			case cb = <-pool:
			default:
				if allocated < chainBuffers {
					cb = chainBufs.Get().(*chainBuf)
					allocated++
					break
				}
				select {
				case cb = <-pool:
				case <-stop:
					return
				}
			}
			buf := cb.b
			n := copy(buf, carry)
			m, err := io.ReadFull(r, buf[n:])
			n += m
			c := &chunk{seq: seq, buf: cb, lines: cb.lines[:0], done: make(chan struct{})}
			eof := err == io.EOF || err == io.ErrUnexpectedEOF
			if err != nil && !eof {
				c.err = err
			}
			data := buf[:n]
			if !eof && c.err == nil {
				cut := bytes.LastIndexByte(data, '\n')
				if cut < 0 {
					c.err = limits.Exceeded("MaxLedgerLineBytes", limits.MaxLedgerLineBytes, int64(n))
					data = data[:0]
				} else {
					carry = append(carry[:0], data[cut+1:]...)
					data = data[:cut+1]
				}
			} else {
				carry = carry[:0]
				c.final = len(data) > 0 && data[len(data)-1] != '\n'
			}
			c.data = data
			select {
			case ordered <- c:
			case <-stop:
				return
			}
			select {
			case work <- c:
			case <-stop:
				close(c.done)
				return
			}
			if eof || c.err != nil {
				return
			}
		}
	}()
	res, err := sequence(ordered, pool)
	close(stop)
	for c := range ordered { // drain so the producer exits
		<-c.done
	}
	wg.Wait()
	for len(pool) > 0 { // (units of chunks left unjudged are dropped)
		chainBufs.Put(<-pool)
	}
	return res, err
}

// scan splits a chunk into lines and digests every canonical one.
func (c *chunk) scan(rs *rowScanner, scratch []byte) []byte {
	data := c.data
	for start := 0; start < len(data); {
		end := bytes.IndexByte(data[start:], '\n')
		if end < 0 {
			end = len(data)
		} else {
			end += start
		}
		lf := lineFacts{start: start, end: end}
		line := data[start:end]
		if len(line) <= limits.MaxLedgerLineBytes {
			var env envelope
			var ok bool
			scratch, env, ok = rs.scan(scratch[:0], line)
			if ok && env.version != nil && env.index != nil && env.kind != nil && env.previous != nil {
				v, ok1 := smallInt(env.version)
				ix, ok2 := smallInt(env.index)
				if ok1 && ok2 {
					lf.fast, lf.version, lf.index = true, v, ix
					lf.kind, lf.stated, lf.previous = unquote(env.kind), unquote(env.digest), unquote(env.previous)
					s := sha256.Sum256(scratch)
					hex.Encode(lf.computed[:], s[:])
				}
			}
		}
		c.lines = append(c.lines, lf)
		start = end + 1
	}
	return scratch
}

func unquote(b []byte) []byte {
	if len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' {
		return b[1 : len(b)-1]
	}
	return nil
}

// sequence judges the lines in order.
func sequence(ordered chan *chunk, pool chan *chainBuf) (*ChainResult, error) {
	res := &ChainResult{}
	prev := []byte(GenesisDigest)
	header := false
	i := 0
	for c := range ordered {
		<-c.done
		for k, lf := range c.lines {
			line := c.data[lf.start:lf.end]
			nl := !(c.final && k == len(c.lines)-1)
			if len(line) > limits.MaxLedgerLineBytes {
				return nil, limits.Exceeded("MaxLedgerLineBytes", limits.MaxLedgerLineBytes, int64(len(line)))
			}
			if res.TerminalKind != "" {
				return nil, refusal.New(ErrAfterTerminal, "row %d: follows the terminal row", i)
			}
			var kind, stated, previous, computed []byte
			version, index := lf.version, lf.index
			if lf.fast {
				kind, stated, previous, computed = lf.kind, lf.stated, lf.previous, lf.computed[:]
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
				version, index = -1, -1
				if n, isInt := m["ledger_version"].(int64); isInt {
					version = n
				}
				if n, isInt := m["row_index"].(int64); isInt {
					index = n
				}
				s, _ := m["row_kind"].(string)
				kind = []byte(s)
				s, _ = m["row_digest_sha256"].(string)
				stated = []byte(s)
				s, _ = m["previous_row_digest_sha256"].(string)
				previous = []byte(s)
				d, err := RowDigest(m)
				if err != nil {
					return nil, refusal.Wrap(ErrSchema, err, "row %d: cannot be canonically encoded", i)
				}
				computed = []byte(d)
			}
			if vocabs[int(version)] == nil || (i > 0 && int(version) != res.Version) {
				return nil, refusal.New(ErrVersion, "row %d: ledger_version is not this journal's version (2 or 3)", i)
			}
			res.Version = int(version)
			if index != int64(i) {
				return nil, refusal.New(ErrRowIndex, "row %d: row_index is not its position", i)
			}
			if !bytes.Equal(previous, prev) {
				return nil, refusal.New(ErrBackLink, "row %d: does not back-link to the row before it", i)
			}
			if !bytes.Equal(computed, stated) {
				return nil, refusal.New(ErrRowDigest, "row %d: does not hash to the digest it states", i)
			}
			switch string(kind) {
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
				switch k, _ := t["kind"].(string); k {
				case TerminalScored, TerminalExcluded, TerminalAborted:
					res.TerminalKind = k
				default:
					return nil, refusal.New(ErrVocabulary, "row %d: terminal.kind is not a value this build writes", i)
				}
			default:
				return nil, refusal.New(ErrVocabulary, "row %d: row_kind is not a value this build writes", i)
			}
			prev = append(prev[:0], stated...)
			res.Rows++
			res.Bytes += int64(len(line))
			if nl {
				res.Bytes++
			}
			i++
		}
		if c.err != nil {
			return nil, c.err
		}
		c.buf.lines = c.lines
		pool <- c.buf
		if res.TruncatedTail {
			break
		}
	}
	if res.Rows == 0 {
		return nil, refusal.New(ErrRowOrder, "no verified header row, so there is no run to report")
	}
	res.ChainTip = string(prev)
	return res, nil
}

// smallInt reads a canonical non-negative decimal integer without allocating.
func smallInt(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 15 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}
