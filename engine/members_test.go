package engine

import (
	"testing"

	"github.com/obaudit/obaudit/canon"
)

// TestMembersForms holds the bytes form of a declaration to canon.Upstream
// of its tree form, for every member kind, nested objects and lists, the
// bare single-member forms and strings that need escaping, and the bytes of
// the head and the tail of each declaration split before every key (and
// between, before and after them) to the whole object's.
func TestMembersForms(t *testing.T) {
	odd := "quote\"back\\slash\ttab \u00e9\u2028 <&>"
	n := int64(-7)
	decls := map[string]func(*Members){
		"empty": func(*Members) {},
		"every kind": func(o *Members) {
			o.Bool("a_bool", true)
			o.Int("b_int", 1<<40)
			o.Map("c_map", map[string]any{"z": odd, "a": []any{int64(1), nil, map[string]any{}}})
			o.Map("c_nil_map", nil)
			o.Maps("d_maps", []map[string]any{{"k": "v"}, {}, nil})
			o.Object("e_null", nil)
			o.Object("e_object", func(m *Members) {
				m.OptInt("a", &n)
				m.OptInt("b", nil)
				m.Object("c", func(m *Members) { m.Str("deep", odd) })
			})
			o.formed("f_formed", encodeTree(map[string]any{"z": odd, "l": []any{int64(2), false}}))
			o.Objects("f_objects", 3, func(i int, m *Members) {
				m.Int("i", int64(i))
				m.Strs("s", []string{odd, "x"}[:i%3])
			})
			o.OptStr("g_null", nil)
			o.OptStr("g_str", &odd)
			o.Str("h_str", odd)
			o.Strs("i_strs", nil)
			o.Value("j_value", map[string]any{"t": true, "n": int64(3)})
			o.Value("j_value_nil", nil)
		},
	}
	for name, write := range decls {
		want, err := canon.Upstream(MembersTree(write))
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendMembers([]byte("prefix"), write); string(got) != "prefix"+string(want) {
			t.Errorf("%s:\n got %s\nwant %s", name, got, want)
		}
		cuts := []string{"", "~"}
		for k := range MembersTree(write) {
			cuts = append(cuts, k, k+"_")
		}
		for _, cut := range cuts {
			var o Members
			o.BeginPart([]byte("prefix"), cut, true)
			write(&o)
			head := o.End()
			o.BeginPart(head, cut, false)
			write(&o)
			if got := o.End(); string(got) != "prefix"+string(want) {
				t.Errorf("%s split before %q:\n got %s\nwant %s", name, cut, got, want)
			}
		}
		// The same declaration as the one member of an outer object, bare.
		member := func(o *Members) { o.Object("only", write) }
		var o Members
		o.BeginTree(true)
		member(&o)
		bareWant, err := canon.Upstream(o.EndTree())
		if err != nil {
			t.Fatal(err)
		}
		o.Begin(nil, true)
		member(&o)
		if got := o.End(); string(got) != string(bareWant) || string(bareWant) != string(want) {
			t.Errorf("%s bare:\n got %s\nwant %s", name, got, want)
		}
	}
}

// TestMembersOrderIsHeldByForms: a declaration out of key order writes
// bytes that differ from its tree's canonical form, so the tests that hold
// each record's two forms equal refuse it; a single-member declaration
// with two members panics.
func TestMembersOrderIsHeldByForms(t *testing.T) {
	for name, write := range map[string]func(*Members){
		"out of order": func(o *Members) { o.Str("b", ""); o.Str("a", "") },
		"nested":       func(o *Members) { o.Object("x", func(m *Members) { m.Bool("z", true); m.Bool("y", true) }) },
	} {
		want, err := canon.Upstream(MembersTree(write))
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendMembers(nil, write); string(got) == string(want) {
			t.Errorf("%s: bytes %s equal the canonical form", name, got)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("two members in a single-member declaration: no panic")
		}
	}()
	var o Members
	o.Begin(nil, true)
	o.Str("a", "")
	o.Str("b", "")
}
