package artefact_test

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/artefact/schema"
	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/internal/schemaoracle"
	"github.com/obaudit/obaudit/refusal"
)

// exceptions are every disagreement TestSchemaOracle allows, by name: each
// must be witnessed by a vector (so the list is exactly what is needed), and
// any other disagreement fails the test. None goes the other way: the
// schema refuses nothing the named checks accept. Each is a rule of the
// named checks the published JSON Schema does not state, so that a
// document the named checks refuse under it passes the schema; it applies
// to a refusal by its class, its pointer and the value the pointer names.
var exceptions = schemaoracle.Exceptions{
	{Name: "relations", Why: "a value held to other values (a digest over them, a count or an order of them, one field agreeing with another); JSON Schema states each value's shape on its own",
		Applies: schemaoracle.Classes(artefact.ErrDigestMismatch, artefact.ErrTapeMismatch, artefact.ErrBindingIncoherent, artefact.ErrBindingUnexpected,
			artefact.ErrBindingMissing, artefact.ErrExecution, artefact.ErrModelIdentity, artefact.ErrRelabelled, artefact.ErrEvaluation, artefact.ErrOutOfOrder)},
	{Name: "registry", Why: "this build's registry (its operation types, agents, terminal classes and each pack's final-state validator) is not in the schema, which holds the final state to an object",
		Applies: func(r schemaoracle.Refused) bool {
			return schemaoracle.Classes(artefact.ErrUnregisteredAgent, artefact.ErrUnknownOperationType, artefact.ErrFinalState)(r) ||
				r.Class == artefact.ErrUnknownValue.Class && r.Pointer == "/expected_terminal"
		}},
	{Name: "integral-float", Why: "JSON Schema's integer is the number, so 14.0 is one; the named checks refuse a float where the contract writes an integer",
		Applies: func(r schemaoracle.Refused) bool { _, ok := r.Value.(float64); return ok }},
	{Name: "calendar", Why: "the schema's instant is a pattern of digits, which February 31 fits",
		Applies: func(r schemaoracle.Refused) bool {
			s, ok := r.Value.(string)
			return ok && r.Class == artefact.ErrBadField.Class && len(s) == len("2031-02-31T09:00:00Z")
		}},
	{Name: "dimension-bodies", Why: "the schema's evaluation.dimensions has an 11-entry prefixItems (each naming one dimension) beside items, and draft 2020-12 items apply only past the prefix: no dimension's ok, note, counts or findings is held",
		Applies: func(r schemaoracle.Refused) bool {
			return strings.HasPrefix(r.Pointer, "/evaluation/dimensions/") && strings.Count(r.Pointer, "/") >= 4
		}},
}

// oracleVector is one document both engines judge.
type oracleVector struct {
	name string
	tree any    // nil: bytes
	b    []byte // the file's bytes, when tree is nil
}

// TestSchemaOracle holds the published JSON Schema (package artefact/schema,
// the document as published) to the named checks, which are the validator:
// every committed vector (the upstream fixtures, the mutation catalogue,
// seeded random edits of the fixtures, the soundness corpus, the
// artefacts in the CLI testscripts) and every fuzz corpus entry (FuzzRead's
// seeds and artefact/testdata/fuzz/FuzzRead) is given to both, and they
// must reach the same verdict, save exactly the documented exceptions. A document declaring contract 1..7 is not the
// schema's (artefact.SchemaApplies); one that does not parse is judged by neither.
func TestSchemaOracle(t *testing.T) {
	vectors := oracleVectors(t)
	opts := testOptions()
	var witnessed schemaoracle.Witnesses
	// The schema's verdicts are computed on every processor (a compiled
	// schema is safe for concurrent use; nothing edits a vector's tree).
	verdicts := make([]chan error, len(vectors))
	work := make(chan int)
	for k := range vectors {
		verdicts[k] = make(chan error, 1)
	}
	for range runtime.GOMAXPROCS(0) {
		go func() {
			for k := range work {
				verdicts[k] <- schemaVerdict(vectors[k])
			}
		}()
	}
	go func() {
		for k := range vectors {
			work <- k
		}
		close(work)
	}()
	for k, v := range vectors {
		tree, named := v.tree, error(nil)
		if tree == nil {
			var err error
			if tree, err = canon.Parse(v.b); err != nil {
				continue
			}
			_, named = artefact.Read(v.b, opts)
		} else {
			_, named = artefact.Validate(tree, opts)
		}
		if !artefact.SchemaApplies(tree) {
			continue
		}
		bySchema, excused := <-verdicts[k], ""
		switch {
		case named == nil && bySchema != nil:
			t.Errorf("%s: the named checks accept it and the schema refuses it: %v", v.name, bySchema)
		case named != nil && bySchema == nil:
			class, _ := refusal.ClassOf(named)
			p, _ := artefact.Pointer(named)
			if excused = exceptions.Excuse(schemaoracle.Refused{Class: class, Pointer: p, Value: schemaoracle.At(tree, p)}); excused == "" {
				t.Errorf("%s: the schema accepts it and the named checks refuse it (%v), under no documented exception", v.name, named)
			}
		}
		witnessed.Judged(excused)
	}
	t.Logf("%d vectors", len(vectors))
	witnessed.Check(t, exceptions, 250)
}

// schemaVerdict is the published schema's verdict on a vector (nil too
// when it does not parse or is not the schema's).
func schemaVerdict(v oracleVector) error {
	tree := v.tree
	if tree == nil {
		var err error
		if tree, err = canon.Parse(v.b); err != nil {
			return nil
		}
	}
	if !artefact.SchemaApplies(tree) {
		return nil
	}
	return schema.Check(tree)
}

func oracleVectors(t *testing.T) []oracleVector {
	var out []oracleVector
	for _, name := range []string{fixtureDet, fixtureModel, fixtureV1} {
		if b, err := readIfPresent(name); err == nil {
			out = append(out, oracleVector{name: name, b: b})
		}
	}
	for _, mu := range mutations() {
		d := tree(t, mu.fixture)
		mu.edit(t, d)
		out = append(out, oracleVector{name: "mutation " + mu.name, tree: d})
	}
	for i, d := range randomEdits(t) {
		out = append(out, oracleVector{name: fmt.Sprintf("random edit %d", i), tree: d})
	}
	for i, s := range readSeeds {
		out = append(out, oracleVector{name: fmt.Sprintf("FuzzRead seed %d", i), b: []byte(s)})
	}
	corpus, _ := filepath.Glob("testdata/fuzz/FuzzRead/*")
	for _, f := range corpus {
		out = append(out, oracleVector{name: f, b: schemaoracle.CorpusEntry(t, f)})
	}
	for _, dir := range []string{"../testdata/soundness", "../cmd/obaudit/testdata/script"} {
		for _, f := range schemaoracle.TxtarFiles(t, filepath.Join(dir, "*.txtar"), schemaoracle.JSONObject(`"artifact_version"`)) {
			out = append(out, oracleVector{name: f.Name, b: f.Data})
		}
	}
	return out
}
