package offlineschema_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/obaudit/obaudit/internal/offlineschema"
)

// Every URL a schema could name is refused by the loader: https, http and
// file (which the library's default loader would read from disk).
func TestLoaderRefusesEveryURL(t *testing.T) {
	for _, ref := range []string{"https://example.com/x.json", "http://example.com/x.json", "file:///etc/hostname"} {
		c := offlineschema.NewCompiler()
		doc := `{"$schema":"https://json-schema.org/draft/2020-12/schema","$ref":"` + ref + `"}`
		if err := c.AddResource("https://obaudit.example/t.json", strings.NewReader(doc)); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Compile("https://obaudit.example/t.json"); !errors.Is(err, offlineschema.ErrRemoteLoad) {
			t.Errorf("compile with $ref %s = %v, want the loader's refusal", ref, err)
		}
	}
}

func TestLeaf(t *testing.T) {
	c := offlineschema.NewCompiler()
	doc := `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",
		"properties":{"a":{"type":"object","properties":{"b":{"type":"string","format":"date-time"}}}}}`
	if err := c.AddResource("https://obaudit.example/t.json", strings.NewReader(doc)); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("https://obaudit.example/t.json")
	if err != nil {
		t.Fatal(err)
	}
	leaf, ok := offlineschema.Leaf(s.Validate(map[string]any{"a": map[string]any{"b": "yesterday"}}))
	if !ok {
		t.Fatal("Leaf(validation error) is not ok")
	}
	if leaf.InstanceLocation != "/a/b" || !strings.HasSuffix(leaf.KeywordLocation, "/format") {
		t.Errorf("Leaf = %s at %s, want the format check at /a/b", leaf.KeywordLocation, leaf.InstanceLocation)
	}
	if _, ok := offlineschema.Leaf(errors.New("other")); ok {
		t.Error("Leaf(plain error) is ok")
	}
	if _, ok := offlineschema.Leaf(nil); ok {
		t.Error("Leaf(nil) is ok")
	}
}
