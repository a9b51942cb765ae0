package execledger

import (
	"bytes"
	"crypto/sha256"
	"testing"
)

// callLine is one call row as the writer renders it.
func callLine(tb testing.TB) []byte {
	return bytes.Split(upstreamStyle(&testing.T{}, 3), []byte("\n"))[1]
}

// BenchmarkScanRow: the chain pass's per-row parse (validate the canonical
// form, capture the envelope, lay out the digest input), without hashing.
func BenchmarkScanRow(b *testing.B) {
	line := callLine(b)
	var rs rowScanner
	buf := make([]byte, 0, len(line))
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		var ok bool
		buf, _, ok = rs.scan(buf[:0], line)
		if !ok {
			b.Fatal("slow path")
		}
	}
}

// BenchmarkHashRow: SHA-256 of the same row's bytes, the floor.
func BenchmarkHashRow(b *testing.B) {
	line := callLine(b)
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		sha256.Sum256(line)
	}
}
