package notimerecord_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"unicode"

	"github.com/obaudit/obaudit/arm/notime"
	"github.com/obaudit/obaudit/arm/notimerecord"
	"github.com/obaudit/obaudit/arm/notimewire"
	"github.com/obaudit/obaudit/arm/pair"
	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/domains"
	"github.com/obaudit/obaudit/internal/artefacttest"
	"github.com/obaudit/obaudit/internal/jsonfield"
	"github.com/obaudit/obaudit/internal/schemaoracle"
	"github.com/obaudit/obaudit/refusal"
	"github.com/obaudit/obaudit/schemas"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// exceptions are every disagreement TestSchemaOracle allows, by name: each
// must be witnessed by a vector (so the list is exactly what is needed),
// and any other disagreement fails the test. None goes the other way: the
// schema refuses nothing the named checks accept, and where it refuses,
// the named checks refuse with ErrSchema (ErrMalformed for a record that
// is not an object), as Decode did when it ran the schema. Each is a rule
// of the named checks the published JSON Schema does not state, so that a
// record the named checks refuse under it passes the schema; it applies to
// a refusal by its class, its pointer and the value the pointer names.
var exceptions = schemaoracle.Exceptions{
	{Name: "relations", Why: "a value held to other values (a recorded digest to the content it names; halt, invocations, transition_count, replay_final and elapsed_minutes to the trajectory and final state they summarise); JSON Schema states each value's shape on its own",
		Applies: schemaoracle.Classes(notimerecord.ErrDigest, notimerecord.ErrIncoherent)},
	{Name: "encoding", Why: "the file is the RFC 8785 encoding of its content and one newline; the schema judges the content, not its bytes",
		Applies: schemaoracle.Classes(notimerecord.ErrNotCanonical)},
	{Name: "integral-float", Why: "JSON Schema's integer is the number, so 14.0 and 1e300 are integers; the named checks hold an integer field to an integer literal (all RFC 8785 writes for such a number)",
		Applies: func(r schemaoracle.Refused) bool {
			f, ok := r.Value.(float64)
			return ok && r.Class == notimerecord.ErrSchema.Class && f == math.Trunc(f)
		}},
}

// minJudged is the floor of vectors judged by both: the corpus may grow,
// not shrink.
const minJudged = 8000

// published is the published schema, compiled.
func published(t testing.TB) *jsonschema.Schema {
	return schemaoracle.Compile(t, schemas.NoTimeRunV1ID, schemas.NoTimeRunV1())
}

// schemaVerdict is the published schema's verdict on a tree (numbers as
// json.Number, as the schema library reads them).
func schemaVerdict(s *jsonschema.Schema, tree any) error {
	return schemaoracle.Check(s, canon.MapLeaves(tree, func(leaf any) any {
		switch x := leaf.(type) {
		case int64:
			return json.Number(strconv.FormatInt(x, 10))
		case float64:
			return json.Number(strconv.FormatFloat(x, 'g', -1, 64))
		}
		return leaf
	}))
}

// judgement is how a record file fares before both validators.
type judgement struct {
	skipped   bool   // canon's strict reader refuses it: judged by neither
	exception string // the documented exception the disagreement falls under
	err       error  // an undocumented disagreement
}

// judge gives the file b to Decode (the named checks, then the digests
// and the summary) and its tree (parsed from b when nil) to the published
// schema s.
func judge(s *jsonschema.Schema, b []byte, tree any) judgement {
	_, named := notimerecord.Decode(b)
	if tree == nil {
		var err error
		if tree, err = canon.Parse(bytes.TrimSuffix(b, []byte("\n"))); err != nil {
			return judgement{skipped: true}
		}
	}
	bySchema := schemaVerdict(s, tree)
	class := refusal.Of(named)
	_, isObject := tree.(map[string]any)
	switch {
	case named == nil && bySchema != nil:
		return judgement{err: fmt.Errorf("the named checks accept it and the schema refuses it: %v", bySchema)}
	case named != nil && bySchema != nil:
		if class != notimerecord.ErrSchema.Class && (isObject || class != notimerecord.ErrMalformed.Class) {
			return judgement{err: fmt.Errorf("the schema refuses it and the named checks refuse it with %s, not %s: %v", class, notimerecord.ErrSchema.Class, named)}
		}
	case named != nil:
		p, _ := notimerecord.Pointer(named)
		if e := exceptions.Excuse(schemaoracle.Refused{Class: class, Pointer: p, Value: schemaoracle.At(tree, p)}); e != "" {
			return judgement{exception: e}
		}
		return judgement{err: fmt.Errorf("the schema accepts it and the named checks refuse it (%v), under no documented exception", named)}
	}
	return judgement{}
}

// TestSchemaOracle holds the published JSON Schema (schemas/notime/v1.json,
// as published) to the named checks, which are the validator: every record
// the package's producers make (each agent on each eligible scenario, a
// transition horizon, an integrity halt), the committed refusal cases and
// testscript records, FuzzDecodeOracle's seeds and corpus, and a mutation
// corpus of the records (every value deleted, replaced by each JSON kind
// and by values just past each bound the schema states there, every object
// given an unknown key, every array an item twice) go to both, which must
// reach the same verdict, save exactly the documented exceptions.
func TestSchemaOracle(t *testing.T) {
	s := published(t)
	vectors := oracleVectors(t)
	results := make([]judgement, len(vectors))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for k := int(next.Add(1) - 1); k < len(vectors); k = int(next.Add(1) - 1) {
				b, err := vectors[k].bytes()
				if err != nil {
					results[k] = judgement{err: err}
					continue
				}
				results[k] = judge(s, b, vectors[k].tree)
			}
		})
	}
	wg.Wait()
	var witnessed schemaoracle.Witnesses
	failed := 0
	for k, r := range results {
		if r.skipped {
			continue
		}
		if r.err != nil {
			if failed++; failed <= 25 {
				t.Errorf("%s: %v", vectors[k].name, r.err)
			}
		}
		witnessed.Judged(r.exception)
	}
	if failed > 25 {
		t.Errorf("... and %d more disagreements", failed-25)
	}
	t.Logf("%d vectors", len(vectors))
	witnessed.Check(t, exceptions, minJudged)
}

// FuzzDecodeOracle: no input makes Decode panic, and Decode and the
// published schema reach the same verdict on it, save the documented
// exceptions.
func FuzzDecodeOracle(f *testing.F) {
	for _, v := range fuzzSeeds(f) {
		b, err := v.bytes()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	s := published(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		if j := judge(s, b, nil); j.err != nil {
			t.Fatal(j.err)
		}
	})
}

// vector is one record file both validators judge.
type vector struct {
	name     string
	tree     any    // a mutated record, when b is nil
	b        []byte // the file
	upstream bool   // encode tree in the upstream form
}

// bytes is the vector's file: a mutated tree's RFC 8785 encoding and a
// newline or, for a tree holding an integral float (which RFC 8785 writes
// as an integer, 14.0 as 14), its upstream form, which keeps it a float.
func (v vector) bytes() ([]byte, error) {
	if v.b != nil {
		return v.b, nil
	}
	encode := canon.JCS
	if v.upstream {
		encode = canon.Upstream
	}
	b, err := encode(v.tree)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", v.name, err)
	}
	return append(b, '\n'), nil
}

// validRecord is a record one of the package's producers made.
type validRecord struct {
	name string
	b    []byte
}

var (
	recordsOnce sync.Once
	recordsMade []validRecord
)

// validRecords are the records of every agent of the default pack on every
// scenario the No-Time protocol admits, and two of the reference on V1
// halted early (a transition horizon of 9; an event the plan carries
// twice: an integrity halt), smallest first.
func validRecords(t testing.TB) []validRecord {
	t.Helper()
	recordsOnce.Do(func() {
		pack := domains.Default()
		for _, scenario := range []string{"V1", "V2", "V3"} {
			d, _ := artefacttest.Cell(t, scenario, "reference")
			if pair.Eligible(d) != nil {
				continue
			}
			for _, id := range pack.AgentIDs() {
				_, a := artefacttest.Cell(t, scenario, id)
				nt, err := pair.NoTimeRun(d, pair.Agent{ID: a.ID, Kind: a.Kind, New: a.New}, inst)
				if err != nil {
					t.Fatal(err)
				}
				recordsMade = append(recordsMade, validRecord{scenario + "/" + id, encodeRecord(t, nt)})
			}
		}
		d, a := artefacttest.Cell(t, "V1", "reference")
		prof, err := notime.MaintenanceProfile(d.Static())
		if err != nil {
			t.Fatal(err)
		}
		for _, early := range []struct {
			name string
			edit func(p *notimewire.PlanV1)
		}{
			{"horizon", func(p *notimewire.PlanV1) { p.MaxTransitions = 9 }},
			{"integrity", func(p *notimewire.PlanV1) { p.Events = append(p.Events, p.Events[len(p.Events)-1]) }},
		} {
			plan, err := notime.Compile(d, prof)
			if err != nil {
				t.Fatal(err)
			}
			early.edit(plan)
			nt, err := notime.Run(notime.Config{Domain: d, Profile: prof, Plan: plan, Agent: a.New(), AgentID: a.ID, AgentKind: a.Kind, OperationInstanceID: inst})
			if err != nil {
				t.Fatal(err)
			}
			recordsMade = append(recordsMade, validRecord{"V1/reference " + early.name, encodeRecord(t, nt)})
		}
		slices.SortStableFunc(recordsMade, func(a, b validRecord) int { return len(a.b) - len(b.b) })
	})
	if len(recordsMade) < 20 {
		t.Fatalf("%d valid records; the producers made fewer than before", len(recordsMade))
	}
	return recordsMade
}

func encodeRecord(t testing.TB, nt *notimewire.RunV1) []byte {
	t.Helper()
	b, err := notimerecord.Encode(nt)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := notimerecord.Decode(b); err != nil {
		t.Fatalf("a producer's record does not decode: %v", err)
	}
	return b
}

// committedVectors are the records, the refusal cases, the contract-8
// artefact TestNotMistakable refuses, the records in the CLI testscripts
// and FuzzDecodeOracle's corpus.
func committedVectors(t testing.TB) []vector {
	var out []vector
	for _, r := range validRecords(t) {
		out = append(out, vector{name: r.name, b: r.b})
	}
	cases := refusalInputs(record(t))
	for _, name := range slices.Sorted(maps.Keys(cases)) {
		out = append(out, vector{name: "refusal case " + name, b: cases[name]})
	}
	art, _ := contract8(t)
	out = append(out, vector{name: "contract-8 artefact", b: art})
	for _, f := range schemaoracle.TxtarFiles(t, "../../cmd/obaudit/testdata/script/*.txtar", schemaoracle.JSONObject(`"`+notimewire.RunContract+`"`)) {
		out = append(out, vector{name: f.Name, b: f.Data})
	}
	corpus, _ := filepath.Glob("testdata/fuzz/FuzzDecodeOracle/*")
	for _, f := range corpus {
		out = append(out, vector{name: f, b: schemaoracle.CorpusEntry(t, f)})
	}
	return out
}

// oracleVectors are the committed vectors and the mutation corpus: of the
// smallest record, every value's every mutation; of every record, every
// mutation of the first value of each shape no smaller record had.
func oracleVectors(t *testing.T) []vector {
	out := committedVectors(t)
	w := newWalker(t)
	seen := map[string]bool{}
	for i, r := range validRecords(t) {
		tree, err := canon.Parse(bytes.TrimSuffix(r.b, []byte("\n")))
		if err != nil {
			t.Fatal(err)
		}
		w.walk(tree, w.root, "#", nil, "", func(s site) {
			if key := s.key(); i > 0 {
				if seen[key] {
					return
				}
				seen[key] = true
			}
			for _, m := range w.mutations(s) {
				out = append(out, m.vector(fmt.Sprintf("%s %s: %s", r.name, s.pointer(), m.name), tree, s))
			}
		})
	}
	for _, loc := range slices.Sorted(maps.Keys(w.locations)) {
		if !w.reached[loc] {
			t.Errorf("no value of a valid record reaches the schema's %s: the mutation corpus does not cover it", loc)
		}
	}
	return out
}

// fuzzSeeds are the valid records, the refusal cases and every 40th
// mutation of the smallest record.
func fuzzSeeds(f *testing.F) []vector {
	out := committedVectors(f)
	w := newWalker(f)
	small := validRecords(f)[0]
	tree, err := canon.Parse(bytes.TrimSuffix(small.b, []byte("\n")))
	if err != nil {
		f.Fatal(err)
	}
	n := 0
	w.walk(tree, w.root, "#", nil, "", func(s site) {
		for _, m := range w.mutations(s) {
			if n++; n%40 == 0 {
				out = append(out, m.vector(m.name, tree, s))
			}
		}
	})
	return out
}

// site is one value of a valid record and the published subschema that
// holds it (nil: none does; the value is free-form).
type site struct {
	steps  []any // object keys (string) and array indices (int) from the root
	value  any
	schema map[string]any
	loc    string // the subschema's location in the schema, "#/$defs/digest"
	shape  string // the pointer, indices as "*" and keys the schema does not name as "{}"
}

// key names the site's kind of value: its shape, the subschema it meets
// and, for a container, whether it is empty.
func (s site) key() string {
	k := s.shape + " " + s.loc
	switch v := s.value.(type) {
	case map[string]any:
		k += fmt.Sprintf(" %t", len(v) > 0)
	case []any:
		k += fmt.Sprintf(" %t", len(v) > 0)
	}
	return k
}

func (s site) pointer() string {
	p := ""
	for _, step := range s.steps {
		if i, ok := step.(int); ok {
			p = jsonfield.Index(p, i)
		} else {
			p = jsonfield.Key(p, step.(string))
		}
	}
	if p == "" {
		return "/"
	}
	return p
}

// knownKeywords are the schema keywords the walker and the mutations
// understand; a schema using another fails the test until they do (and
// the named checks mirror it).
var knownKeywords = []string{"$schema", "$id", "$defs", "$ref", "title", "description", "type", "properties", "additionalProperties",
	"required", "not", "const", "enum", "pattern", "minimum", "minLength", "items", "uniqueItems", "anyOf", "propertyNames"}

// walker visits the values of records with the subschemas that hold them.
type walker struct {
	root      map[string]any
	locations map[string]bool // every subschema of the schema, by location
	reached   map[string]bool // the locations a value of a record reached
}

func newWalker(t testing.TB) *walker {
	t.Helper()
	root, err := canon.Parse(schemas.NoTimeRunV1())
	if err != nil {
		t.Fatal(err)
	}
	w := &walker{root: root.(map[string]any), locations: map[string]bool{}, reached: map[string]bool{}}
	var unknown []string
	var list func(s map[string]any, loc string)
	list = func(s map[string]any, loc string) {
		w.locations[loc] = true
		for k, v := range s {
			if !slices.Contains(knownKeywords, k) {
				unknown = append(unknown, loc+"/"+k)
			}
			switch sub := v.(type) {
			case map[string]any:
				switch k {
				case "properties", "$defs":
					for name, s := range sub {
						list(s.(map[string]any), loc+"/"+k+"/"+name)
					}
				case "items", "additionalProperties", "propertyNames", "not":
					list(sub, loc+"/"+k)
				}
			case []any:
				if k == "anyOf" {
					for i, s := range sub {
						list(s.(map[string]any), fmt.Sprintf("%s/anyOf/%d", loc, i))
					}
				}
			}
		}
	}
	list(w.root, "#")
	if unknown != nil {
		t.Fatalf("the schema uses keywords the oracle's mutations do not know: %v", unknown)
	}
	return w
}

// resolve follows s's $ref and, for an anyOf, the branch v meets (the
// null branch for null, the other for anything else).
func (w *walker) resolve(s map[string]any, loc string, v any) (map[string]any, string) {
	for {
		w.reached[loc] = true
		if _, ok := s["not"]; ok {
			w.reached[loc+"/not"] = true // judged at this value: mutations add what it forbids
		}
		if ref, ok := s["$ref"].(string); ok {
			name, _ := strings.CutPrefix(ref, "#/$defs/")
			s, loc = w.root["$defs"].(map[string]any)[name].(map[string]any), ref
			continue
		}
		branches, ok := s["anyOf"].([]any)
		if !ok {
			return s, loc
		}
		var next map[string]any
		for i, b := range branches {
			b, bl := b.(map[string]any), fmt.Sprintf("%s/anyOf/%d", loc, i)
			if b["type"] == "null" {
				w.reached[bl] = true // every value is also replaced by null
			}
			if next == nil && (b["type"] == "null") == (v == nil) {
				next, loc = b, bl
			}
		}
		if next == nil {
			return s, loc
		}
		s = next
	}
}

// walk visits v (at steps, held by the subschema s at loc, nil for none)
// and its descendants, keys in sorted order. A free-form value's
// descendants are visited too, each with no subschema.
func (w *walker) walk(v any, s map[string]any, loc string, steps []any, shape string, visit func(site)) {
	if s != nil {
		s, loc = w.resolve(s, loc, v)
	}
	visit(site{steps: steps, value: v, schema: s, loc: loc, shape: shape})
	child := func(cs any, cl string) (map[string]any, string) {
		if m, ok := cs.(map[string]any); ok {
			return m, cl
		}
		return nil, ""
	}
	switch x := v.(type) {
	case map[string]any:
		props, _ := s["properties"].(map[string]any)
		if _, ok := s["propertyNames"]; ok && len(x) > 0 {
			w.reached[loc+"/propertyNames"] = true
		}
		for _, k := range slices.Sorted(maps.Keys(x)) {
			cs, cl := child(props[k], loc+"/properties/"+k)
			cp := shape + "/" + k
			if cs == nil {
				cs, cl = child(s["additionalProperties"], loc+"/additionalProperties")
				cp = shape + "/{}"
			}
			w.walk(x[k], cs, cl, append(slices.Clip(steps), k), cp, visit)
		}
	case []any:
		is, il := child(s["items"], loc+"/items")
		for i, e := range x {
			w.walk(e, is, il, append(slices.Clip(steps), i), shape+"/*", visit)
		}
	}
}

// mutation is one edit of a value: f returns its replacement, or false to
// delete it. A record's own values hold no integral float (RFC 8785
// writes none, and canon reads an integer literal as int64), so only a
// replacement can bring one.
type mutation struct {
	name  string
	f     func(old any) (any, bool)
	float bool // the replacement is an integral float
}

// vector is the record tree with the mutation applied at s.
func (m mutation) vector(name string, tree any, s site) vector {
	return vector{name: name, tree: edit(tree, s.steps, m.f), upstream: m.float}
}

func replace(name string, v any) mutation {
	f, isFloat := v.(float64)
	return mutation{name, func(any) (any, bool) { return v, true }, isFloat && f == math.Trunc(f)}
}

// mutations are s's edits: deleted, replaced by each of schemaoracle.Kinds and by each
// value just past a bound its subschema states, an object given an
// unknown key (and, under propertyNames, a near miss of a key; under not
// required, each key it forbids), an array its first item twice.
func (w *walker) mutations(s site) []mutation {
	var out []mutation
	if len(s.steps) > 0 {
		out = append(out, mutation{name: "delete", f: func(any) (any, bool) { return nil, false }})
	}
	for _, v := range schemaoracle.Kinds() {
		out = append(out, replace(fmt.Sprintf("= %.40s", show(v)), v))
	}
	for _, v := range boundValues(s.schema, s.value) {
		out = append(out, replace(fmt.Sprintf("past a bound: %.40s", show(v)), v))
	}
	switch x := s.value.(type) {
	case map[string]any:
		add := func(k string, v any) mutation {
			return replace(fmt.Sprintf("add %q", k), with(x, k, v))
		}
		out = append(out, add("zz_unknown", "x"))
		if not, ok := s.schema["not"].(map[string]any); ok {
			for _, k := range not["required"].([]any) {
				out = append(out, add(k.(string), int64(8)))
			}
		}
		if _, ok := s.schema["propertyNames"]; ok && len(x) > 0 {
			first := slices.Min(slices.Collect(maps.Keys(x)))
			for _, k := range nearMisses(first) {
				out = append(out, add(k.(string), x[first]))
			}
		}
	case []any:
		if len(x) > 0 {
			out = append(out, replace("item 0 twice", append(slices.Clone(x), x[0])))
		}
	}
	return out
}

// boundValues are the values just past (and at) each bound s states:
// near misses of a const, of each enum member (and each member itself)
// and of a value its pattern holds; one below and at a minimum, and the
// minimum as a float; a string one code point short of a minLength, in
// one-byte and two-byte characters, and one at it in two-byte characters.
func boundValues(s map[string]any, old any) []any {
	var out []any
	if c, ok := s["const"].(string); ok {
		out = append(out, nearMisses(c)...)
	}
	if e, ok := s["enum"].([]any); ok {
		for _, v := range e {
			out = append(out, v)
			out = append(out, nearMisses(v.(string))...)
		}
	}
	if m, ok := s["minimum"].(int64); ok {
		out = append(out, m-1, m, float64(m))
	}
	if n, ok := s["minLength"].(int64); ok {
		out = append(out, strings.Repeat("x", int(n)-1), strings.Repeat("é", int(n)-1), strings.Repeat("é", int(n)))
	}
	if o, ok := old.(string); ok && s["pattern"] != nil {
		out = append(out, nearMisses(o)...)
	}
	return out
}

// nearMisses are the strings one edit from s: a character more or fewer,
// a newline after or before it (a pattern's anchors), a space before, its
// letters in the other case, its last character a letter past f, its first
// a non-ASCII one.
func nearMisses(s string) []any {
	out := []any{s + "0", s + "\n", "\n" + s, " " + s, flipCase(s), "é" + s}
	if r := []rune(s); len(r) > 0 {
		out = append(out, string(r[:len(r)-1]), string(r[:len(r)-1])+"g", "é"+string(r[1:]))
	}
	return out
}

func flipCase(s string) string {
	if up := strings.ToUpper(s); up != s {
		return up
	}
	return strings.Map(unicode.ToLower, s)
}

func with(m map[string]any, k string, v any) map[string]any {
	c := maps.Clone(m)
	c[k] = v
	return c
}

func show(v any) string {
	switch v.(type) {
	case float64:
		return fmt.Sprintf("float %v", v)
	case []any, map[string]any:
		return jsonfield.Kind(v)
	}
	return fmt.Sprintf("%q", fmt.Sprint(v))
}

// edit returns tree with the value at steps (object keys and array
// indices from the root) replaced by f's, or deleted when f says not to
// keep it, sharing every container it does not change.
func edit(tree any, steps []any, f func(any) (any, bool)) any {
	p := ""
	for _, step := range steps {
		if i, ok := step.(int); ok {
			p = jsonfield.Index(p, i)
		} else {
			p = schemaoracle.Key(p, step.(string))
		}
	}
	if v, keep := f(schemaoracle.At(tree, p)); keep {
		return schemaoracle.Set(tree, p, v)
	}
	return schemaoracle.Delete(tree, p)
}
