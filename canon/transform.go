package canon

import (
	"slices"
	"strconv"
)

// Transform reads one JSON document strictly and returns its RFC 8785
// bytes. It is equivalent to JCS(Parse(data)) but streams: no value tree is
// built, so it runs at close to the speed of a copy.
func Transform(data []byte) ([]byte, error) { return TransformForm(data, JCSForm) }

// TransformForm reads one JSON document strictly and returns its canonical
// bytes in form f.
func TransformForm(data []byte, f Form) ([]byte, error) {
	t := transformer{scanner: scanner{data: data}, form: f}
	t.out = make([]byte, 0, len(data))
	if err := t.start(); err != nil {
		return nil, err
	}
	t.ws()
	if err := t.value(0); err != nil {
		return nil, err
	}
	if err := t.end(); err != nil {
		return nil, err
	}
	return t.out, nil
}

type member struct {
	keyStart, keyEnd int // decoded key in transformer.keys
	start, end       int // "key":value in transformer.out
}

type transformer struct {
	scanner
	form    Form
	out     []byte
	tmp     []byte
	keys    []byte
	members []member
}

func (t *transformer) value(depth int) error {
	if t.pos >= len(t.data) {
		return t.unexpected()
	}
	var err error
	switch c := t.data[t.pos]; {
	case c == '{':
		return t.object(depth)
	case c == '[':
		return t.array(depth)
	case c == '"':
		t.out, err = t.str(t.out, false)
		return err
	case c == 't':
		if err = t.literal("true"); err == nil {
			t.out = append(t.out, "true"...)
		}
		return err
	case c == 'f':
		if err = t.literal("false"); err == nil {
			t.out = append(t.out, "false"...)
		}
		return err
	case c == 'n':
		if err = t.literal("null"); err == nil {
			t.out = append(t.out, "null"...)
		}
		return err
	case c == '-' || (c >= '0' && c <= '9') || c == 'N' || c == 'I':
		off := t.pos
		lit, isInt, err := t.number()
		if err != nil {
			return err
		}
		if isInt {
			n, err := parseInt(lit, off)
			if err != nil {
				return err
			}
			t.out = strconv.AppendInt(t.out, n, 10)
			return nil
		}
		fl, err := parseFloat(lit, off)
		if err != nil {
			return err
		}
		t.out, err = appendFloat(t.out, fl, t.form)
		return err
	}
	return t.unexpected()
}

func (t *transformer) array(depth int) error {
	if depth >= MaxDepth {
		return errAt(ErrTooDeep, t.pos, "more than %d nested containers", MaxDepth)
	}
	t.pos++
	t.out = append(t.out, '[')
	t.ws()
	if t.pos < len(t.data) && t.data[t.pos] == ']' {
		t.pos++
		t.out = append(t.out, ']')
		return nil
	}
	for {
		if err := t.value(depth + 1); err != nil {
			return err
		}
		t.ws()
		if t.pos < len(t.data) {
			switch t.data[t.pos] {
			case ',':
				t.pos++
				t.out = t.form.appendComma(t.out)
				t.ws()
				continue
			case ']':
				t.pos++
				t.out = append(t.out, ']')
				return nil
			}
		}
		return t.unexpected()
	}
}

func (t *transformer) key(m member) string {
	return string(t.keys[m.keyStart:m.keyEnd]) // no copy: compiler optimises comparisons
}

func (t *transformer) object(depth int) error {
	if depth >= MaxDepth {
		return errAt(ErrTooDeep, t.pos, "more than %d nested containers", MaxDepth)
	}
	open := t.pos
	t.pos++
	t.out = append(t.out, '{')
	body := len(t.out)
	base := len(t.members)
	keyBase := len(t.keys)
	t.ws()
	if t.pos < len(t.data) && t.data[t.pos] == '}' {
		t.pos++
		t.out = append(t.out, '}')
		return nil
	}
	for {
		if t.pos >= len(t.data) || t.data[t.pos] != '"' {
			return t.unexpected()
		}
		ks := len(t.keys)
		raw := t.pos
		var err error
		if t.keys, err = t.str(t.keys, true); err != nil {
			return err
		}
		if len(t.members) > base {
			t.out = t.form.appendComma(t.out)
		}
		ms := len(t.out)
		if t.pos-raw == len(t.keys)-ks+2 {
			// No escapes: the quoted input is already canonical.
			t.out = append(t.out, t.data[raw:t.pos]...)
		} else {
			t.out = appendQuoted(t.out, t.keys[ks:])
		}
		t.out = t.form.appendColon(t.out)
		t.ws()
		if t.pos >= len(t.data) || t.data[t.pos] != ':' {
			return t.unexpected()
		}
		t.pos++
		t.ws()
		if err := t.value(depth + 1); err != nil {
			return err
		}
		t.members = append(t.members, member{ks, len(t.keys), ms, len(t.out)})
		t.ws()
		if t.pos < len(t.data) {
			if c := t.data[t.pos]; c == ',' {
				t.pos++
				t.ws()
				continue
			} else if c == '}' {
				t.pos++
				break
			}
		}
		return t.unexpected()
	}
	ms := t.members[base:]
	f := t.form
	cmp := func(a, b member) int {
		return compareKeyBytes(f, t.keys[a.keyStart:a.keyEnd], t.keys[b.keyStart:b.keyEnd])
	}
	if !slices.IsSortedFunc(ms, cmp) {
		slices.SortStableFunc(ms, cmp)
		t.tmp = append(t.tmp[:0], t.out[body:]...)
		t.out = t.out[:body]
		for i, m := range ms {
			if i > 0 {
				t.out = t.form.appendComma(t.out)
			}
			t.out = append(t.out, t.tmp[m.start-body:m.end-body]...)
		}
	}
	for i := 1; i < len(ms); i++ {
		if cmp(ms[i-1], ms[i]) == 0 {
			return errAt(ErrDuplicateKey, open, "duplicate key %q", t.key(ms[i]))
		}
	}
	t.out = append(t.out, '}')
	t.members = t.members[:base]
	t.keys = t.keys[:keyBase]
	return nil
}
