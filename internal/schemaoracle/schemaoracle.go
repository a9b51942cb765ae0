// Package schemaoracle is the machinery the schema-oracle tests share.
// Such a test holds a published JSON Schema to a package's named checks
// (the named checks are the validator; the schema, compiled offline, is
// the oracle): both judge the same vectors and must reach the same
// verdict, save exactly the package's documented [Exception]s, each of
// which some vector must witness ([Witnesses]). The package gives the
// exceptions' type, the witness accounting, RFC 6901 pointers into decoded
// JSON trees ([At], [Pointers]), copies of a tree with one value set or
// deleted ([Set], [Delete]), the values every mutation corpus puts in
// ([Kinds]), the compiled schema and its leaf error ([Compile], [Check]),
// and the committed inputs' readers ([TxtarFiles], [CorpusEntry]). Each
// test keeps its own exceptions, its vector sources and its way of reading
// a refusal's pointer. Only tests import it (TestDependencyRules).
package schemaoracle

import (
	"bytes"
	"errors"
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

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/internal/offlineschema"
	"github.com/obaudit/obaudit/refusal"
	"github.com/rogpeppe/go-internal/txtar"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// Refused is a refusal of the named checks as an exception judges it.
type Refused struct {
	Class   refusal.Class
	Pointer string // RFC 6901, of the value the refusal is about
	Value   any    // the value Pointer names in the judged tree (nil: none)
	Rule    string // the kind of rule broken, where the reader names one
}

// An Exception is a documented disagreement: a rule of the named checks
// the published schema does not state, so that a vector the named checks
// refuse under it passes the schema. Applies says whether it is the rule a
// refusal broke.
type Exception struct {
	Name, Why string
	Applies   func(Refused) bool
}

// Exceptions are every disagreement an oracle allows, by name: each must
// be witnessed by a vector, and any other disagreement fails the test.
type Exceptions []Exception

// Excuse returns the name of the first exception that applies to r, or ""
// when none does.
func (es Exceptions) Excuse(r Refused) string {
	for _, e := range es {
		if e.Applies(r) {
			return e.Name
		}
	}
	return ""
}

// Classes applies to a refusal of any of the classes of cs.
func Classes(cs ...*refusal.Refusal) func(Refused) bool {
	return func(r Refused) bool {
		return slices.ContainsFunc(cs, func(s *refusal.Refusal) bool { return s.Class == r.Class })
	}
}

// Witnesses counts the vectors both validators judged and, per exception,
// the disagreements it excused. The zero value is ready to use.
type Witnesses struct {
	judged int
	by     map[string]int
}

// Judged counts one vector judged by both, whose disagreement exception
// excused ("": they agreed).
func (w *Witnesses) Judged(exception string) {
	w.judged++
	if exception == "" {
		return
	}
	if w.by == nil {
		w.by = map[string]int{}
	}
	w.by[exception]++
}

// Check fails t for each of es no vector witnessed (the list must be
// exactly what is needed), logs the account, and stops t when fewer than
// floor vectors were judged by both (the corpus lost its members).
func (w *Witnesses) Check(t testing.TB, es Exceptions, floor int) {
	t.Helper()
	for _, e := range es {
		if w.by[e.Name] == 0 {
			t.Errorf("exception %q is witnessed by no vector: drop it", e.Name)
		}
	}
	t.Logf("%d vectors judged by both; the schema passes what the named checks refuse under %v", w.judged, w.by)
	if w.judged < floor {
		t.Fatalf("only %d vectors judged by both (the floor is %d); the corpus lost its members", w.judged, floor)
	}
}

// Kinds are the values a mutation corpus puts in place of every value:
// each JSON kind, the numbers at the edges the rules care about (integral
// floats, negative zero, the largest exact integer, floats past every
// integer), strings empty, short and long, and containers empty and not.
// Each one's upstream encoding (canon.Upstream) is a file canon reads back
// to it; each call returns new containers.
func Kinds() []any {
	return []any{
		nil, true, false,
		int64(0), int64(-1), int64(1), int64(canon.MaxSafeInteger),
		1.5, 14.0, math.Copysign(0, -1), 1e300, -1e300,
		"", "x", strings.Repeat("long ", 2000),
		[]any{}, []any{"x"}, map[string]any{},
	}
}

// Lookup resolves the RFC 6901 pointer p in tree; ok is false when p
// names no value.
func Lookup(tree any, p string) (v any, ok bool) {
	if p == "" {
		return tree, true
	}
	if p[0] != '/' {
		return nil, false
	}
	for _, step := range strings.Split(p[1:], "/") {
		switch x := tree.(type) {
		case map[string]any:
			if tree, ok = x[unescape(step)]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(step)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			tree = x[i]
		default:
			return nil, false
		}
	}
	return tree, true
}

// At is the value the RFC 6901 pointer p names in tree, or nil.
func At(tree any, p string) any {
	v, _ := Lookup(tree, p)
	return v
}

// Key extends the pointer p by the object member k.
func Key(p, k string) string {
	return p + "/" + strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

func unescape(step string) string {
	if !strings.Contains(step, "~") {
		return step
	}
	return strings.ReplaceAll(strings.ReplaceAll(step, "~1", "/"), "~0", "~")
}

// Pointers are the pointers of every value in tree, the root's ("")
// first, then depth first with object members in key order.
func Pointers(tree any) []string {
	var out []string
	var walk func(v any, p string)
	walk = func(v any, p string) {
		out = append(out, p)
		switch x := v.(type) {
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(x)) {
				walk(x[k], Key(p, k))
			}
		case []any:
			for i, e := range x {
				walk(e, p+"/"+strconv.Itoa(i))
			}
		}
	}
	walk(tree, "")
	return out
}

// Set returns tree with the value at the pointer p replaced by v (or, in
// an object, added), copying each container on the way to it and sharing
// every other with tree, which it does not change: treat tree, v and the
// result as read-only. It panics when p's parent names no container.
func Set(tree any, p string, v any) any { return edit(tree, p, v, false) }

// Delete returns tree without the value at p (an object's member removed,
// an array's item cut out), as [Set] shares and copies.
func Delete(tree any, p string) any { return edit(tree, p, nil, true) }

func edit(tree any, p string, v any, del bool) any {
	if p == "" {
		if del {
			panic("schemaoracle: the root cannot be deleted")
		}
		return v
	}
	step, rest := p[1:], ""
	if i := strings.IndexByte(step, '/'); i >= 0 {
		step, rest = step[:i], step[i:]
	}
	switch x := tree.(type) {
	case map[string]any:
		k, c := unescape(step), maps.Clone(x)
		switch {
		case rest != "":
			c[k] = edit(x[k], rest, v, del)
		case del:
			delete(c, k)
		default:
			c[k] = v
		}
		return c
	case []any:
		i, err := strconv.Atoi(step)
		if err != nil || i < 0 || i >= len(x) {
			break
		}
		c := slices.Clone(x)
		switch {
		case rest != "":
			c[i] = edit(x[i], rest, v, del)
		case del:
			c = slices.Delete(c, i, i+1)
		default:
			c[i] = v
		}
		return c
	}
	panic(fmt.Sprintf("schemaoracle: %q names no value in a container", p))
}

// compiled holds each schema Compile compiled, by its $id.
var compiled sync.Map

type compiledDoc struct {
	doc    []byte
	schema func() (*jsonschema.Schema, error)
}

// Compile returns the published schema doc (its $id id) compiled by
// offlineschema's compiler (draft 2020-12, formats asserted, nothing
// loaded from anywhere), once for the test binary; it stops t when doc
// does not compile or another doc was compiled under id.
func Compile(t testing.TB, id string, doc []byte) *jsonschema.Schema {
	t.Helper()
	v, ok := compiled.Load(id)
	if !ok {
		c := &compiledDoc{doc: bytes.Clone(doc)}
		c.schema = sync.OnceValues(func() (*jsonschema.Schema, error) {
			comp := offlineschema.NewCompiler()
			if err := comp.AddResource(id, bytes.NewReader(c.doc)); err != nil {
				return nil, err
			}
			return comp.Compile(id)
		})
		v, _ = compiled.LoadOrStore(id, c)
	}
	c := v.(*compiledDoc)
	if !bytes.Equal(c.doc, doc) {
		t.Fatalf("the schema %s was compiled from other bytes", id)
	}
	s, err := c.schema()
	if err != nil {
		t.Fatalf("compile the published schema %s: %v", id, err)
	}
	return s
}

// Check is s's verdict on tree: nil, or its leaf error, the failing check
// about the deepest value, naming the value's and the keyword's locations
// (where [offlineschema.Leaf] follows each first cause, which under an
// anyOf is the first branch's, often not the one the value meant).
func Check(s *jsonschema.Schema, tree any) error {
	err := s.Validate(tree)
	var leaf *jsonschema.ValidationError
	if !errors.As(err, &leaf) {
		return err
	}
	for len(leaf.Causes) > 0 {
		next := leaf.Causes[0]
		for _, c := range leaf.Causes[1:] {
			if len(c.InstanceLocation) > len(next.InstanceLocation) {
				next = c
			}
		}
		leaf = next
	}
	return fmt.Errorf("the schema refuses %q at %s: %s", leaf.InstanceLocation, leaf.KeywordLocation, leaf.Message)
}

// File is one file of a txtar archive, named "archive:file".
type File struct {
	Name string
	Data []byte
}

// TxtarFiles are the files whose data satisfies keep in the txtar
// archives matching pattern; it stops t when no archive matches.
func TxtarFiles(t testing.TB, pattern string, keep func(data []byte) bool) []File {
	t.Helper()
	archives, err := filepath.Glob(pattern)
	if err != nil || len(archives) == 0 {
		t.Fatalf("no txtar archives match %s: %v", pattern, err)
	}
	var out []File
	for _, f := range archives {
		a, err := txtar.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, file := range a.Files {
			if keep(file.Data) {
				out = append(out, File{f + ":" + file.Name, file.Data})
			}
		}
	}
	return out
}

// JSONObject keeps a file that holds a JSON object containing marker.
func JSONObject(marker string) func([]byte) bool {
	return func(b []byte) bool {
		return bytes.HasPrefix(bytes.TrimSpace(b), []byte("{")) && bytes.Contains(b, []byte(marker))
	}
}

// CorpusEntry is the value of a one-value "go test fuzz v1" corpus file of
// a fuzz test taking []byte.
func CorpusEntry(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 2 || lines[0] != "go test fuzz v1" || !strings.HasPrefix(lines[1], "[]byte(") {
		t.Fatalf("%s: not a corpus entry of one []byte", path)
	}
	s, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[1], "[]byte("), ")"))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return []byte(s)
}
