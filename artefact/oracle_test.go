package artefact_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/artefact/schema"
	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/refusal"
	"github.com/rogpeppe/go-internal/txtar"
)

// exception is a documented disagreement: a rule of the named checks the
// published JSON Schema does not state, so that a document the named checks
// refuse under it passes the schema. It applies to a refusal by its class,
// its pointer and the value the pointer names.
type exception struct {
	name, why string
	applies   func(class refusal.Class, pointer string, value any) bool
}

func classes(cs ...*refusal.Refusal) func(refusal.Class, string, any) bool {
	return func(c refusal.Class, _ string, _ any) bool {
		return slices.ContainsFunc(cs, func(s *refusal.Refusal) bool { return s.Class == c })
	}
}

// exceptions are every disagreement TestSchemaOracle allows, by name: each
// must be witnessed by a vector (so the list is exactly what is needed), and
// any other disagreement fails the test. None goes the other way: the
// schema refuses nothing the named checks accept.
var exceptions = []exception{
	{"relations", "a value held to other values (a digest over them, a count or an order of them, one field agreeing with another); JSON Schema states each value's shape on its own",
		classes(artefact.ErrDigestMismatch, artefact.ErrTapeMismatch, artefact.ErrBindingIncoherent, artefact.ErrBindingUnexpected,
			artefact.ErrBindingMissing, artefact.ErrExecution, artefact.ErrModelIdentity, artefact.ErrRelabelled, artefact.ErrEvaluation, artefact.ErrOutOfOrder)},
	{"registry", "this build's registry (its operation types, agents, terminal classes and each pack's final-state validator) is not in the schema, which holds the final state to an object",
		func(c refusal.Class, p string, _ any) bool {
			return classes(artefact.ErrUnregisteredAgent, artefact.ErrUnknownOperationType, artefact.ErrFinalState)(c, p, nil) ||
				c == artefact.ErrUnknownValue.Class && p == "/expected_terminal"
		}},
	{"integral-float", "JSON Schema's integer is the number, so 14.0 is one; the named checks refuse a float where the contract writes an integer",
		func(_ refusal.Class, _ string, v any) bool { _, ok := v.(float64); return ok }},
	{"calendar", "the schema's instant is a pattern of digits, which February 31 fits",
		func(c refusal.Class, _ string, v any) bool {
			s, ok := v.(string)
			return ok && c == artefact.ErrBadField.Class && len(s) == len("2031-02-31T09:00:00Z")
		}},
	{"dimension-bodies", "the schema's evaluation.dimensions has an 11-entry prefixItems (each naming one dimension) beside items, and draft 2020-12 items apply only past the prefix: no dimension's ok, note, counts or findings is held",
		func(_ refusal.Class, p string, _ any) bool {
			return strings.HasPrefix(p, "/evaluation/dimensions/") && strings.Count(p, "/") >= 4
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
	witnessed := map[string]int{}
	judged := 0
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
		judged++
		bySchema := <-verdicts[k]
		switch {
		case named == nil && bySchema != nil:
			t.Errorf("%s: the named checks accept it and the schema refuses it: %v", v.name, bySchema)
		case named != nil && bySchema == nil:
			class, _ := refusal.ClassOf(named)
			p, _ := artefact.Pointer(named)
			i := slices.IndexFunc(exceptions, func(e exception) bool { return e.applies(class, p, at(tree, p)) })
			if i < 0 {
				t.Errorf("%s: the schema accepts it and the named checks refuse it (%v), under no documented exception", v.name, named)
				continue
			}
			witnessed[exceptions[i].name]++
		}
	}
	for _, e := range exceptions {
		if witnessed[e.name] == 0 {
			t.Errorf("exception %q is witnessed by no vector: drop it", e.name)
		}
	}
	t.Logf("%d vectors, %d judged by both; the schema passes what the named checks refuse under %v", len(vectors), judged, witnessed)
	if judged < 250 {
		t.Fatalf("only %d vectors judged by both; the corpus lost its members", judged)
	}
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

// at resolves a JSON pointer (no escapes: the contract's keys have none) in
// a tree, or nil.
func at(tree any, pointer string) any {
	if pointer == "" {
		return tree
	}
	for _, step := range strings.Split(pointer[1:], "/") {
		switch v := tree.(type) {
		case map[string]any:
			tree = v[step]
		case []any:
			i, err := strconv.Atoi(step)
			if err != nil || i < 0 || i >= len(v) {
				return nil
			}
			tree = v[i]
		default:
			return nil
		}
	}
	return tree
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
		out = append(out, oracleVector{name: f, b: fuzzEntry(t, f)})
	}
	for _, dir := range []string{"../testdata/soundness", "../cmd/obaudit/testdata/script"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.txtar"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no vectors in %s", dir)
		}
		for _, f := range files {
			a, err := txtar.ParseFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, file := range a.Files {
				if bytes.HasPrefix(bytes.TrimSpace(file.Data), []byte("{")) && bytes.Contains(file.Data, []byte(`"artifact_version"`)) {
					out = append(out, oracleVector{name: f + ":" + file.Name, b: file.Data})
				}
			}
		}
	}
	return out
}

// fuzzEntry reads a one-value "go test fuzz v1" corpus file of FuzzRead.
func fuzzEntry(t *testing.T, path string) []byte {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 2 || lines[0] != "go test fuzz v1" || !strings.HasPrefix(lines[1], "[]byte(") {
		t.Fatalf("%s: not a FuzzRead corpus entry", path)
	}
	s, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[1], "[]byte("), ")"))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return []byte(s)
}
