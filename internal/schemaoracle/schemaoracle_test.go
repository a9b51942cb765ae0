package schemaoracle_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/internal/schemaoracle"
	"github.com/obaudit/obaudit/refusal"
)

func tree(t *testing.T) any {
	t.Helper()
	v, err := canon.Parse([]byte(`{"a":{"b~c":[1,{"d/e":"x"}],"":null},"f":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestLookup(t *testing.T) {
	doc := tree(t)
	for _, c := range []struct {
		p    string
		want any
		ok   bool
	}{
		{"", doc, true},
		{"/a/b~0c/0", int64(1), true},
		{"/a/b~0c/1/d~1e", "x", true},
		{"/a/", nil, true}, // the member "", which is null
		{"/a/b~0c/2", nil, false},
		{"/a/b~0c/-1", nil, false},
		{"/a/b~0c/x", nil, false},
		{"/a/bc", nil, false},
		{"/f/0", nil, false},
		{"/a/b~0c/0/z", nil, false},
		{"a", nil, false},
	} {
		got, ok := schemaoracle.Lookup(doc, c.p)
		if ok != c.ok || !reflect.DeepEqual(got, c.want) {
			t.Errorf("Lookup(%q) = %v, %t; want %v, %t", c.p, got, ok, c.want, c.ok)
		}
	}
}

// Every pointer Pointers lists resolves, in order, and setting each value
// to itself or deleting it leaves the tree it was given as it was.
func TestPointersSetDelete(t *testing.T) {
	doc := tree(t)
	before := canon.String(doc, canon.JCSForm)
	ps := schemaoracle.Pointers(doc)
	want := []string{"", "/a", "/a/", "/a/b~0c", "/a/b~0c/0", "/a/b~0c/1", "/a/b~0c/1/d~1e", "/f"}
	if !reflect.DeepEqual(ps, want) {
		t.Fatalf("Pointers = %q, want %q", ps, want)
	}
	for _, p := range ps {
		v, ok := schemaoracle.Lookup(doc, p)
		if !ok {
			t.Errorf("%q resolves to nothing", p)
		}
		if got := schemaoracle.Set(doc, p, v); !reflect.DeepEqual(got, doc) {
			t.Errorf("Set(%q, its own value) = %v", p, got)
		}
		if p != "" {
			if _, ok := schemaoracle.Lookup(schemaoracle.Delete(doc, p), p); ok && p != "/a/b~0c/0" {
				t.Errorf("%q is still there after Delete", p)
			}
		}
	}
	for _, c := range []struct {
		edit func(any) any
		want string
	}{
		{func(d any) any { return schemaoracle.Set(d, "/a/b~0c/1/d~1e", true) }, `{"a":{"":null,"b~c":[1,{"d/e":true}]},"f":[]}`},
		{func(d any) any { return schemaoracle.Set(d, "/a/new", int64(2)) }, `{"a":{"":null,"b~c":[1,{"d/e":"x"}],"new":2},"f":[]}`},
		{func(d any) any { return schemaoracle.Delete(d, "/a/b~0c/0") }, `{"a":{"":null,"b~c":[{"d/e":"x"}]},"f":[]}`},
		{func(d any) any { return schemaoracle.Delete(d, "/a/") }, `{"a":{"b~c":[1,{"d/e":"x"}]},"f":[]}`},
		{func(d any) any { return schemaoracle.Set(d, "", "x") }, `"x"`},
	} {
		if got := canon.String(c.edit(doc), canon.JCSForm); got != c.want {
			t.Errorf("edited: %s, want %s", got, c.want)
		}
	}
	if after := canon.String(doc, canon.JCSForm); after != before {
		t.Fatalf("the edits changed the tree they were given: %s", after)
	}
	// What Set does not change it shares; a Clone shares nothing.
	set := schemaoracle.Set(doc, "/f", true).(map[string]any)
	if reflect.ValueOf(set["a"]).UnsafePointer() != reflect.ValueOf(doc.(map[string]any)["a"]).UnsafePointer() {
		t.Error("Set copied a container it did not change")
	}
	c := canon.Clone(doc).(map[string]any)
	if reflect.ValueOf(c["a"]).UnsafePointer() == reflect.ValueOf(doc.(map[string]any)["a"]).UnsafePointer() || !reflect.DeepEqual(c, doc) {
		t.Error("Clone is not a deep copy")
	}
}

func TestSetPanicsWithoutAContainer(t *testing.T) {
	for _, p := range []string{"/a/b~0c/0/z", "/f/0", "/g/h"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Set(%q) did not panic", p)
				}
			}()
			schemaoracle.Set(tree(t), p, true)
		}()
	}
}

// recorder is a testing.TB that keeps what a check reports; Fatalf
// panics with stopped.
type recorder struct {
	testing.TB
	errors []string
}

type stopped struct{}

func (r *recorder) Helper()                   {}
func (r *recorder) Logf(string, ...any)       {}
func (r *recorder) Errorf(f string, a ...any) { r.errors = append(r.errors, fmt.Sprintf(f, a...)) }
func (r *recorder) Fatalf(f string, a ...any) {
	r.Errorf(f, a...)
	panic(stopped{})
}

// check runs f on a recorder, returning what it reported and whether it
// stopped.
func check(f func(t testing.TB)) (errors []string, stop bool) {
	r := &recorder{}
	defer func() {
		if v := recover(); v != nil {
			if _, ok := v.(stopped); !ok {
				panic(v)
			}
			errors, stop = r.errors, true
		}
	}()
	f(r)
	return r.errors, false
}

var (
	errA = &refusal.Refusal{Class: "schemaoracletest/a"}
	errB = &refusal.Refusal{Class: "schemaoracletest/b"}
)

func TestExceptionsAndWitnesses(t *testing.T) {
	es := schemaoracle.Exceptions{
		{"by class", "", schemaoracle.Classes(errA)},
		{"by value", "", func(r schemaoracle.Refused) bool { return r.Value == "v" }},
	}
	if got := es.Excuse(schemaoracle.Refused{Class: errA.Class, Value: "v"}); got != "by class" {
		t.Errorf("the first exception that applies: got %q", got)
	}
	if got := es.Excuse(schemaoracle.Refused{Class: errB.Class, Value: "v"}); got != "by value" {
		t.Errorf("got %q, want by value", got)
	}
	if got := es.Excuse(schemaoracle.Refused{Class: errB.Class}); got != "" {
		t.Errorf("no exception applies, got %q", got)
	}
	for _, c := range []struct {
		judged []string
		floor  int
		errors int // an unwitnessed exception each, and the floor
		stop   bool
	}{
		{[]string{"", "by class", "by value"}, 3, 0, false},
		{[]string{"", "by class", "by class"}, 3, 1, false},
		{[]string{"by class", "by value"}, 3, 1, true},
		{nil, 0, 2, false},
	} {
		var w schemaoracle.Witnesses
		for _, e := range c.judged {
			w.Judged(e)
		}
		errors, stop := check(func(t testing.TB) { w.Check(t, es, c.floor) })
		if len(errors) != c.errors || stop != c.stop {
			t.Errorf("judged %q, floor %d: reported %q (stopped %t)", c.judged, c.floor, errors, stop)
		}
	}
}

func TestCompile(t *testing.T) {
	const id = "https://obaudit.example/schemaoracle-test.json"
	doc := []byte(`{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"` + id + `","type":"object","properties":{"n":{"type":"integer","minimum":1}}}`)
	s := schemaoracle.Compile(t, id, doc)
	if schemaoracle.Compile(t, id, doc) != s {
		t.Error("a schema was compiled twice")
	}
	if err := schemaoracle.Check(s, map[string]any{"n": int64(1)}); err != nil {
		t.Errorf("a valid tree: %v", err)
	}
	if err := schemaoracle.Check(s, map[string]any{"n": int64(0)}); err == nil {
		t.Error("n = 0 passes minimum 1")
	}
	if _, stop := check(func(t testing.TB) { schemaoracle.Compile(t, id, append(doc, ' ')) }); !stop {
		t.Error("other bytes under a compiled id did not stop the test")
	}
	if _, stop := check(func(t testing.TB) { schemaoracle.Compile(t, id+"x", []byte(`{"type":7}`)) }); !stop {
		t.Error("a schema that does not compile did not stop the test")
	}
}
