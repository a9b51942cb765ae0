package profile_test

import (
	"bytes"
	"fmt"
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
	"github.com/obaudit/obaudit/internal/offlineschema"
	"github.com/obaudit/obaudit/provider/profile"
	"github.com/obaudit/obaudit/refusal"
	"github.com/rogpeppe/go-internal/txtar"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// exception is a documented disagreement: a rule of Parse the published
// schema does not state, so that a profile Parse refuses under it passes
// the schema. It applies to a refusal by its class, the kind of rule
// (profile.Refused), its pointer and the value the pointer names.
type exception struct {
	name, why string
	applies   func(class refusal.Class, rule, pointer string, value any) bool
}

// exceptions are every disagreement TestSchemaOracle allows, by name: each
// must be witnessed by a vector (so the list is exactly what is needed), and
// any other disagreement fails the test. None goes the other way: the
// schema refuses nothing Parse accepts.
var exceptions = []exception{
	{"lane", "the profile's lane (the providers it binds, its request mapping, its optional fields, each sent or omitted once, the credential variable it reads, its response-model check, the build's output ceiling, the endpoints it accepts) is this build's registry, which the schema does not hold",
		func(c refusal.Class, rule, _ string, _ any) bool {
			return c == profile.ErrInvalid.Class && rule == "lane"
		}},
	{"integral-float", "JSON Schema's integer (and const 1) is the number, so 14.0 is one; the field rules refuse a float where a profile writes an integer",
		func(c refusal.Class, rule, p string, v any) bool {
			f, ok := v.(float64)
			return c == profile.ErrInvalid.Class && rule == "field" && (p == "/profile_version" || p == "/max_output_tokens") && ok && f == math.Trunc(f)
		}},
}

// compiledSchema is the published schema, compiled as draft 2020-12 with
// formats asserted and nothing loaded from anywhere.
var compiledSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	c := offlineschema.NewCompiler()
	if err := c.AddResource(profile.SchemaID, bytes.NewReader(profile.SchemaJSON())); err != nil {
		return nil, err
	}
	return c.Compile(profile.SchemaID)
})

// judge gives b to Parse and to the published schema. It fails t when they
// disagree under no exception, or when Parse refuses with another class
// than ErrInvalid; it returns whether both judged b (it parses as strict
// JSON) and the exception that applied ("" when they agree).
func judge(t *testing.T, name string, b []byte) (judged bool, applied string) {
	t.Helper()
	_, named := profile.Parse(b, name)
	if named != nil && refusal.Of(named) != profile.ErrInvalid.Class {
		t.Errorf("%s: Parse refuses with %v, not %s", name, named, profile.ErrInvalid.Class)
	}
	tree, err := canon.Parse(b)
	if err != nil {
		return false, ""
	}
	s, err := compiledSchema()
	if err != nil {
		t.Fatal(err)
	}
	bySchema := s.Validate(tree)
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
		i := slices.IndexFunc(exceptions, func(e exception) bool { return e.applies(class, rule, p, at(tree, p)) })
		if i < 0 {
			t.Errorf("%s: the schema accepts it and Parse refuses it (%v), under no documented exception\n%s", name, named, b)
			return true, ""
		}
		return true, exceptions[i].name
	}
	return true, ""
}

// TestSchemaOracle holds the published schema (profile.schema.json) to
// Parse, which is the validator: every committed profile (the embedded
// examples, the tests' and the CLI testscripts') and a systematic mutation
// corpus of them is given to both, and they must reach the same verdict,
// save exactly the documented exceptions.
func TestSchemaOracle(t *testing.T) {
	vectors := oracleVectors(t)
	witnessed := map[string]int{}
	judged := 0
	for _, v := range vectors {
		ok, e := judge(t, v.name, v.b)
		if ok {
			judged++
		}
		if e != "" {
			witnessed[e]++
		}
	}
	for _, e := range exceptions {
		if witnessed[e.name] == 0 {
			t.Errorf("exception %q is witnessed by no vector: drop it", e.name)
		}
	}
	t.Logf("%d vectors, %d judged by both; the schema passes what Parse refuses under %v", len(vectors), judged, witnessed)
	if judged < 10000 {
		t.Fatalf("only %d vectors judged by both; the corpus lost its members", judged)
	}
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
	f.Fuzz(func(t *testing.T, b []byte) { judge(t, "fuzz input", b) })
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
	scripts, _ := filepath.Glob("../../cmd/obaudit/testdata/script/*.txtar")
	for _, f := range scripts {
		a, err := txtar.ParseFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		for _, file := range a.Files {
			if bytes.Contains(file.Data, []byte(`"profile_version"`)) {
				out = append(out, oracleVector{f + ":" + file.Name, file.Data})
			}
		}
	}
	if len(files) != len(profile.Names()) || len(scripts) == 0 || len(out) < len(files)+3 {
		tb.Fatalf("committed profiles: %d examples of %d, %d scripts, %d profiles", len(files), len(profile.Names()), len(scripts), len(out))
	}
	return out
}

// mutationCorpus edits each of docs at every JSON pointer: the member
// deleted; its value replaced by every kind of JSON value and by values of
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
	kinds := []any{nil, true, false, int64(0), int64(-1), int64(1), 1.5, 14.0, int64(1<<53 - 1), -1e300, "", "x", strings.Repeat("long ", 60), []any{}, map[string]any{}}
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
		for _, p := range pointers(doc, "") {
			name := func(what string) string { return fmt.Sprintf("%s %s %s", d.name, p, what) }
			if p != "" {
				add(name("deleted"), edit(doc, p, nil, true))
			}
			values := kinds
			if sub, ok := props[strings.TrimPrefix(p, "/")].(map[string]any); ok && strings.Count(p, "/") == 1 {
				values = append(slices.Clip(values), probes(sub, at(doc, p))...)
			}
			for _, v := range values {
				add(name(fmt.Sprintf("= %#v", v)), edit(doc, p, v, false))
			}
			switch x := at(doc, p).(type) {
			case map[string]any:
				m := clone(x).(map[string]any)
				m["unknown_member"] = int64(1)
				add(name("+ unknown member"), edit(doc, p, m, false))
			case []any:
				for i := range x {
					add(name(fmt.Sprintf("item %d repeated", i)), edit(doc, p, append(slices.Clone(x), x[i]), false))
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
		for _, q := range regexp.MustCompile(`\{(\d+),(\d+)\}`).FindAllStringSubmatch(pat, -1) {
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

// pointers are the JSON pointers of every value in v, v's own ("") first.
func pointers(v any, p string) []string {
	out := []string{p}
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			out = append(out, pointers(x[k], p+"/"+escape(k))...)
		}
	case []any:
		for i, e := range x {
			out = append(out, pointers(e, p+"/"+strconv.Itoa(i))...)
		}
	}
	return out
}

func escape(k string) string { return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1") }

func unescape(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~1", "/"), "~0", "~")
}

// edit returns a copy of doc with the value at p replaced by v, or deleted.
func edit(doc any, p string, v any, del bool) any {
	if p == "" {
		return clone(v)
	}
	doc = clone(doc)
	steps := strings.Split(p[1:], "/")
	parent := at(doc, "/"+strings.Join(steps[:len(steps)-1], "/"))
	if len(steps) == 1 {
		parent = doc
	}
	last := unescape(steps[len(steps)-1])
	switch x := parent.(type) {
	case map[string]any:
		if del {
			delete(x, last)
		} else {
			x[last] = clone(v)
		}
	case []any:
		i, _ := strconv.Atoi(last)
		if !del {
			x[i] = clone(v)
			break
		}
		// An array's length changes: rebuild it in its parent.
		return edit(doc, "/"+strings.Join(steps[:len(steps)-1], "/"), slices.Delete(slices.Clone(x), i, i+1), false)
	}
	return doc
}

func clone(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = clone(e)
		}
		return m
	case []any:
		a := make([]any, len(x))
		for i, e := range x {
			a[i] = clone(e)
		}
		return a
	}
	return v
}

// at resolves the RFC 6901 pointer p in tree, or nil.
func at(tree any, p string) any {
	if p == "" {
		return tree
	}
	for _, step := range strings.Split(p[1:], "/") {
		switch v := tree.(type) {
		case map[string]any:
			tree = v[unescape(step)]
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
