package canon_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/gowebpki/jcs"
	"github.com/obaudit/obaudit/canon"
)

// benchDoc builds a deterministic episode-like JSON document of about n
// bytes: events with nested maps, unsorted keys, unicode strings, floats
// and integers.
func benchDoc(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"schema":"bench","events":[`)
	for i := 0; b.Len() < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"seq":%d,"type":"supplier_message","at":"2035-01-%02dT%02d:%02d:00Z",`+
			`"payload":{"text":"Had a look — the board needs replacing. £180 + VAT ✓ %d","amount_minor":%d,"ratio":%g,"flags":[true,false,null]},`+
			`"actor":"supplier_%d","digest":"%064x","meta":{"z":%d,"a":"é€😀","m":[%d,%d.5,1e-7]}}`,
			i, 1+i%28, i%24, i%60, i, 18000+i, float64(i)/7, i%5, i*7919, i, i, i)
	}
	b.WriteString(`],"version":1}`)
	return []byte(b.String())
}

const benchSize = 1 << 20

func BenchmarkTransform(b *testing.B) {
	doc := benchDoc(benchSize)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := canon.Transform(doc); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTransformUpstream(b *testing.B) {
	doc := benchDoc(benchSize)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := canon.TransformForm(doc, canon.UpstreamForm); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGowebpkiJCS is the oracle, measured in the same run.
func BenchmarkGowebpkiJCS(b *testing.B) {
	doc := benchDoc(benchSize)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := jcs.Transform(doc); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseEncode is the tree path: Parse then JCS.
func BenchmarkParseEncode(b *testing.B) {
	doc := benchDoc(benchSize)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		v, err := canon.Parse(doc)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := canon.JCS(v); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncodeTree measures encoding an already-built tree (how the
// engine digests its records).
func BenchmarkEncodeTree(b *testing.B) {
	doc := benchDoc(benchSize)
	v, err := canon.Parse(doc)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := canon.Upstream(v); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncodingJSONMarshal is the encoding/json baseline (not
// canonical: it escapes <>& and does not sort by UTF-16).
func BenchmarkEncodingJSONMarshal(b *testing.B) {
	doc := benchDoc(benchSize)
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := json.Marshal(v); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParse measures the strict tree reader alone.
func BenchmarkParse(b *testing.B) {
	doc := benchDoc(benchSize)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := canon.Parse(doc); err != nil {
			b.Fatal(err)
		}
	}
}
