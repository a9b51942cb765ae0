package schema

import (
	"errors"
	"strings"
	"testing"
)

// The embedded contract-8 schema compiles with remote loading refused: it
// needs nothing from outside the binary.
func TestCompilesFromEmbeddedBytesOnly(t *testing.T) {
	c, err := compiled()
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	if c.root == nil || c.row == nil || len(c.rows) != 34 {
		t.Fatalf("compiled %d row schemas, want 34 (one per contract-8 record type)", len(c.rows))
	}
}

// Every URL a schema could name is refused by the loader: https, http and
// file (which the library's default loader would read from disk).
func TestLoaderRefusesEveryURL(t *testing.T) {
	for _, ref := range []string{"https://example.com/x.json", "http://example.com/x.json", "file:///etc/hostname"} {
		c := newCompiler()
		doc := `{"$schema":"https://json-schema.org/draft/2020-12/schema","$ref":"` + ref + `"}`
		if err := c.AddResource("https://obaudit.example/t.json", strings.NewReader(doc)); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Compile("https://obaudit.example/t.json"); !errors.Is(err, errRemoteLoad) {
			t.Errorf("compile with $ref %s = %v, want the loader's refusal", ref, err)
		}
	}
}
