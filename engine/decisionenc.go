package engine

// declared is a decision kind the engine defines, whose Record and
// canonical bytes derive from its members.
type declared interface {
	Decision
	members(*Members)
}

// declaredOf is d's declaration, or nil for a nil Wait (whose record is a
// nil map) and a Decision type from outside the engine.
func declaredOf(d Decision) declared {
	if w, ok := d.(*Wait); ok && w == nil {
		return nil
	}
	x, _ := d.(declared)
	return x
}

// appendDecision writes the upstream canonical JSON of d.Record() through
// o (held by the caller, so that nothing is allocated for it).
func appendDecision(o *Members, b []byte, d Decision) []byte {
	x := declaredOf(d)
	if x == nil {
		return AppendCanonical(b, d.Record())
	}
	o.Begin(b, false)
	x.members(o)
	return o.End()
}

// decisionRecord is d.Record(), built through o.
func decisionRecord(o *Members, d Decision) map[string]any {
	x := declaredOf(d)
	if x == nil {
		return d.Record()
	}
	o.BeginTree(false)
	x.members(o)
	return o.EndTree().(map[string]any)
}

// decision declares a member holding d's record (d.Record()), nested
// through o when d is declared.
func (o *Members) decision(k string, d Decision) {
	if x := declaredOf(d); x != nil {
		o.Object(k, x.members)
		return
	}
	o.Value(k, d.Record())
}

func appendStrings(b []byte, ss []string) []byte {
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, s)
	}
	return append(b, ']')
}

// sortStrings is an insertion sort (the lists here are short).
func sortStrings(xs []string) {
	for i := 1; i < len(xs); i++ {
		for j := i; j > 0 && xs[j] < xs[j-1]; j-- {
			xs[j], xs[j-1] = xs[j-1], xs[j]
		}
	}
}
