package agentrunschema

import (
	"bytes"
	"testing"
	"testing/fstest"

	"github.com/obaudit/obaudit/refusal"
	schema "github.com/obaudit/obaudit/schemas/agentrun"
)

func TestCompileSchemaRefusals(t *testing.T) {
	remote := `{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"` + schema.CaseStudyID + `",
	  "$defs":{"source":{"$ref":"https://elsewhere.example/s.json"},"relatedCase":{},"recordMeta":{}}}`
	cases := map[string]fstest.MapFS{
		"no $id":         {"a.json": {Data: []byte(`{"type":"object"}`)}},
		"relative $id":   {"a.json": {Data: []byte(`{"$id":"x.json"}`)}},
		"not json":       {"a.json": {Data: []byte(`{`)}},
		"duplicate $id":  {"a.json": {Data: []byte(`{"$id":"https://a.example/x"}`)}, "b.json": {Data: []byte(`{"$id":"https://a.example/x"}`)}},
		"remote ref":     {"cs.json": {Data: []byte(remote)}},
		"bad schema":     {"cs.json": {Data: []byte(`{"$id":"` + schema.CaseStudyID + `","$defs":{"source":{"type":12}}}`)}},
		"too large file": {"big.json": {Data: bytes.Repeat([]byte(" "), maxSuppliedSchemaBytes+1)}},
	}
	for name, fsys := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := CompileSchema(fsys)
			if refusal.Of(err) != ErrSchemaUnloadable.Class {
				t.Errorf("CompileSchema = %v, want %s", err, ErrSchemaUnloadable.Class)
			}
		})
	}
}

// BenchmarkCompileSchema compiles the seed and its stand-ins offline.
func BenchmarkCompileSchema(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := CompileSchema(nil); err != nil {
			b.Fatal(err)
		}
	}
}
