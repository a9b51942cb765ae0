package canon

// Parse reads one JSON document strictly and returns its value tree (see
// the package documentation for the value types and refusals).
func Parse(data []byte) (any, error) {
	p := parser{scanner: scanner{data: data}}
	if err := p.start(); err != nil {
		return nil, err
	}
	p.ws()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	if err := p.end(); err != nil {
		return nil, err
	}
	return v, nil
}

type parser struct {
	scanner
	buf []byte
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
		var err error
		p.buf, err = p.str(p.buf[:0], true)
		if err != nil {
			return nil, err
		}
		return string(p.buf), nil
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
			return parseInt(lit, off)
		}
		return parseFloat(lit, off)
	}
	return nil, p.unexpected()
}

func (p *parser) object(depth int) (any, error) {
	if depth >= MaxDepth {
		return nil, errAt(ErrTooDeep, p.pos, "more than %d nested containers", MaxDepth)
	}
	p.pos++
	m := map[string]any{}
	// A duplicate is reported when the object closes, as the streaming
	// transform does, so both paths refuse malformed input by one class.
	var dup error
	p.ws()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return m, nil
	}
	for {
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return nil, p.unexpected()
		}
		off := p.pos
		var err error
		p.buf, err = p.str(p.buf[:0], true)
		if err != nil {
			return nil, err
		}
		k := string(p.buf)
		if _, seen := m[k]; seen && dup == nil {
			dup = errAt(ErrDuplicateKey, off, "duplicate key %q", k)
		}
		p.ws()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, p.unexpected()
		}
		p.pos++
		p.ws()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		m[k] = v
		p.ws()
		if p.pos < len(p.data) {
			switch p.data[p.pos] {
			case ',':
				p.pos++
				p.ws()
				continue
			case '}':
				p.pos++
				if dup != nil {
					return nil, dup
				}
				return m, nil
			}
		}
		return nil, p.unexpected()
	}
}

func (p *parser) array(depth int) (any, error) {
	if depth >= MaxDepth {
		return nil, errAt(ErrTooDeep, p.pos, "more than %d nested containers", MaxDepth)
	}
	p.pos++
	a := []any{}
	p.ws()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return a, nil
	}
	for {
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		a = append(a, v)
		p.ws()
		if p.pos < len(p.data) {
			switch p.data[p.pos] {
			case ',':
				p.pos++
				p.ws()
				continue
			case ']':
				p.pos++
				return a, nil
			}
		}
		return nil, p.unexpected()
	}
}
