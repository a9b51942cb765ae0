package commitment

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/internal/refusaltest"
	"github.com/obaudit/obaudit/internal/schemaoracle"
	"github.com/obaudit/obaudit/internal/upstreamtest"
	"github.com/obaudit/obaudit/refusal"
	"github.com/obaudit/obaudit/schemas"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// exceptions are every disagreement TestPredicateOracle allows, by name:
// each must be witnessed by a vector, and any other disagreement fails.
// None goes the other way: the named checks accept nothing the schema
// refuses. Each is a rule of the named checks the published JSON Schema
// does not state, so that a predicate the named checks refuse under it
// passes the schema; it applies to a refusal by its class, its pointer and
// the value the pointer names.
var exceptions = schemaoracle.Exceptions{
	{Name: "integral-float", Why: "JSON Schema's integer is the number, so 8.0 is one; the named checks refuse a float where the predicate writes an integer (artifact_version, ledger_version, rows), as obaudit writes integers (the reader before them panicked on one)",
		Applies: func(r schemaoracle.Refused) bool {
			f, ok := r.Value.(float64)
			return ok && r.Class == ErrPredicateInvalid.Class && f == math.Trunc(f)
		}},
}

// schemaKeywords are the JSON Schema keywords the mutation corpus knows how
// to reach (bounds, lengths, enums, patterns through edits of valid
// values, objects' key sets, null branches) and the annotations it may
// ignore. TestPredicateOracle fails if the published schema uses another.
var schemaKeywords = []string{
	"$schema", "$id", "title", "description", "$defs", "$ref",
	"type", "properties", "required", "additionalProperties", "anyOf",
	"minimum", "maximum", "minLength", "maxLength", "pattern", "enum",
}

// published is the published schema, compiled.
func published(t testing.TB) *jsonschema.Schema {
	return schemaoracle.Compile(t, schemas.CommitmentV1ID, schemas.CommitmentV1())
}

// schemaTree is the published schema as a JSON tree, for the mutations'
// bounds.
var schemaTree = sync.OnceValues(func() (map[string]any, error) {
	tree, err := canon.Parse(schemas.CommitmentV1())
	if err != nil {
		return nil, err
	}
	return tree.(map[string]any), nil
})

// judge gives a predicate tree to the named checks and to the published
// schema s. It returns "" when they agree, the exception a disagreement
// falls under, or an error for any other disagreement. An accepted tree
// must also read back to itself (Predicate.Tree), and a Statement carrying
// it must get the same verdict from Parse.
func judge(s *jsonschema.Schema, tree any) (string, error) {
	bySchema := schemaoracle.Check(s, tree)
	p, named := readPredicate(tree)
	if err := parseAgrees(tree, named); err != nil {
		return "", err
	}
	switch {
	case named == nil && bySchema != nil:
		return "", fmt.Errorf("the named checks accept it and the schema refuses it: %v", bySchema)
	case named == nil:
		if got, want := canon.String(p.Tree(), canon.JCSForm), canon.String(tree, canon.JCSForm); got != want {
			return "", fmt.Errorf("accepted, but reads back as %s", got)
		}
	case refusal.Of(named) != ErrPredicateInvalid.Class:
		return "", fmt.Errorf("refused as %v, want class %s", named, ErrPredicateInvalid.Class)
	case bySchema == nil:
		pointer, ok := refusedAt(named)
		if !ok {
			return "", fmt.Errorf("refusal %v names no pointer", named)
		}
		v, _ := at(tree, pointer)
		if e := exceptions.Excuse(schemaoracle.Refused{Class: refusal.Of(named), Pointer: pointer, Value: v}); e != "" {
			return e, nil
		}
		return "", fmt.Errorf("the schema accepts it and the named checks refuse it (%v), under no documented exception", named)
	}
	return "", nil
}

// parseAgrees wraps tree in a Statement (two subjects when its ledger is
// an object) and holds Parse's verdict to the named checks' one.
func parseAgrees(tree any, named error) error {
	// The upstream form keeps a float a float (8.0), where JCS writes 8.
	b, err := canon.Upstream(statementAround(tree))
	if err != nil {
		return nil // not encodable (an integer past 2^53): no Statement carries it
	}
	_, parsed := Parse(b)
	switch {
	case named == nil && parsed != nil:
		return fmt.Errorf("Parse refuses the Statement carrying it: %v", parsed)
	case named != nil && refusal.Of(parsed) != ErrPredicateInvalid.Class:
		return fmt.Errorf("Parse of the Statement carrying it = %v, want class %s", parsed, ErrPredicateInvalid.Class)
	}
	return nil
}

func statementAround(pred any) map[string]any {
	digest := strings.Repeat("ab", 32)
	subjects := []any{map[string]any{"name": "a.json", "digest": map[string]any{"sha256": digest}}}
	if m, ok := pred.(map[string]any); ok {
		if _, ok := m["ledger"].(map[string]any); ok {
			subjects = append(subjects, map[string]any{"name": "l.ndjson", "digest": map[string]any{"sha256": digest}})
		}
	}
	return map[string]any{"_type": StatementType, "subject": subjects, "predicateType": PredicateType, "predicate": pred}
}

// at resolves an RFC 6901 pointer in a tree; ok is false when it names
// nothing.
var at = schemaoracle.Lookup

// vector is one predicate tree both validators judge; a mutation's value
// is the one it put in.
type vector struct {
	name  string
	tree  any
	value any
}

// TestPredicateOracle holds the published JSON Schema of the v1 predicate
// (schemas.CommitmentV1) to the named checks (readPredicate), which are the
// validator: every valid predicate the package's and the CLI's tests sign
// (the upstream fixtures' commitments, with and without a ledger, contract
// 1's nulls, every combination of checks, obaudit's own runs' shape) and a
// mutation corpus generated from each (every member deleted, replaced by
// each kind of value and by values just inside and past each bound the
// schema states, strings edited against their patterns, an unknown member
// added to every object) get the same verdict from both, save exactly the
// documented exceptions. FuzzPredicateOracle asserts the same on its
// corpus.
func TestPredicateOracle(t *testing.T) {
	checkKeywords(t)
	docs := validPredicates(t)
	vectors := checksVariants(docs)
	for _, d := range docs {
		vectors = append(vectors, d)
		vectors = append(vectors, mutations(t, d)...)
	}
	s := published(t)
	var witnessed schemaoracle.Witnesses
	accepted := 0
	for _, v := range vectors {
		e, err := judge(s, v.tree)
		witnessed.Judged(e)
		if err != nil {
			t.Errorf("%s: %v", v.name, err)
			continue
		}
		if _, err := readPredicate(v.tree); err == nil {
			accepted++
		}
	}
	t.Logf("%d accepted by both", accepted)
	witnessed.Check(t, exceptions, 2000)
}

// FuzzPredicateOracle: any predicate bytes canon reads get the same verdict
// from the named checks and the published schema (save the documented
// exceptions), and neither panics. The seeds are the valid predicates and
// a sample of their mutations, every integral float among them (the
// exception's witnesses).
func FuzzPredicateOracle(f *testing.F) {
	for _, d := range validPredicates(f) {
		f.Add(mustUpstream(f, d.tree))
		for i, m := range mutations(f, d) {
			x, isFloat := m.value.(float64)
			if b, err := canon.Upstream(m.tree); err == nil && (i%40 == 0 || isFloat && x == math.Trunc(x)) {
				f.Add(b)
			}
		}
	}
	f.Add([]byte(`{"artefact":{},"ledger":null,"checks":{},"obaudit_version":"x"}`))
	f.Add([]byte(`[]`))
	s := published(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		tree, err := canon.Parse(b)
		if err != nil {
			return
		}
		if _, err := judge(s, tree); err != nil {
			t.Fatal(err)
		}
	})
}

// checkKeywords fails when the published schema uses a keyword the
// mutation corpus does not know (schemaKeywords).
func checkKeywords(t *testing.T) {
	root, err := schemaTree()
	if err != nil {
		t.Fatal(err)
	}
	var walk func(s map[string]any, p string)
	walk = func(s map[string]any, p string) {
		for k, v := range s {
			if !slices.Contains(schemaKeywords, k) {
				t.Errorf("the schema uses %s at %s, which the mutation corpus does not reach: teach mutations (and the named checks) it", k, p)
			}
			switch k {
			case "properties", "$defs":
				for name, sub := range v.(map[string]any) {
					walk(sub.(map[string]any), p+"/"+k+"/"+name)
				}
			case "anyOf":
				for i, sub := range v.([]any) {
					walk(sub.(map[string]any), p+"/anyOf/"+strconv.Itoa(i))
				}
			}
		}
	}
	walk(root, "#")
}

// mustUpstream encodes v in the upstream form, which keeps a float's kind.
func mustUpstream(tb testing.TB, v any) []byte {
	tb.Helper()
	b, err := canon.Upstream(v)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// predicateTree is the predicate as Parse sees it: Marshal's bytes, read
// back by canon.
func predicateTree(tb testing.TB, st *Statement) map[string]any {
	tb.Helper()
	b, err := st.Marshal()
	if err != nil {
		tb.Fatalf("Marshal: %v", err)
	}
	tree, err := canon.Parse(b)
	if err != nil {
		tb.Fatal(err)
	}
	return tree.(map[string]any)["predicate"].(map[string]any)
}

// fixture reads an upstream fixture when it is present (or required); ok
// is false when it is absent and not required.
func fixture(tb testing.TB, name string) ([]byte, bool) {
	tb.Helper()
	if _, err := os.Stat(filepath.Join(upstreamtest.Dir(), name)); err != nil && os.Getenv(upstreamtest.RequireEnv) != "1" {
		return nil, false
	}
	return upstreamtest.Read(tb, name), true
}

// validPredicates are the valid documents of the corpus: the commitments
// of the upstream fixtures the package's tests, sigverify's and the CLI's
// testscripts sign (sign_verify.txtar's det.json, model.json with its
// ledger, a1.json of contract 1) and predicates of obaudit's own runs' shape (its engine version,
// a v3 ledger, null terminal fields, values at the schema's bounds), which
// need no fixture.
func validPredicates(tb testing.TB) []vector {
	tb.Helper()
	var out []vector
	for _, f := range []struct{ artefact, ledger string }{{detName, ""}, {modelName, ledgerName}, {"artifact1-reference-V1.json", ""}} {
		a, ok := fixture(tb, f.artefact)
		if !ok {
			continue
		}
		in := Inputs{ArtefactName: f.artefact, Artefact: a}
		if f.ledger != "" {
			if in.Ledger, ok = fixture(tb, f.ledger); !ok {
				continue
			}
		}
		st, err := New(context.Background(), in, opts)
		if err != nil {
			tb.Fatalf("New(%s) = %v", f.artefact, err)
		}
		out = append(out, vector{name: f.artefact, tree: predicateTree(tb, st)})
	}
	digest := func(c string) string { return strings.Repeat(c, 64) }
	outcome := "completed_successfully"
	own := Predicate{
		Artefact: ArtefactFacts{
			ArtifactVersion: 8, EngineVersion: "0.9.0+obaudit.1", OperationID: "operation_synthetic_v1", OperationVersion: "0.6.0",
			SpecDigest: digest("1"), OperationInstanceID: "opinst_0123456789abcdef0123456789abcdef",
			ScenarioID: "V2", SemanticScenarioID: "V2", AgentID: "reference", AgentKind: "reference",
			TrajectoryDigest: digest("2"), FinalStateDigest: digest("3"), DecisionsDigest: digest("4"), EvaluationDigest: digest("5"),
			Reliable: false, TerminalOutcome: &outcome, BoundLedgerDigest: digest("6"),
		},
		Ledger:         &LedgerFacts{LedgerVersion: 3, ExecutionRunID: "exec_0123456789abcdef0123456789abcdef", Rows: 3, ChainHead: digest("6")},
		Checks:         Checks{Validate: true, Replay: true, Bundle: true},
		ObauditVersion: "0.1.0",
	}
	out = append(out, vector{name: "own run with a v3 ledger", tree: predicateTree(tb, &Statement{Predicate: own})})
	contract1 := own
	contract1.Artefact.ArtifactVersion, contract1.Artefact.OperationInstanceID, contract1.Artefact.DecisionsDigest = 1, "", ""
	contract1.Artefact.TerminalOutcome, contract1.Artefact.BoundLedgerDigest, contract1.Ledger = nil, "", nil
	out = append(out, vector{name: "contract 1's nulls", tree: predicateTree(tb, &Statement{Predicate: contract1})})
	bounds := own
	bounds.Artefact.AgentID = strings.Repeat("é", maxTextLength)
	bounds.Artefact.AgentKind = strings.Repeat("𝄞", maxTextLength)
	bounds.Artefact.ScenarioID = "x"
	bounds.Ledger = &LedgerFacts{LedgerVersion: 2, ExecutionRunID: "exec_ffffffffffffffffffffffffffffffff", Rows: maxRows, ChainHead: digest("f"), TerminalKind: "aborted"}
	out = append(out, vector{name: "values at the bounds", tree: predicateTree(tb, &Statement{Predicate: bounds})})
	for _, d := range out {
		if _, err := readPredicate(d.tree); err != nil {
			tb.Fatalf("valid document %s: %v", d.name, err)
		}
	}
	return out
}

// checksVariants are each document under every combination of checks.
func checksVariants(docs []vector) []vector {
	var out []vector
	for _, d := range docs {
		for bits := range 8 {
			c := schemaoracle.Set(d.tree, "/checks", map[string]any{"validate": bits&1 != 0, "replay": bits&2 != 0, "bundle": bits&4 != 0})
			out = append(out, vector{name: fmt.Sprintf("%s, checks %03b", d.name, bits), tree: c})
		}
	}
	return out
}

// kinds are the values of every JSON kind, at the edges the rules care
// about, that replace every value: schemaoracle's, and integers past 2^53,
// which only a tree can hold (canon reads neither 1e20 nor 2^62 back).
func kinds() []any {
	return append(schemaoracle.Kinds(), 1e20, int64(1)<<62)
}

// mutations are the vectors made of one valid document: for every pointer,
// the member deleted, replaced by each of kinds and by the values the
// schema's keywords there make interesting (bounds, lengths, enums), and,
// for a string or an integer, edits of the value itself; and an unknown
// member added to every object.
func mutations(tb testing.TB, d vector) []vector {
	tb.Helper()
	root, err := schemaTree()
	if err != nil {
		tb.Fatal(err)
	}
	var out []vector
	var walk func(path []string, ptr string, v any)
	walk = func(path []string, ptr string, v any) {
		p := "/" + strings.Join(path, "/")
		add := func(what string, w any) {
			out = append(out, vector{fmt.Sprintf("%s: %s = %s", d.name, p, what), schemaoracle.Set(d.tree, ptr, w), w})
		}
		if len(path) > 0 {
			out = append(out, vector{name: d.name + ": " + p + " deleted", tree: schemaoracle.Delete(d.tree, ptr)})
		}
		for _, k := range kinds() {
			add(describe(k), k)
		}
		for _, w := range boundValues(tb, root, path) {
			add(describe(w), w)
		}
		for _, w := range edits(v) {
			add(describe(w), w)
		}
		if m, ok := v.(map[string]any); ok {
			for _, k := range []string{"unknown", "", "a/b~c"} {
				w := maps.Clone(m)
				w[k] = true
				add(fmt.Sprintf("the object with member %q", k), w)
			}
			for _, k := range slices.Sorted(maps.Keys(m)) {
				walk(append(slices.Clip(path), k), schemaoracle.Key(ptr, k), m[k])
			}
		}
	}
	walk(nil, "", d.tree)
	return out
}

func describe(v any) string {
	s := fmt.Sprintf("%T %v", v, v)
	if len(s) > 60 {
		s = s[:60] + "…"
	}
	return s
}

// edits are values of a valid value's kind next to it: for a string, one
// code point cut, added, changed, cased (all or the first), or a line break around it (the
// patterns' anchors); for an integer, its neighbours and itself as a
// float.
func edits(v any) []any {
	switch v := v.(type) {
	case string:
		if v == "" {
			return nil
		}
		_, last := utf8.DecodeLastRuneInString(v)
		_, first := utf8.DecodeRuneInString(v)
		return []any{
			v[:len(v)-last], v + "0", v + "a", v + "\n", "\n" + v, " " + v, strings.ToUpper(v),
			capitalised(v), v[:len(v)-last] + "g", v[:len(v)-last] + "0", "X" + v[first:], v + v,
		}
	case int64:
		return []any{v - 1, v + 1, float64(v)}
	}
	return nil
}

func capitalised(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return strings.ToUpper(string(r)) + s[n:]
}

// boundValues are the values the schema's keywords at path make
// interesting: each side of a minimum and maximum (and the bound as a
// float), strings each side of a length bound in one-, two- and four-byte
// code points, and each enum member, cased (all or the first) and extended.
func boundValues(tb testing.TB, root map[string]any, path []string) []any {
	var out []any
	for _, s := range subschemas(tb, root, path) {
		if n, ok := s["minimum"].(int64); ok {
			out = append(out, n-1, n, float64(n), float64(n-1))
		}
		if n, ok := s["maximum"].(int64); ok {
			out = append(out, n, n+1, float64(n), float64(n+1))
		}
		for _, key := range []string{"minLength", "maxLength"} {
			if n, ok := s[key].(int64); ok {
				for _, size := range []int64{n - 1, n, n + 1} {
					for _, c := range []string{"x", "é", "𝄞"} {
						if size >= 0 {
							out = append(out, strings.Repeat(c, int(size)))
						}
					}
				}
			}
		}
		if enum, ok := s["enum"].([]any); ok {
			for _, e := range enum {
				out = append(out, e, strings.ToUpper(e.(string)), capitalised(e.(string)), e.(string)+"x")
			}
		}
	}
	return out
}

// subschemas are the schema objects that apply at path: through
// properties, following $ref (to $defs) and every anyOf branch.
func subschemas(tb testing.TB, root map[string]any, path []string) []map[string]any {
	var expand func(s map[string]any, out []map[string]any) []map[string]any
	expand = func(s map[string]any, out []map[string]any) []map[string]any {
		out = append(out, s)
		if ref, ok := s["$ref"].(string); ok {
			target, ok := at(root, strings.TrimPrefix(ref, "#"))
			if !ok {
				tb.Fatalf("the schema's $ref %s resolves to nothing", ref)
			}
			out = expand(target.(map[string]any), out)
		}
		if branches, ok := s["anyOf"].([]any); ok {
			for _, b := range branches {
				out = expand(b.(map[string]any), out)
			}
		}
		return out
	}
	cur := expand(root, nil)
	for _, k := range path {
		var next []map[string]any
		for _, s := range cur {
			if props, ok := s["properties"].(map[string]any); ok {
				if sub, ok := props[k].(map[string]any); ok {
					next = expand(sub, next)
				}
			}
		}
		cur = next
	}
	return cur
}

// TestParseIntegralFloat: a signed Statement whose integers are written as
// integral floats (8.0) is refused as predicate-invalid; the reader before
// the named checks passed the schema's integer and then panicked on the
// float.
func TestParseIntegralFloat(t *testing.T) {
	tried := 0
	for _, d := range validPredicates(t) {
		b := mustUpstream(t, statementAround(d.tree))
		for _, key := range []string{`"artifact_version":8`, `"artifact_version":1`, `"ledger_version":2`, `"ledger_version":3`} {
			if !bytes.Contains(b, []byte(key+",")) {
				continue
			}
			_, err := Parse(bytes.Replace(b, []byte(key+","), []byte(key+".0,"), 1))
			refusaltest.Want(t, err, ErrPredicateInvalid)
			tried++
		}
	}
	if tried < 4 {
		t.Fatalf("only %d integral floats tried", tried)
	}
}
