package schema

import (
	"testing"

	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/internal/upstreamtest"
	"github.com/obaudit/obaudit/refusal"
)

// The embedded contract-8 schema compiles with remote loading refused: it
// needs nothing from outside the binary.
func TestCompilesFromEmbeddedBytesOnly(t *testing.T) {
	c, err := compiled()
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	if c.root == nil || c.row == nil || c.decision == nil {
		t.Fatal("a compiled schema is missing")
	}
}

// Check, validating a document as parts, gives one whole-document
// validation's verdict: on the real artefacts, and on them with a row, a
// decision and a top-level field broken.
func TestPartsAreTheWholeDocument(t *testing.T) {
	c, err := compiled()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"artifact8-deterministic-reference-v1.json", "artifact8-fake-openai-reference-v1.json"} {
		for _, edit := range []func(map[string]any){
			func(map[string]any) {},
			func(d map[string]any) { d["trajectory"].([]any)[3].(map[string]any)["at"] = "yesterday" },
			func(d map[string]any) {
				d["decisions"].([]any)[1].(map[string]any)["outcome"] = map[string]any{"kind": "PAUSE"}
			},
			func(d map[string]any) { d["note"] = int64(1) },
			func(d map[string]any) { d["trajectory"] = "rows" },
		} {
			tree, err := canon.Parse(upstreamtest.Read(t, name))
			if err != nil {
				t.Fatal(err)
			}
			d := tree.(map[string]any)
			edit(d)
			whole := schemaError(c.root.Validate(d), "")
			if parts := Check(d); (parts == nil) != (whole == nil) {
				t.Fatalf("%s: parts say %v, the whole document %v", name, parts, whole)
			}
		}
	}
}

// A document the published schema refuses is refused as artefact/schema,
// exactly, whichever part fails.
func TestCheckRefusesAsArtefactSchema(t *testing.T) {
	for _, edit := range []func(map[string]any){
		func(d map[string]any) { d["note"] = int64(1) },
		func(d map[string]any) { d["trajectory"].([]any)[3].(map[string]any)["at"] = "yesterday" },
		func(d map[string]any) {
			d["decisions"].([]any)[1].(map[string]any)["outcome"] = map[string]any{"kind": "PAUSE"}
		},
	} {
		tree, err := canon.Parse(upstreamtest.Read(t, "artifact8-deterministic-reference-v1.json"))
		if err != nil {
			t.Fatal(err)
		}
		d := tree.(map[string]any)
		if err := Check(d); err != nil {
			t.Fatalf("the upstream artefact: %v", err)
		}
		edit(d)
		if got := refusal.Of(Check(d)); got != artefact.ErrSchema.Class {
			t.Errorf("Check = %q, want %s", got, artefact.ErrSchema.Class)
		}
	}
}
