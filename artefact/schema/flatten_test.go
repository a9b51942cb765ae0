package schema

import (
	"encoding/json"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/internal/upstreamtest"
	"github.com/obaudit/obaudit/schemas"
)

var fixtures = []string{"artifact8-deterministic-reference-v1.json", "artifact8-fake-openai-reference-v1.json"}

func parse(t testing.TB, name string) map[string]any {
	t.Helper()
	tree, err := canon.Parse(upstreamtest.Read(t, name))
	if err != nil {
		t.Fatal(err)
	}
	return tree.(map[string]any)
}

func clone(x any) any {
	switch v := x.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = clone(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = clone(e)
		}
		return out
	}
	return x
}

// containers lists every object and array in a tree with its parent and
// key (or index), for random edits.
type site struct {
	parent any
	key    string
	i      int
}

func sites(x any, out *[]site) {
	switch v := x.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			*out = append(*out, site{parent: v, key: k})
			sites(v[k], out)
		}
	case []any:
		for i, e := range v {
			*out = append(*out, site{parent: v, i: i})
			sites(e, out)
		}
	}
}

var replacements = []any{
	nil, true, false, "", "x", "ACT", "WAIT", "RETRIEVE", "agent_outcome", "retrieval_served", "2031-03-03T09:00:00Z",
	int64(-1), int64(0), int64(1), int64(8), 1.5, []any{}, []any{"x"}, map[string]any{}, map[string]any{"kind": "WAIT"},
}

// edits returns seeded single edits of a document: random replacements,
// deletions and additions anywhere, and targeted ones on the
// discriminators the flattening rewrites (a row's record_type, an
// outcome's kind: changed to every other value, or removed).
func edits(t *testing.T, base map[string]any, seed byte, n int) []map[string]any {
	rng := rand.New(rand.NewChaCha8([32]byte{'f', 'l', 'a', 't', seed}))
	var out []map[string]any
	for range n {
		d := clone(base).(map[string]any)
		var all []site
		sites(d, &all)
		s := all[rng.IntN(len(all))]
		r := clone(replacements[rng.IntN(len(replacements))])
		switch p := s.parent.(type) {
		case map[string]any:
			switch rng.IntN(3) {
			case 0:
				delete(p, s.key)
			case 1:
				p["zz_added"] = r
			default:
				p[s.key] = r
			}
		case []any:
			p[s.i] = r
		}
		out = append(out, d)
	}
	rows := base["trajectory"].([]any)
	types := artefact.RecordTypes(artefact.Version)
	for range n / 4 {
		d := clone(base).(map[string]any)
		row := d["trajectory"].([]any)[rng.IntN(len(rows))].(map[string]any)
		if rng.IntN(8) == 0 {
			delete(row, "record_type")
		} else {
			row["record_type"] = types[rng.IntN(len(types))]
		}
		out = append(out, d)
	}
	kinds := []string{"ACT", "WAIT", "ASK", "ESCALATE", "COMPLETE", "RETRIEVE", "MALFORMED", "PAUSE"}
	decisions := base["decisions"].([]any)
	for range n / 4 {
		d := clone(base).(map[string]any)
		outcome := d["decisions"].([]any)[rng.IntN(len(decisions))].(map[string]any)["outcome"].(map[string]any)
		if rng.IntN(8) == 0 {
			delete(outcome, "kind")
		} else {
			outcome["kind"] = kinds[rng.IntN(len(kinds))]
		}
		out = append(out, d)
	}
	return out
}

// TestFlattenedAgreesWithPublished: the flattened schema gives the verdict
// the published schema gives, on the real artefacts and on seeded edits of
// them (random replacements, deletions and additions anywhere, and every
// kind of discriminator change the flattening rewrites); and the partitioned
// parallel check gives the verdict of one whole-document validation.
func TestFlattenedAgreesWithPublished(t *testing.T) {
	published, err := compile(schemas.ArtefactV8())
	if err != nil {
		t.Fatal(err)
	}
	flat, err := compiled()
	if err != nil {
		t.Fatal(err)
	}
	refused := 0
	for i, name := range fixtures {
		base := parse(t, name)
		docs := append([]map[string]any{base}, edits(t, base, byte(i), 100)...)
		for n, d := range docs {
			want := published.check(d)
			got := flat.check(d)
			if (want == nil) != (got == nil) {
				t.Fatalf("%s edit %d: published schema says %v, flattened says %v", name, n, want, got)
			}
			// The partition itself (the document without its lists, then
			// each decision and row on its own): against one whole-document
			// validation of the published schema, on a sample (that costs
			// ~80 ms a document through the published row discriminator).
			if n%16 == 0 {
				if whole := schemaError(published.root.Validate(d), ""); (whole == nil) != (want == nil) {
					t.Fatalf("%s edit %d: one whole-document validation says %v, the partitioned check says %v", name, n, whole, want)
				}
			}
			if n == 0 && got != nil {
				t.Fatalf("%s: %v", name, got)
			}
			if got != nil {
				refused++
			}
		}
	}
	if refused < 100 {
		t.Fatalf("only %d edits were refused; the generator lost its teeth", refused)
	}
}

// The flattening rewrote what it says it rewrites: no reference to a
// small value definition is left, the row bodies stay referenced, and
// every discriminated allOf became a chain.
func TestFlattenRewritesTheSchema(t *testing.T) {
	doc, err := flatten(schemas.ArtefactV8())
	if err != nil {
		t.Fatal(err)
	}
	var tree map[string]any
	if err := json.Unmarshal(doc, &tree); err != nil {
		t.Fatal(err)
	}
	s := string(doc)
	for _, gone := range []string{`"#/$defs/text"`, `"#/$defs/counter"`, `"#/$defs/instant"`, `"#/$defs/digest"`, `"#/$defs/text_list"`} {
		if strings.Contains(s, gone) {
			t.Errorf("flattened schema still references %s", gone)
		}
	}
	if !strings.Contains(s, `"#/$defs/row_agent_outcome"`) {
		t.Errorf("row bodies should stay referenced")
	}
	defs := tree["$defs"].(map[string]any)
	for _, name := range []string{"row", "outcome"} {
		d := defs[name].(map[string]any)
		if _, ok := d["allOf"]; ok || d["if"] == nil || d["else"] == nil {
			t.Errorf("$defs/%s was not rewritten into an if/then/else chain", name)
		}
	}
}
