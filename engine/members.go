package engine

import "github.com/obaudit/obaudit/canon"

// Members is the one declaration of a record's members from which both of
// its forms derive. A record type writes each member once, in increasing
// key order, to a Members; the caller chose whether that appends the
// record's canonical JSON ([AppendMembers]) or builds its canon tree
// ([MembersTree]). A record therefore has one encoding rule whichever form
// a reader needs: the bytes are what [AppendCanonical] writes for the tree
// (TestMembersForms holds the two equal for every member kind).
//
// Keys are spelled by the engine or a pack (plain ASCII identifiers) and
// written without escaping.
type Members struct {
	b    []byte
	kv   []memberKV // the tree form's members, from mark on the current object's
	mark int
	v    any // the single member's value (the bare tree form)
	n    int
	tree bool // the tree form, else the bytes form
	bare bool // one member, its value only (no key, no braces)
	// part is which part of the outer object the bytes form writes: the
	// whole, the head (its members before key cut) or the tail (the rest).
	part objectPart
	cut  string
}

type objectPart uint8

const (
	wholeObject objectPart = iota
	objectHead
	objectTail
)

// asWhat is what a member's value becomes: bytes, a tree member, or
// nothing (a member outside the part being written).
type asWhat uint8

const (
	asBytes asWhat = iota
	asTree
	asSkipped
)

type memberKV struct {
	k string
	v any
}

// Begin starts o over as the bytes form, appending to b: an object, or
// with bare the value of its one member. A caller that keeps a Members
// (and calls a declaration directly) encodes without allocating one.
func (o *Members) Begin(b []byte, bare bool) {
	*o = Members{b: b, bare: bare, kv: o.kv[:0]}
	if !bare {
		o.b = append(o.b, '{')
	}
}

// BeginPart starts o over as the bytes form of one part of an object
// split at the member boundary before key cut: with head, the opening
// brace and the members whose keys precede cut; else the members from cut
// on and the closing brace. The whole declaration is written to either
// part (the members outside it are skipped, their values unencoded), and
// the head's bytes followed by the tail's are the object's: a caller can
// hash the head once and resume after it (TestMembersForms splits every
// declaration at every key).
func (o *Members) BeginPart(b []byte, cut string, head bool) {
	*o = Members{b: b, kv: o.kv[:0], cut: cut, part: objectTail}
	if head {
		o.part = objectHead
		o.b = append(o.b, '{')
	}
}

// End ends the bytes form and returns the bytes.
func (o *Members) End() []byte {
	if o.bare || o.part == objectHead {
		return o.b
	}
	return append(o.b, '}')
}

// BeginTree starts o over as the tree form: an object, or with bare the
// value of its one member.
func (o *Members) BeginTree(bare bool) {
	*o = Members{tree: true, bare: bare, kv: o.kv[:0]}
}

// EndTree returns the tree: the object's map, or with bare the member's
// value.
func (o *Members) EndTree() any {
	if o.bare {
		return o.v
	}
	return o.object()
}

// object builds the map of the current object's members (exactly sized)
// and drops them from kv.
func (o *Members) object() map[string]any {
	m := make(map[string]any, len(o.kv)-o.mark)
	for _, e := range o.kv[o.mark:] {
		m[e.k] = e.v
	}
	clear(o.kv[o.mark:])
	o.kv = o.kv[:o.mark]
	return m
}

// AppendMembers appends the canonical JSON object write declares.
func AppendMembers(b []byte, write func(*Members)) []byte {
	var o Members
	o.Begin(b, false)
	write(&o)
	return o.End()
}

// MembersTree is the canon tree of the object write declares.
func MembersTree(write func(*Members)) map[string]any {
	var o Members
	o.BeginTree(false)
	write(&o)
	return o.object()
}

// IsTree reports whether o builds the tree form: a declaration that hands
// [Members.Value] a tree someone may later change hands over a copy only
// then.
func (o *Members) IsTree() bool { return o.tree }

// key starts member k and says what its value becomes: bytes, a tree
// member (given to put), or nothing (outside the part o writes). Keys are
// not compared here: a declaration out of key order writes bytes that are
// not its tree's canonical form, which the test holding that record's two
// forms equal refuses (every declaration has one: TestRootEncodersMatchTrees,
// TestDecisionEncoding, TestDecisionTape, TestMembersForms,
// TestObservationForms).
func (o *Members) key(k string) asWhat {
	if o.bare && o.n > 0 {
		panic("engine: a single-member declaration declared a second member " + k)
	}
	o.n++
	if o.tree {
		return asTree
	}
	if o.part != wholeObject && (k < o.cut) == (o.part == objectTail) {
		return asSkipped // a head's member from cut on, or a tail's before it
	}
	if !o.bare {
		if o.n > 1 {
			o.b = append(o.b, ',')
		}
		o.b = appendKey(o.b, k)
	}
	return asBytes
}

// put sets member k of the tree form.
func (o *Members) put(k string, v any) {
	if o.bare {
		o.v = v
		return
	}
	o.kv = append(o.kv, memberKV{k, v})
}

// Str declares a string member.
func (o *Members) Str(k, v string) {
	switch o.key(k) {
	case asBytes:
		o.b = appendString(o.b, v)
	case asTree:
		o.put(k, v)
	}
}

// OptStr declares a string member that is null when v is nil.
func (o *Members) OptStr(k string, v *string) {
	switch o.key(k) {
	case asBytes:
		o.b = AppendOptString(o.b, v)
	case asTree:
		if v == nil {
			o.put(k, nil)
			return
		}
		o.put(k, *v)
	}
}

// Int declares an integer member (within ±(2^53-1)).
func (o *Members) Int(k string, v int64) {
	switch o.key(k) {
	case asBytes:
		o.b = appendSafeInt(o.b, v)
	case asTree:
		o.put(k, v)
	}
}

// OptInt declares an integer member that is null when v is nil.
func (o *Members) OptInt(k string, v *int64) {
	switch o.key(k) {
	case asBytes:
		o.b = appendOptInt(o.b, v)
	case asTree:
		if v == nil {
			o.put(k, nil)
			return
		}
		o.put(k, *v)
	}
}

// Bool declares a boolean member.
func (o *Members) Bool(k string, v bool) {
	switch o.key(k) {
	case asBytes:
		o.b = AppendBool(o.b, v)
	case asTree:
		o.put(k, v)
	}
}

// Strs declares a list of strings (a fresh []any in the tree).
func (o *Members) Strs(k string, v []string) {
	switch o.key(k) {
	case asBytes:
		o.b = appendStrings(o.b, v)
	case asTree:
		o.put(k, canon.StringList(v))
	}
}

// Map declares an object member holding m's members (nil is the empty
// object); the tree holds a shallow copy of m.
func (o *Members) Map(k string, m map[string]any) {
	switch o.key(k) {
	case asBytes:
		o.b = AppendCanonical(o.b, m)
	case asTree:
		o.put(k, copyMap(m))
	}
}

// Maps declares a list of objects, each holding one map's members; the
// tree holds shallow copies.
func (o *Members) Maps(k string, l []map[string]any) {
	switch o.key(k) {
	case asBytes:
		o.b = append(o.b, '[')
		for i, m := range l {
			if i > 0 {
				o.b = append(o.b, ',')
			}
			o.b = AppendCanonical(o.b, m)
		}
		o.b = append(o.b, ']')
	case asTree:
		list := make([]any, len(l))
		for i, m := range l {
			list[i] = copyMap(m)
		}
		o.put(k, list)
	}
}

// Value declares a member holding the canon tree v as it is (the tree form
// shares v).
func (o *Members) Value(k string, v any) {
	switch o.key(k) {
	case asBytes:
		o.b = AppendCanonical(o.b, v)
	case asTree:
		o.put(k, v)
	}
}

// twoForms is a value that has both of its forms at hand: its canon tree,
// and its canonical JSON (the bytes AppendCanonical writes for that tree),
// such as a record that keeps its own encoding.
type twoForms interface {
	canonTree() any
	appendCanonical(b []byte) []byte
}

// formed declares a member whose value has both forms at hand (the tree
// form holds v's tree as it is).
func (o *Members) formed(k string, v twoForms) {
	switch o.key(k) {
	case asBytes:
		o.b = v.appendCanonical(o.b)
	case asTree:
		o.put(k, v.canonTree())
	}
}

// Encoded declares a member whose value the caller holds in both forms:
// v for the tree form, enc (what AppendCanonical writes for v) for the
// bytes form; a caller that builds only one form may leave the other's
// zero.
func (o *Members) Encoded(k string, v any, enc []byte) {
	switch o.key(k) {
	case asBytes:
		o.b = append(o.b, enc...)
	case asTree:
		o.put(k, v)
	}
}

// encodedTree is a canon tree encoded once, for a member repeated in many
// records: its bytes are written from the tree ([encodeTree]), and every
// record's tree shares the tree.
type encodedTree struct {
	tree any
	json []byte
}

func encodeTree(v any) *encodedTree { return &encodedTree{v, AppendCanonical(nil, v)} }

func (e *encodedTree) canonTree() any                  { return e.tree }
func (e *encodedTree) appendCanonical(b []byte) []byte { return append(b, e.json...) }

// Object declares a nested record member, or null when write is nil.
func (o *Members) Object(k string, write func(*Members)) {
	switch o.key(k) {
	case asBytes:
		if write == nil {
			o.b = append(o.b, "null"...)
			return
		}
		o.inner(write)
	case asTree:
		if write == nil {
			o.put(k, nil)
			return
		}
		o.put(k, o.inner(write))
	}
}

// Objects declares a list of n nested records, the i-th declared by
// write(i, …).
func (o *Members) Objects(k string, n int, write func(i int, o *Members)) {
	switch o.key(k) {
	case asBytes:
		o.b = append(o.b, '[')
		for i := range n {
			if i > 0 {
				o.b = append(o.b, ',')
			}
			o.inner(func(m *Members) { write(i, m) })
		}
		o.b = append(o.b, ']')
	case asTree:
		list := make([]any, n)
		for i := range n {
			list[i] = o.inner(func(m *Members) { write(i, m) })
		}
		o.put(k, list)
	}
}

// inner declares a nested object through o itself (its own state set
// aside meanwhile), so that nesting allocates nothing but the nested tree:
// it appends the object's bytes, or returns its tree.
func (o *Members) inner(write func(*Members)) map[string]any {
	n, bare, mark, part := o.n, o.bare, o.mark, o.part
	o.n, o.bare, o.mark, o.part = 0, false, len(o.kv), wholeObject
	var child map[string]any
	if o.tree {
		write(o)
		child = o.object()
	} else {
		o.b = append(o.b, '{')
		write(o)
		o.b = append(o.b, '}')
	}
	o.n, o.bare, o.mark, o.part = n, bare, mark, part
	return child
}
