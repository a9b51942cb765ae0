//go:build unix

package execledger_test

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/obaudit/obaudit/execledger"
	lt "github.com/obaudit/obaudit/execledger/ledgertest"
	"github.com/obaudit/obaudit/internal/safefs"
	"golang.org/x/sys/unix"
)

// synthetic returns a scored journal of n answered calls (about 1.9 KB a
// row), written by the real writer.
func synthetic(tb testing.TB, n int64) []byte {
	h := lt.Roomy(lt.Header())
	h.Controls.MaxProviderCalls = n
	h.Controls.ExpectedProviderCalls = n
	calls := make([]execledger.Call, n)
	for i := range calls {
		calls[i] = lt.Answered(int64(i), 1, int64(i))
	}
	b, err := lt.Build(h, calls, "scored", nil)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

var benchJournal []byte

func journal(b *testing.B) []byte {
	if benchJournal == nil {
		benchJournal = synthetic(b, 16384) // ≈ 31 MiB
	}
	return benchJournal
}

// BenchmarkRead: the full verification (chain, schema, scanner, amounts).
func BenchmarkRead(b *testing.B) {
	j := journal(b)
	b.SetBytes(int64(len(j)))
	b.ResetTimer()
	for range b.N {
		if _, err := execledger.Read(bytes.NewReader(j), execledger.Options{DiscardCalls: true}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSHA256 is the baseline: crypto/sha256 over the journal's bytes.
func BenchmarkSHA256(b *testing.B) {
	j := journal(b)
	b.SetBytes(int64(len(j)))
	b.ResetTimer()
	for range b.N {
		sha256.Sum256(j)
	}
}

// BenchmarkAppend measures, in the same run and interleaved row by row,
// appending call rows through the Writer (validate, digest, write, fsync)
// against raw write+fsync of the very same line bytes to a sibling file.
// It reports both per-row costs and append_vs_raw, the append rate as a
// fraction of the raw rate (the target is ≥ 0.9).
func BenchmarkAppend(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "evidence")
	os.Mkdir(dir, 0o700)
	const rows = 512
	h := lt.Header()
	h.Controls.MaxProviderCalls = 1 << 40
	h.Controls.ExpectedProviderCalls = 1
	var appendNS, rawNS, ioNS time.Duration
	// The writer's own write and fsync calls, timed through its seam, so
	// that append-cpu-ns/row is the writer's work between them.
	ops := safefs.Ops{
		Write: func(fd int, p []byte) (int, error) {
			t0 := time.Now()
			n, err := unix.Write(fd, p)
			ioNS += time.Since(t0)
			return n, err
		},
		Fsync: func(fd int) error {
			t0 := time.Now()
			err := unix.Fsync(fd)
			ioNS += time.Since(t0)
			return err
		},
	}
	total := 0
	for it := 0; it < b.N; it++ {
		before := ioNS
		w, err := execledger.Create(filepath.Join(dir, fmt.Sprintf("w%d.ndjson", it)), h, execledger.WriterOptions{Ops: ops})
		ioNS = before // (the header row is not timed)
		if err != nil {
			b.Fatal(err)
		}
		raw, err := os.OpenFile(filepath.Join(dir, fmt.Sprintf("r%d.ndjson", it)), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err != nil {
			b.Fatal(err)
		}
		lines := bytes.SplitAfter(synthetic(b, rows), []byte("\n"))[1 : rows+1]
		calls := make([]execledger.Call, rows) // the writer's input, built untimed
		for i := range calls {
			calls[i] = lt.Answered(int64(i), 1, int64(i))
		}
		// Alternate which goes first, so neither always follows the
		// other's journal commit.
		for i := 0; i < rows; i++ {
			doAppend := func() {
				t0 := time.Now()
				if err := w.RecordCall(calls[i]); err != nil {
					b.Fatal(err)
				}
				appendNS += time.Since(t0)
			}
			doRaw := func() {
				t0 := time.Now()
				if _, err := raw.Write(lines[i]); err != nil {
					b.Fatal(err)
				}
				if err := raw.Sync(); err != nil {
					b.Fatal(err)
				}
				rawNS += time.Since(t0)
			}
			if i%2 == 0 {
				doAppend()
				doRaw()
			} else {
				doRaw()
				doAppend()
			}
			total++
		}
		w.Close()
		raw.Close()
	}
	b.ReportMetric(float64(appendNS.Nanoseconds())/float64(total), "append-ns/row")
	b.ReportMetric(float64((appendNS-ioNS).Nanoseconds())/float64(total), "append-cpu-ns/row")
	b.ReportMetric(float64(rawNS.Nanoseconds())/float64(total), "raw-ns/row")
	b.ReportMetric(float64(rawNS)/float64(appendNS), "append_vs_raw")
	b.ReportMetric(0, "ns/op")
}

// writeBig writes a scored journal of at least n bytes with the real
// writer over an un-synced file.
func writeBig(t *testing.T, p string, n int64) int64 {
	f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	bw := &bufFile{w: bufio.NewWriterSize(f, 1<<20)}
	h := lt.Roomy(lt.Header())
	w, err := execledger.NewWriter(bw, h)
	if err != nil {
		t.Fatal(err)
	}
	for i := int64(0); bw.n < n; i++ {
		if err := w.RecordCall(lt.Answered(i, 1, i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Finalize("scored", "2031-03-03T09:05:00Z", nil); err != nil {
		t.Fatal(err)
	}
	bw.w.Flush()
	f.Close()
	return bw.n
}

type bufFile struct {
	w *bufio.Writer
	n int64
}

func (b *bufFile) WriteAll(p []byte) error { b.n += int64(len(p)); _, err := b.w.Write(p); return err }
func (b *bufFile) Sync() error             { return nil }
func (b *bufFile) Truncate(int64) error    { return fmt.Errorf("not supported") }
func (b *bufFile) Size() int64             { return b.n }
func (b *bufFile) Close() error            { return b.w.Flush() }

// BenchmarkRecordCall is the writer's CPU cost per call row (no I/O: the
// rows go to a file that keeps only their count): validation, arithmetic,
// scan, digest and rendering. The calls are built untimed (1,024 answered
// calls, re-indexed as they are reused).
func BenchmarkRecordCall(b *testing.B) {
	h := lt.Header()
	h.Controls.MaxProviderCalls = 1 << 40
	w, err := execledger.NewWriter(&countFile{}, h)
	if err != nil {
		b.Fatal(err)
	}
	calls := make([]execledger.Call, 1024)
	for i := range calls {
		calls[i] = lt.Answered(int64(i), 1, int64(i))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		c := calls[i%len(calls)]
		c.CallIndex, c.TurnIndex = int64(i), int64(i)
		if err := w.RecordCall(c); err != nil {
			b.Fatal(err)
		}
	}
}

// countFile is an AppendFile that keeps only its size.
type countFile struct{ n int64 }

func (f *countFile) WriteAll(p []byte) error { f.n += int64(len(p)); return nil }
func (f *countFile) Sync() error             { return nil }
func (f *countFile) Truncate(n int64) error  { f.n = n; return nil }
func (f *countFile) Size() int64             { return f.n }
func (f *countFile) Close() error            { return nil }
