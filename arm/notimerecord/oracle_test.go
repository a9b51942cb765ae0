package notimerecord_test

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"runtime"
	"slices"
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
	"github.com/obaudit/obaudit/engine"
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
const minJudged = 9500

// published is the published schema, compiled.
func published(t testing.TB) *jsonschema.Schema {
	return schemaoracle.Compile(t, schemas.NoTimeRunV1ID, schemas.NoTimeRunV1())
}

// judgement is how a record file fares before both validators.
type judgement struct {
	skipped   bool   // canon's strict reader refuses it: judged by neither
	refused   bool   // the named checks refuse it
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
	bySchema := schemaoracle.Check(s, tree)
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
			return judgement{refused: true, exception: e}
		}
		return judgement{err: fmt.Errorf("the schema accepts it and the named checks refuse it (%v), under no documented exception", named)}
	}
	return judgement{refused: named != nil}
}

// TestSchemaOracle holds the published JSON Schema (schemas/notime/v1.json,
// as published) to the named checks, which are the validator: every record
// the package's producers make (validRecords: both must accept each), the
// committed refusal cases and testscript records, FuzzDecodeOracle's seeds
// and corpus, and a mutation corpus of the records (oracleVectors: every
// value deleted, replaced by each of schemaoracle.Kinds and by values just
// past each bound the schema states there, every object given an unknown
// key, every array an item twice) go to both, which must reach the same
// verdict, save exactly the documented exceptions.
func TestSchemaOracle(t *testing.T) {
	s := published(t)
	vectors := oracleVectors(t)
	results := make([]judgement, len(vectors))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			var buf []byte // each mutation's file, in turn (Decode keeps none of it)
			for k := int(next.Add(1) - 1); k < len(vectors); k = int(next.Add(1) - 1) {
				tree, b, err := vectors[k].file(buf)
				if vectors[k].base != nil {
					buf = b
				}
				if err != nil {
					results[k] = judgement{err: err}
					continue
				}
				if results[k] = judge(s, b, tree); vectors[k].valid && results[k].refused {
					results[k].err = fmt.Errorf("a producer's record is refused")
				}
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
				t.Errorf("%s: %v", vectors[k].label(), r.err)
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
		_, b, err := v.file(nil)
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

// vector is one record file both validators judge: a committed file, or
// a mutation of a valid record's tree, made and encoded when it is judged.
type vector struct {
	name  string // the file's, or the mutated record's
	b     []byte // a committed file
	valid bool   // a producer's record, which both must accept
	base  any    // the tree a mutation edits (sharing every container it does not change)
	at    string // the pointer of the value it edits
	m     mutation
}

// label names the vector in a failure.
func (v vector) label() string {
	if v.base == nil {
		return v.name
	}
	p := v.at
	if p == "" {
		p = "/"
	}
	return fmt.Sprintf("%s %s: %s", v.name, p, v.m.name)
}

// file is the vector's tree (nil for a committed file, which judge
// parses) and its bytes: a mutated tree's RFC 8785 encoding and a newline
// or, for a tree holding an integral float (which RFC 8785 writes as an
// integer, 14.0 as 14), its upstream form, which keeps it a float. A
// mutated tree's bytes are appended to buf[:0].
func (v vector) file(buf []byte) (any, []byte, error) {
	if v.base == nil {
		return nil, v.b, nil
	}
	tree, form := any(nil), canon.JCSForm
	switch {
	case v.m.deleted:
		tree = schemaoracle.Delete(v.base, v.at)
	case v.m.float:
		tree, form = schemaoracle.Set(v.base, v.at, v.m.value), canon.UpstreamForm
	default:
		tree = schemaoracle.Set(v.base, v.at, v.m.value)
	}
	b, err := canon.Append(buf[:0], tree, form)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", v.label(), err)
	}
	return tree, append(b, '\n'), nil
}

// validRecord is a record one of the package's producers made, and its
// tree (parsed once: every mutation of it shares what it does not edit).
type validRecord struct {
	name string
	b    []byte
	tree any
}

var (
	recordsOnce sync.Once
	recordsMade []validRecord
)

// validRecords are, smallest first, the records of every agent of the
// default pack on every scenario the No-Time protocol admits; of the agent
// whose record is the smallest there, on the scenario's first event (with
// the plan's transition horizon, and with a horizon of one transition) and
// on its first two (the plan's other parts as compiled: the smallest
// records the producers make); and two of the reference on V1 halted early
// (a transition horizon of 9; an event the plan carries twice: an
// integrity halt). TestSchemaOracle holds both validators to accepting
// each.
func validRecords(t testing.TB) []validRecord {
	t.Helper()
	recordsOnce.Do(func() {
		var whole []producer
		for _, scenario := range []string{"V1", "V2", "V3"} {
			if d, _ := artefacttest.Cell(t, scenario, "reference"); pair.Eligible(d) != nil {
				continue
			}
			for _, id := range domains.Default().AgentIDs() {
				whole = append(whole, cell(t, scenario, id, "", nil))
			}
		}
		recordsMade = produce(t, whole)
		smallest := map[string]validRecord{} // by scenario
		for _, r := range recordsMade {
			scenario, _, _ := strings.Cut(r.name, "/")
			if s, ok := smallest[scenario]; !ok || len(r.b) < len(s.b) {
				smallest[scenario] = r
			}
		}
		var more []producer
		for _, scenario := range slices.Sorted(maps.Keys(smallest)) {
			_, id, _ := strings.Cut(smallest[scenario].name, "/")
			more = append(more,
				cell(t, scenario, id, " first event", func(p *notimewire.PlanV1) { p.Events = p.Events[:1] }),
				cell(t, scenario, id, " first event, one transition", func(p *notimewire.PlanV1) { p.Events, p.MaxTransitions = p.Events[:1], 1 }),
				cell(t, scenario, id, " first two events", func(p *notimewire.PlanV1) { p.Events = p.Events[:2] }))
		}
		more = append(more,
			cell(t, "V1", "reference", " horizon", func(p *notimewire.PlanV1) { p.MaxTransitions = 9 }),
			cell(t, "V1", "reference", " integrity", func(p *notimewire.PlanV1) { p.Events = append(p.Events, p.Events[len(p.Events)-1]) }))
		recordsMade = append(recordsMade, produce(t, more)...)
		slices.SortStableFunc(recordsMade, func(a, b validRecord) int { return len(a.b) - len(b.b) })
	})
	if len(recordsMade) < 26 {
		t.Fatalf("%d valid records; the producers made fewer than before", len(recordsMade))
	}
	return recordsMade
}

// producer is one No-Time run: an agent on its own domain of a scenario,
// with the plan as compiled and then edited (nil: pair.NoTimeRun's plan).
type producer struct {
	name string
	d    engine.Domain
	a    domains.Agent
	edit func(*notimewire.PlanV1)
}

func cell(t testing.TB, scenario, id, what string, edit func(*notimewire.PlanV1)) producer {
	d, a := artefacttest.Cell(t, scenario, id)
	return producer{scenario + "/" + id + what, d, a, edit}
}

// produce runs ps on every processor; the records are in ps's order.
func produce(t testing.TB, ps []producer) []validRecord {
	t.Helper()
	out := make([]validRecord, len(ps))
	errs := make([]error, len(ps))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for k := int(next.Add(1) - 1); k < len(ps); k = int(next.Add(1) - 1) {
				out[k], errs[k] = ps[k].run()
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	return out
}

func (p producer) run() (validRecord, error) {
	nt, err := p.record()
	if err != nil {
		return validRecord{}, fmt.Errorf("%s: %w", p.name, err)
	}
	b, err := notimerecord.Encode(nt)
	if err != nil {
		return validRecord{}, fmt.Errorf("%s: %w", p.name, err)
	}
	tree, err := canon.Parse(bytes.TrimSuffix(b, []byte("\n")))
	if err != nil {
		return validRecord{}, fmt.Errorf("%s: %w", p.name, err)
	}
	return validRecord{p.name, b, tree}, nil
}

func (p producer) record() (*notimewire.RunV1, error) {
	if p.edit == nil {
		return pair.NoTimeRun(p.d, pair.Agent{ID: p.a.ID, Kind: p.a.Kind, New: p.a.New}, inst)
	}
	prof, err := notime.MaintenanceProfile(p.d.Static())
	if err != nil {
		return nil, err
	}
	plan, err := notime.Compile(p.d, prof)
	if err != nil {
		return nil, err
	}
	p.edit(plan)
	return notime.Run(notime.Config{Domain: p.d, Profile: prof, Plan: plan, Agent: p.a.New(), AgentID: p.a.ID, AgentKind: p.a.Kind, OperationInstanceID: inst})
}

// validRecordNamed is the valid record named name.
func validRecordNamed(t testing.TB, name string) validRecord {
	t.Helper()
	i := slices.IndexFunc(validRecords(t), func(r validRecord) bool { return r.name == name })
	if i < 0 {
		t.Fatalf("no valid record %s", name)
	}
	return validRecords(t)[i]
}

// committedVectors are the records, the refusal cases, the contract-8
// artefact TestNotMistakable refuses, the records in the CLI testscripts
// and FuzzDecodeOracle's corpus.
func committedVectors(t testing.TB) []vector {
	var out []vector
	for _, r := range validRecords(t) {
		out = append(out, vector{name: r.name, b: r.b, valid: true})
	}
	cases := refusalInputs(validRecordNamed(t, "V1/reference").b) // record(t), made once
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

// thorough reports whether every value the schema holds of records[i]
// has its every mutation: it is one of the two smallest records of its
// scenario (records are sorted by size).
func thorough(records []validRecord, i int) bool {
	scenario, _, _ := strings.Cut(records[i].name, "/")
	smaller := 0
	for _, r := range records[:i] {
		if strings.HasPrefix(r.name, scenario+"/") {
			smaller++
		}
	}
	return smaller < 2
}

// oracleVectors are the committed vectors and the mutation corpus, which
// the walker fails unless the values of the records reach every subschema:
// of the two smallest records of each scenario, every mutation of every
// value the schema holds; of every other record, every mutation of the
// first value of each kind (site.key) no smaller record had. A free-form
// value (one no subschema holds) is a kind of its own only once in all
// the records, in a thorough one too: every edit of it meets the same
// digest. Each mutation edits the record's tree where it applies and
// shares the rest, when it is judged.
func oracleVectors(t *testing.T) []vector {
	out := committedVectors(t)
	w := newWalker(t)
	seen := map[string]bool{}
	records := validRecords(t)
	for i, r := range records {
		all := thorough(records, i)
		w.walk(r.tree, w.root, "#", "", "", func(s site) {
			key := s.key()
			if seen[key] && (!all || s.schema == nil) {
				return
			}
			seen[key] = true
			for _, m := range w.mutations(s) {
				out = append(out, vector{name: r.name, base: r.tree, at: s.ptr, m: m})
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
	n := 0
	w.walk(small.tree, w.root, "#", "", "", func(s site) {
		for _, m := range w.mutations(s) {
			if n++; n%40 == 0 {
				out = append(out, vector{name: small.name, base: small.tree, at: s.ptr, m: m})
			}
		}
	})
	return out
}

// site is one value of a valid record and the published subschema that
// holds it (nil: none does; the value is free-form).
type site struct {
	ptr    string // its RFC 6901 pointer
	value  any
	schema map[string]any
	loc    string // the subschema's location in the schema, "#/$defs/digest" (free-form: the one holding it)
	shape  string // the pointer, indices as "*" and keys the schema does not name as "{}"
}

// key names the site's kind of value: its shape and the subschema it
// meets or, for a free-form value, its JSON kind and the subschema of the
// free-form value it is in (the schema says nothing else of it, and the
// named checks only digest it); and, for a container, whether it is
// empty.
func (s site) key() string {
	k := s.shape + " " + s.loc
	if s.schema == nil {
		k = "free-form " + jsonfield.Kind(s.value) + " in " + s.loc
	}
	switch v := s.value.(type) {
	case map[string]any:
		k += fmt.Sprintf(" %t", len(v) > 0)
	case []any:
		k += fmt.Sprintf(" %t", len(v) > 0)
	}
	return k
}

// knownKeywords are the schema keywords the walker and the mutations
// understand; a schema using another fails the test until they do (and
// the named checks mirror it).
var knownKeywords = []string{"$schema", "$id", "$defs", "$ref", "title", "description", "type", "properties", "additionalProperties",
	"required", "not", "const", "enum", "pattern", "minimum", "minLength", "items", "uniqueItems", "anyOf", "propertyNames"}

// walker visits the values of records with the subschemas that hold them.
type walker struct {
	kinds     []mutation // every value replaced by each of schemaoracle.Kinds (shared by every vector)
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
	for _, v := range schemaoracle.Kinds() {
		w.kinds = append(w.kinds, replace(fmt.Sprintf("= %.40s", show(v)), v))
	}
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

// walk visits v (at the pointer ptr, held by the subschema s at loc, nil
// for none) and its descendants, keys in sorted order. A free-form value's
// descendants are visited too, each with no subschema.
func (w *walker) walk(v any, s map[string]any, loc string, ptr string, shape string, visit func(site)) {
	if s != nil {
		s, loc = w.resolve(s, loc, v)
	}
	visit(site{ptr: ptr, value: v, schema: s, loc: loc, shape: shape})
	child := func(cs any, cl string) (map[string]any, string) {
		if m, ok := cs.(map[string]any); ok {
			return m, cl
		}
		return nil, loc // free-form: no subschema, in the value at loc
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
			w.walk(x[k], cs, cl, schemaoracle.Key(ptr, k), cp, visit)
		}
	case []any:
		is, il := child(s["items"], loc+"/items")
		for i, e := range x {
			w.walk(e, is, il, jsonfield.Index(ptr, i), shape+"/*", visit)
		}
	}
}

// mutation is one edit of a value: its replacement, or its deletion. A
// record's own values hold no integral float (RFC 8785 writes none, and
// canon reads an integer literal as int64), so only a replacement can
// bring one.
type mutation struct {
	name    string
	value   any
	deleted bool
	float   bool // the replacement is an integral float
}

func replace(name string, v any) mutation {
	f, isFloat := v.(float64)
	return mutation{name: name, value: v, float: isFloat && f == math.Trunc(f)}
}

// mutations are s's edits: deleted, replaced by each of
// schemaoracle.Kinds and by each value just past a bound its subschema
// states, an object given an unknown key (and, under propertyNames, a near
// miss of a key; under not required, each key it forbids), an array its
// first item twice.
func (w *walker) mutations(s site) []mutation {
	var out []mutation
	if s.ptr != "" {
		out = append(out, mutation{name: "delete", deleted: true})
	}
	out = append(out, w.kinds...)
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
	return fmt.Sprintf("%.40q", fmt.Sprint(v))
}

// edit returns tree with the value at steps (object keys and array
// indices from the root) replaced by f's, or deleted when f says not to
// keep it (TestSchemaRefusalPointers edits so).
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
