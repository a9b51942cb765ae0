package canon

// Parse reads one JSON document strictly and returns its value tree (see
// the package documentation for the value types and refusals).
func Parse(data []byte) (any, error) {
	v, _, err := parse(data, false)
	return v, err
}

// ParseCanonical is [Parse] that also tells whether data is exactly the
// [Upstream] encoding of its value followed by one newline (the form
// artefacts are written in), checked while scanning: no whitespace, keys in
// strictly increasing code-point order, every string, integer and float in
// its canonical spelling. When it is and the value is an object, members
// maps each top-level key to its value's bytes within data, which are then
// that value's upstream canonical encoding, so their digests are digests of
// spans of data; otherwise members is nil.
func ParseCanonical(data []byte) (v any, members map[string][]byte, err error) {
	return parse(data, true)
}

func parse(data []byte, check bool) (any, map[string][]byte, error) {
	p := parser{scanner: scanner{data: data}, check: check}
	if check {
		p.members = map[string][]byte{}
	}
	if err := p.start(); err != nil {
		return nil, nil, err
	}
	p.ws()
	v, err := p.value(0)
	if err != nil {
		return nil, nil, err
	}
	if string(data[p.pos:]) != "\n" {
		p.loose = true
	}
	if err := p.end(); err != nil {
		return nil, nil, err
	}
	if _, ok := v.(map[string]any); !ok || p.loose {
		return v, nil, nil
	}
	return v, p.members, nil
}

type kv struct {
	k string
	v any
}

type parser struct {
	scanner
	buf    []byte
	intern map[string]string // object keys repeat across records: one string each
	shares map[string]any    // so do short string values (shared)
	vals   []any             // scratch stack for array elements
	kvs    []kv              // scratch stack for object members
	// check: track whether the input is canonical (loose once it is not)
	// and the top-level members' bytes.
	check, loose bool
	members      map[string][]byte
	quoted       []byte
}

func (p *parser) ws() {
	if p.pos < len(p.data) && p.data[p.pos] > ' ' {
		return // no whitespace (a canonical document has none): inlined
	}
	at := p.pos
	p.scanner.ws()
	p.loose = p.loose || p.pos != at
}

// escaped notes whether the escaped string data[start:p.pos], decoded to
// p.buf, is spelled canonically.
func (p *parser) escaped(start int) {
	if p.check && !p.loose {
		p.quoted = appendQuoted(p.quoted[:0], p.buf)
		p.loose = string(p.quoted) != string(p.data[start:p.pos])
	}
}

// key reads an object key, returning one shared string per distinct key.
func (p *parser) key() (string, error) {
	body, ok := p.plainStr()
	if !ok {
		// Escaped or non-ASCII keys are rare: not interned.
		s, err := p.decodedStr()
		return s, err
	}
	if p.intern == nil {
		p.intern = make(map[string]string, 64)
	}
	if s, ok := p.intern[string(body)]; ok {
		return s, nil
	}
	s := string(body)
	if len(p.intern) < 4096 {
		p.intern[s] = s
	}
	return s, nil
}

func (p *parser) string() (any, error) {
	if body, ok := p.plainStr(); ok {
		return p.shared(body), nil
	}
	s, err := p.decodedStr()
	return s, err
}

// maxSharedValue bounds the string values shared: longer ones are text,
// seldom repeated.
const maxSharedValue = 64

// shared returns body (a plain string's contents, straight from the input)
// as a value, one boxed string per distinct short value: string values
// repeat as keys do (the 220 KB V1 artefact holds 5,112, 401 distinct), and
// a lookup costs a third of the copy and the box.
func (p *parser) shared(body []byte) any {
	if len(body) > maxSharedValue {
		return string(body)
	}
	if p.shares == nil {
		p.shares = make(map[string]any, 8)
	}
	if v, ok := p.shares[string(body)]; ok {
		return v
	}
	s := string(body)
	var v any = s
	if len(p.shares) < 4096 {
		p.shares[s] = v
	}
	return v
}

// decodedStr reads the string at p.pos (one plainStr declined), noting
// whether its escapes are spelled canonically.
func (p *parser) decodedStr() (string, error) {
	start := p.pos
	var err error
	p.buf, err = p.str(p.buf[:0], true)
	if err != nil {
		return "", err
	}
	if p.pos-start == len(p.buf)+2 {
		return string(p.data[start+1 : p.pos-1]), nil // no escapes: straight from the input
	}
	p.escaped(start)
	return string(p.buf), nil
}

func (p *parser) value(depth int) (any, error) {
	if p.pos >= len(p.data) {
		return nil, p.unexpected()
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		return p.string()
	case c == 't':
		return true, p.literal("true")
	case c == 'f':
		return false, p.literal("false")
	case c == 'n':
		return nil, p.literal("null")
	case c == '-' || (c >= '0' && c <= '9') || c == 'N' || c == 'I':
		off := p.pos
		lit, isInt, err := p.number()
		if err != nil {
			return nil, err
		}
		if isInt {
			p.loose = p.loose || string(lit) == "-0"
			return parseInt(lit, off)
		}
		f, err := parseFloat(lit, off)
		if err == nil && p.check && !p.loose {
			p.quoted, _ = appendFloat(p.quoted[:0], f, UpstreamForm)
			p.loose = string(p.quoted) != string(lit)
		}
		return f, err
	}
	return nil, p.unexpected()
}

// open enters the container at p.pos: it refuses nesting deeper than
// MaxDepth, steps past the opening bracket and any whitespace, and reports
// whether the container closes at once (stepping past close).
func (p *parser) open(depth int, close byte) (empty bool, err error) {
	if depth >= MaxDepth {
		return false, errAt(ErrTooDeep, p.pos, "more than %d nested containers", MaxDepth)
	}
	p.pos++
	p.ws()
	if p.pos < len(p.data) && p.data[p.pos] == close {
		p.pos++
		return true, nil
	}
	return false, nil
}

func (p *parser) object(depth int) (any, error) {
	if empty, err := p.open(depth, '}'); err != nil {
		return nil, err
	} else if empty {
		return map[string]any{}, nil
	}
	base := len(p.kvs)
	defer func() { p.kvs = p.kvs[:base] }()
	for {
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return nil, p.unexpected()
		}
		k, err := p.key()
		if err != nil {
			return nil, err
		}
		p.loose = p.loose || len(p.kvs) > base && k <= p.kvs[len(p.kvs)-1].k
		p.ws()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, p.unexpected()
		}
		p.pos++
		p.ws()
		at := p.pos
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		if depth == 0 && p.check {
			p.members[k] = p.data[at:p.pos]
		}
		p.kvs = append(p.kvs, kv{k, v})
		p.ws()
		if p.pos < len(p.data) {
			switch p.data[p.pos] {
			case ',':
				p.pos++
				p.ws()
				continue
			case '}':
				p.pos++
				// A duplicate is reported when the object closes, as the
				// streaming transform does, so both paths refuse malformed
				// input by one class.
				members := p.kvs[base:]
				m := make(map[string]any, len(members))
				for i, e := range members {
					if m[e.k] = e.v; len(m) == i {
						return nil, errf(ErrDuplicateKey, "duplicate key %q", e.k)
					}
				}
				return m, nil
			}
		}
		return nil, p.unexpected()
	}
}

func (p *parser) array(depth int) (any, error) {
	if empty, err := p.open(depth, ']'); err != nil {
		return nil, err
	} else if empty {
		return []any{}, nil
	}
	base := len(p.vals)
	defer func() { p.vals = p.vals[:base] }()
	for {
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		p.vals = append(p.vals, v)
		p.ws()
		if p.pos < len(p.data) {
			switch p.data[p.pos] {
			case ',':
				p.pos++
				p.ws()
				continue
			case ']':
				p.pos++
				return append([]any(nil), p.vals[base:]...), nil
			}
		}
		return nil, p.unexpected()
	}
}
