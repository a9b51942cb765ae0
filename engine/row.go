package engine

import "github.com/obaudit/obaudit/canon"

// field is one key of a trajectory row, typed so that a row can be encoded
// without building its map first and without boxing its values. A row's
// canonical bytes and (when rows are kept) its map are both derived from the
// same field list, so they cannot disagree about keys or values: the map is
// built by boxing each value exactly as the encoder reads it.
type field struct {
	key  string
	kind fieldKind
	s    string
	n    int64
	v    any
	ss   []string
	dec  map[string]any
}

type fieldKind uint8

const (
	kindStr fieldKind = iota
	kindInt
	kindBool
	kindNull
	kindAny     // v, encoded by AppendCanonical
	kindStrs    // ss, a list of strings ([]any in the map)
	kindMapCopy // v, a map[string]any the row holds a shallow copy of
	kindDecision
	kindAt // s, the row's instant (encoded once per instant by the ledger)
)

func fStr(k, s string) field       { return field{key: k, kind: kindStr, s: s} }
func fInt(k string, n int64) field { return field{key: k, kind: kindInt, n: n} }
func fBool(k string, b bool) field { return field{key: k, kind: kindBool, n: b2i(b)} }
func fAny(k string, v any) field   { return field{key: k, kind: kindAny, v: v} }
func fMapCopy(k string, m map[string]any) field {
	return field{key: k, kind: kindMapCopy, v: m}
}

// fDecision is a decision's record: rec when the caller already built it
// (shared with the decision tape), else d.Record() when the row is kept.
func fDecision(k string, d Decision, rec map[string]any) field {
	return field{key: k, kind: kindDecision, v: d, dec: rec}
}
func fStrs(k string, ss []string) field {
	return field{key: k, kind: kindStrs, ss: ss}
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func (f *field) appendValue(o *Members, b []byte) []byte {
	switch f.kind {
	case kindStr, kindAt:
		return appendString(b, f.s)
	case kindInt:
		return appendSafeInt(b, f.n)
	case kindBool:
		if f.n != 0 {
			return append(b, "true"...)
		}
		return append(b, "false"...)
	case kindNull:
		return append(b, "null"...)
	case kindStrs:
		return appendStrings(b, f.ss)
	case kindDecision:
		return appendDecision(o, b, f.v.(Decision))
	}
	return AppendCanonical(b, f.v)
}

func (f *field) value(o *Members) any {
	switch f.kind {
	case kindStr, kindAt:
		return f.s
	case kindInt:
		return f.n
	case kindBool:
		return f.n != 0
	case kindNull:
		return nil
	case kindStrs:
		return canon.StringList(f.ss)
	case kindMapCopy:
		return copyMap(f.v.(map[string]any))
	case kindDecision:
		if f.dec != nil {
			return f.dec
		}
		return decisionRecord(o, f.v.(Decision))
	}
	return f.v
}

// maxRowFields bounds the keys of a row the engine writes with [ledger.row]
// (its largest has nine).
const maxRowFields = 24

// row appends a trajectory row made of fs plus index, at and record_type.
func (l *ledger) row(at, recordType string, fs ...field) {
	own := [3]field{fInt("index", l.n), {key: "at", kind: kindAt, s: at}, fStr("record_type", recordType)}
	// The fields are sorted by key through pointers (a field is ~100 bytes),
	// held in a fixed array so that none of them escapes.
	var stack [maxRowFields]*field
	for i := range fs {
		stack[i] = &fs[i]
	}
	for i := range own {
		stack[len(fs)+i] = &own[i]
	}
	all := stack[:len(fs)+len(own)]
	// Insertion sort by key: rows are small.
	for i := 1; i < len(all); i++ {
		for j := i; j > 0 && all[j].key < all[j-1].key; j-- {
			all[j], all[j-1] = all[j-1], all[j]
		}
	}
	b := l.begin()
	b = append(b, '{')
	for i, f := range all {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendKey(b, f.key)
		if f.kind == kindAt {
			b = l.appendAt(b, f.s)
			continue
		}
		b = f.appendValue(&l.enc, b)
	}
	b = append(b, '}')
	l.commit(b)
	if l.noRows {
		return
	}
	m := make(map[string]any, len(all))
	for _, f := range all {
		if f.kind == kindAt {
			m["at"] = l.boxAt(at)
			continue
		}
		m[f.key] = f.value(&l.enc)
	}
	l.rows = append(l.rows, m)
}
