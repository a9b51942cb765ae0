package profile_test

import (
	"bytes"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/internal/schemaoracle"
	"github.com/obaudit/obaudit/provider/profile"
	"github.com/obaudit/obaudit/refusal"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// exceptions are every disagreement TestSchemaOracle allows, by name: each
// must be witnessed by a vector (so the list is exactly what is needed), and
// any other disagreement fails the test. None goes the other way: the
// schema refuses nothing Parse accepts. Each is a rule of Parse the
// published schema does not state, so that a profile Parse refuses under
// it passes the schema; it applies to a refusal by its class, the kind of
// rule (profile.Refused), its pointer and the value the pointer names.
var exceptions = schemaoracle.Exceptions{
	{Name: "lane", Why: "the profile's lane (the providers it binds, its request mapping, its optional fields, each sent or omitted once, the credential variable it reads, its response-model check, the build's output ceiling, the endpoints it accepts) is this build's registry, which the schema does not hold",
		Applies: func(r schemaoracle.Refused) bool {
			return r.Class == profile.ErrInvalid.Class && r.Rule == "lane"
		}},
	{Name: "integral-float", Why: "JSON Schema's integer (and const 1) is the number, so 14.0 is one; the field rules refuse a float where a profile writes an integer",
		Applies: func(r schemaoracle.Refused) bool {
			f, ok := r.Value.(float64)
			return r.Class == profile.ErrInvalid.Class && r.Rule == "field" && (r.Pointer == "/profile_version" || r.Pointer == "/max_output_tokens") && ok && f == math.Trunc(f)
		}},
}

// published is the published schema, compiled.
func published(t testing.TB) *jsonschema.Schema {
	return schemaoracle.Compile(t, profile.SchemaID, profile.SchemaJSON())
}

// judge gives b to Parse and to the published schema s. It fails t when
// they disagree under no exception, or when Parse refuses with another
// class than ErrInvalid; it returns whether both judged b (it parses as
// strict JSON) and the exception that applied ("" when they agree).
func judge(t *testing.T, s *jsonschema.Schema, name string, b []byte) (judged bool, applied string) {
	t.Helper()
	_, named := profile.Parse(b, name)
	if named != nil && refusal.Of(named) != profile.ErrInvalid.Class {
		t.Errorf("%s: Parse refuses with %v, not %s", name, named, profile.ErrInvalid.Class)
	}
	tree, err := canon.Parse(b)
	if err != nil {
		return false, ""
	}
	bySchema := schemaoracle.Check(s, tree)
	switch {
	case named == nil && bySchema != nil:
		t.Errorf("%s: Parse accepts it and the schema refuses it: %v\n%s", name, bySchema, b)
	case named != nil && bySchema != nil:
		// The field rules run first: what the schema refuses they refuse
		// themselves, never leaving it to the lane's rules.
		if _, rule, _ := profile.Refused(named); rule != "field" {
			t.Errorf("%s: the schema refuses it (%v) and the field rules accept it (Parse refuses it by a %q rule: %v)\n%s", name, bySchema, rule, named, b)
		}
	case named != nil && bySchema == nil:
		class, _ := refusal.ClassOf(named)
		p, rule, _ := profile.Refused(named)
		if applied = exceptions.Excuse(schemaoracle.Refused{Class: class, Pointer: p, Value: schemaoracle.At(tree, p), Rule: rule}); applied == "" {
			t.Errorf("%s: the schema accepts it and Parse refuses it (%v), under no documented exception\n%s", name, named, b)
		}
	}
	return true, applied
}

// TestSchemaOracle holds the published schema (profile.schema.json) to
// Parse, which is the validator: every committed profile (the embedded
// examples, the tests' and the CLI testscripts') and a systematic mutation
// corpus of them is given to both, and they must reach the same verdict,
// save exactly the documented exceptions.
func TestSchemaOracle(t *testing.T) {
	vectors := oracleVectors(t)
	s := published(t)
	var witnessed schemaoracle.Witnesses
	for _, v := range vectors {
		if ok, e := judge(t, s, v.name, v.b); ok {
			witnessed.Judged(e)
		}
	}
	t.Logf("%d vectors", len(vectors))
	witnessed.Check(t, exceptions, 10000)
}

// FuzzProfileOracle: Parse never panics, refuses only with ErrInvalid, and
// agrees with the published schema save the documented exceptions, on the
// committed profiles, a sample of the mutation corpus and whatever the
// fuzzer makes of them.
func FuzzProfileOracle(f *testing.F) {
	for _, b := range committedProfiles(f) {
		f.Add(b.b)
	}
	for i, v := range mutationCorpus(f, committedProfiles(f)) {
		if i%101 == 0 {
			f.Add(v.b)
		}
	}
	s := published(f)
	f.Fuzz(func(t *testing.T, b []byte) { judge(t, s, "fuzz input", b) })
}

// oracleVector is one profile both judge.
type oracleVector struct {
	name string
	b    []byte
}

func oracleVectors(t *testing.T) []oracleVector {
	valid := committedProfiles(t)
	return append(valid, mutationCorpus(t, valid)...)
}

// committedProfiles are the embedded examples, the profile this package's
// tests edit, and every profile in the CLI testscripts.
func committedProfiles(tb testing.TB) []oracleVector {
	out := []oracleVector{{"good", []byte(good)}}
	files, _ := filepath.Glob("profiles/*.json")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, oracleVector{f, b})
	}
	inScripts := func(b []byte) bool { return bytes.Contains(b, []byte(`"profile_version"`)) }
	for _, f := range schemaoracle.TxtarFiles(tb, "../../cmd/obaudit/testdata/script/*.txtar", inScripts) {
		out = append(out, oracleVector{f.Name, f.Data})
	}
	if len(files) != len(profile.Names()) || len(out) < len(files)+3 {
		tb.Fatalf("committed profiles: %d examples of %d, %d profiles", len(files), len(profile.Names()), len(out))
	}
	return out
}

// mutationCorpus edits each of docs at every JSON pointer: the member
// deleted; its value replaced by each of schemaoracle.Kinds and by values of
// its own kind around each of the schema's bounds, enum members, consts
// and patterns (the value with each probe character inserted or a
// character deleted at every position, and padded past each length the
// pattern counts); an unknown member added to every object; each array
// item repeated (uniqueItems).
func mutationCorpus(tb testing.TB, docs []oracleVector) []oracleVector {
	var sch map[string]any
	if v, err := canon.Parse(profile.SchemaJSON()); err != nil {
		tb.Fatal(err)
	} else {
		sch = v.(map[string]any)
	}
	props := sch["properties"].(map[string]any)
	kinds := schemaoracle.Kinds()
	var out []oracleVector
	add := func(name string, tree any) {
		b, err := canon.Upstream(tree)
		if err != nil {
			tb.Fatalf("%s: %v", name, err)
		}
		out = append(out, oracleVector{name, b})
	}
	for _, d := range docs {
		doc, err := canon.Parse(d.b)
		if err != nil {
			tb.Fatalf("%s: %v", d.name, err)
		}
		for _, p := range schemaoracle.Pointers(doc) {
			name := func(what string) string { return fmt.Sprintf("%s %s %s", d.name, p, what) }
			if p != "" {
				add(name("deleted"), schemaoracle.Delete(doc, p))
			}
			values := kinds
			if sub, ok := props[strings.TrimPrefix(p, "/")].(map[string]any); ok && strings.Count(p, "/") == 1 {
				values = append(slices.Clip(values), probes(sub, schemaoracle.At(doc, p))...)
			}
			for _, v := range values {
				add(name(fmt.Sprintf("= %.60s", fmt.Sprintf("%#v", v))), schemaoracle.Set(doc, p, v))
			}
			switch x := schemaoracle.At(doc, p).(type) {
			case map[string]any:
				m := maps.Clone(x)
				m["unknown_member"] = int64(1)
				add(name("+ unknown member"), schemaoracle.Set(doc, p, m))
			case []any:
				for i := range x {
					add(name(fmt.Sprintf("item %d repeated", i)), schemaoracle.Set(doc, p, append(slices.Clone(x), x[i])))
				}
			}
		}
	}
	return out
}

// probeChars are inserted at every position of a patterned value: the
// characters the schema's patterns admit in some places and not others,
// anchors' neighbours (a newline) and characters none admits.
var probeChars = []string{"a", "Z", "0", ".", "_", ":", "/", "-", "~", " ", "\n", "é", "@", "%", "?", "#", "$"}

// countedRepetition matches a pattern's {m,n}.
var countedRepetition = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{(\d+),(\d+)\}`) })

// probes are values of sub's kind around each of its bounds, enum members,
// const and pattern; cur is the committed value.
func probes(sub map[string]any, cur any) []any {
	var out []any
	for _, k := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"} {
		if b, ok := sub[k].(int64); ok {
			f := float64(b)
			out = append(out, b-1, b, b+1, f, math.Nextafter(f, math.Inf(-1)), math.Nextafter(f, math.Inf(1)), f+0.5, f-0.5)
			if b == 0 {
				out = append(out, math.Copysign(0, -1))
			}
		}
	}
	for _, k := range []string{"minLength", "maxLength"} {
		if n, ok := sub[k].(int64); ok {
			for l := max(n-1, 0); l <= n+1; l++ {
				for _, r := range []string{"a", "é", "𝄞"} {
					out = append(out, strings.Repeat(r, int(l)))
				}
			}
		}
	}
	near := func(s string) []any { return []any{s, s + "x", strings.ToUpper(s), " " + s, s + "\n", s[:len(s)-1]} }
	if enum, ok := sub["enum"].([]any); ok {
		for _, e := range enum {
			out = append(out, near(e.(string))...)
		}
	}
	switch c := sub["const"].(type) {
	case string:
		out = append(out, near(c)...)
	case int64:
		out = append(out, c, float64(c), c+1, c-1, strconv.FormatInt(c, 10))
	}
	if pat, ok := sub["pattern"].(string); ok {
		s, _ := cur.(string)
		for i := range len(s) + 1 {
			if i < len(s) && !utf8.RuneStart(s[i]) {
				continue
			}
			for _, c := range probeChars {
				out = append(out, s[:i]+c+s[i:])
			}
			if i < len(s) {
				_, n := utf8.DecodeRuneInString(s[i:])
				out = append(out, s[:i]+s[i+n:])
			}
		}
		// A pattern's counted repetitions ({0,127}): pad past each.
		for _, q := range countedRepetition().FindAllStringSubmatch(pat, -1) {
			n, _ := strconv.Atoi(q[2])
			for l := n; l <= n+2; l++ {
				if pad := l - utf8.RuneCountInString(s); pad > 0 && s != "" {
					out = append(out, s+strings.Repeat(s[len(s)-1:], pad))
				}
			}
		}
	}
	return out
}
