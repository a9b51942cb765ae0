package execledger

import "unicode/utf8"

// recoverablePrefix reports whether b is a strict prefix of one JSON object
// (upstream's recoverable-prefix test): it starts with '{', has no lexical
// error so far, is not already a complete object, and if it ends inside a
// multi-byte UTF-8 sequence that cut is a valid code-point prefix inside a
// string. It decides whether a final line without its newline is a torn
// write (the verified prefix before it stands) or corruption (refused). It
// is a push-down automaton with an explicit stack: linear time, no recursion.
func recoverablePrefix(b []byte) bool {
	if len(b) == 0 {
		return true
	}
	if b[0] != '{' {
		return false
	}
	const (
		sValue        = iota // expecting a value
		sValueOrClose        // after '['
		sKeyOrClose          // after '{'
		sKey                 // after ',' in an object
		sColon               // after a key
		sCommaOrEnd          // after a value
		sString
		sEscape
		sUnicode
		sNumber
		sLiteral
		sDone
	)
	var stack []byte
	state := sValue
	strIsKey := false
	uniLeft := 0
	lit, litPos := "", 0
	// number sub-state
	const (
		nSign = iota
		nZero
		nInt
		nDot
		nFrac
		nE
		nESign
		nExp
	)
	num := 0
	// afterValue moves to the state following a completed value.
	afterValue := func() {
		if len(stack) == 0 {
			state = sDone
		} else {
			state = sCommaOrEnd
		}
	}
	isWS := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
	i := 0
	for i < len(b) {
		c := b[i]
		switch state {
		case sString:
			switch {
			case c == '"':
				if strIsKey {
					state = sColon
				} else {
					afterValue()
				}
			case c == '\\':
				state = sEscape
			case c < 0x20:
				return false
			case c >= 0x80:
				// FullRune is false only for a valid prefix of an encoding.
				if !utf8.FullRune(b[i:]) { // a valid cut at the very end, inside a string
					return true
				}
				r, n := utf8.DecodeRune(b[i:])
				if r == utf8.RuneError && n == 1 {
					return false
				}
				i += n
				continue
			}
		case sEscape:
			switch c {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				state = sString
			case 'u':
				state, uniLeft = sUnicode, 4
			default:
				return false
			}
		case sUnicode:
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return false
			}
			if uniLeft--; uniLeft == 0 {
				state = sString
			}
		case sLiteral:
			if c != lit[litPos] {
				return false
			}
			if litPos++; litPos == len(lit) {
				afterValue()
			}
		case sNumber:
			digit := c >= '0' && c <= '9'
			switch {
			case num == nSign && digit:
				num = nInt
				if c == '0' {
					num = nZero
				}
			case num == nSign:
				return false
			case (num == nInt) && digit, (num == nFrac || num == nDot) && digit, (num == nExp || num == nE || num == nESign) && digit:
				switch num {
				case nDot:
					num = nFrac
				case nE, nESign:
					num = nExp
				}
			case num == nZero && digit:
				return false // leading zero
			case (num == nZero || num == nInt) && c == '.':
				num = nDot
			case (num == nZero || num == nInt || num == nFrac) && (c == 'e' || c == 'E'):
				num = nE
			case num == nE && (c == '+' || c == '-'):
				num = nESign
			case num == nDot || num == nE || num == nESign:
				return false
			default:
				// the number ended; re-read c as a delimiter
				afterValue()
				continue
			}
		case sDone:
			if !isWS(c) {
				return false
			}
		default:
			if isWS(c) {
				break
			}
			switch state {
			case sValue, sValueOrClose:
				switch {
				case c == ']' && state == sValueOrClose: // an empty array
					stack = stack[:len(stack)-1]
					afterValue()
				case c == '{':
					stack = append(stack, '{')
					state = sKeyOrClose
				case c == '[':
					stack = append(stack, '[')
					state = sValueOrClose
				case c == '"':
					state, strIsKey = sString, false
				case c == 't':
					state, lit, litPos = sLiteral, "true", 1
				case c == 'f':
					state, lit, litPos = sLiteral, "false", 1
				case c == 'n':
					state, lit, litPos = sLiteral, "null", 1
				case c == '-' || c >= '0' && c <= '9':
					state, num = sNumber, nSign
					if c != '-' {
						continue // the first digit, read as the number's
					}
				default:
					return false
				}
			case sKeyOrClose, sKey:
				switch {
				case c == '"':
					state, strIsKey = sString, true
				case c == '}' && state == sKeyOrClose:
					stack = stack[:len(stack)-1]
					afterValue()
				default:
					return false
				}
			case sColon:
				if c != ':' {
					return false
				}
				state = sValue
			case sCommaOrEnd:
				top := stack[len(stack)-1]
				switch {
				case c == ',' && top == '{':
					state = sKey
				case c == ',' && top == '[':
					state = sValue
				case c == '}' && top == '{', c == ']' && top == '[':
					stack = stack[:len(stack)-1]
					afterValue()
				default:
					return false
				}
			}
		}
		i++
	}
	// A number may be complete at the end (e.g. "{\"x\":1"): still a prefix.
	return state != sDone
}
