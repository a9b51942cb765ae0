package canon

import (
	"math"
	"strconv"
)

// shortest returns the shortest round-tripping decimal digits of |f| (in
// buf's storage) and the scientific exponent: |f| = d1.d2…dk × 10^sci.
func shortest(buf []byte, f float64) (digits []byte, sci int) {
	b := strconv.AppendFloat(buf[:0], math.Abs(f), 'e', -1, 64)
	// b is "d[.ddd]e±XX"
	e := len(b) - 1
	for b[e] != 'e' {
		e--
	}
	sci, _ = strconv.Atoi(string(b[e+1:]))
	if e == 1 {
		return b[:1], sci
	}
	copy(b[1:], b[2:e])
	return b[:e-1], sci
}

// appendES6 appends f as ECMAScript's Number.prototype.toString renders it
// (RFC 8785 §3.2.2.3). f must be finite.
func appendES6(dst []byte, f float64) []byte {
	if f == 0 {
		return append(dst, '0')
	}
	var buf [32]byte
	digits, sci := shortest(buf[:], f)
	if f < 0 {
		dst = append(dst, '-')
	}
	k := len(digits)
	n := sci + 1
	switch {
	case k <= n && n <= 21:
		dst = append(dst, digits...)
		dst = append(dst, zeros[:n-k]...)
	case 0 < n && n <= 21:
		dst = append(dst, digits[:n]...)
		dst = append(dst, '.')
		dst = append(dst, digits[n:]...)
	case -6 < n && n <= 0:
		dst = append(dst, '0', '.')
		dst = append(dst, zeros[:-n]...)
		dst = append(dst, digits...)
	default:
		dst = appendMantissa(dst, digits)
		if n-1 >= 0 {
			dst = append(dst, '+')
		}
		dst = strconv.AppendInt(dst, int64(n-1), 10)
	}
	return dst
}

// appendPython appends f as Python's repr(float) renders it. f must be
// finite.
func appendPython(dst []byte, f float64) []byte {
	if f == 0 {
		if math.Signbit(f) {
			return append(dst, "-0.0"...)
		}
		return append(dst, "0.0"...)
	}
	var buf [32]byte
	digits, sci := shortest(buf[:], f)
	if f < 0 {
		dst = append(dst, '-')
	}
	k := len(digits)
	switch {
	case sci >= 16 || sci < -4:
		dst = appendMantissa(dst, digits)
		if sci < 0 {
			dst = append(dst, '-')
			sci = -sci
		} else {
			dst = append(dst, '+')
		}
		if sci < 10 {
			dst = append(dst, '0')
		}
		dst = strconv.AppendInt(dst, int64(sci), 10)
	case sci >= 0:
		if k <= sci+1 {
			dst = append(dst, digits...)
			dst = append(dst, zeros[:sci+1-k]...)
			dst = append(dst, '.', '0')
		} else {
			dst = append(dst, digits[:sci+1]...)
			dst = append(dst, '.')
			dst = append(dst, digits[sci+1:]...)
		}
	default:
		dst = append(dst, '0', '.')
		dst = append(dst, zeros[:-sci-1]...)
		dst = append(dst, digits...)
	}
	return dst
}

// zeros pads a positional rendering: at most 20 zeros in either form.
const zeros = "00000000000000000000"

// appendMantissa appends the digits d1.d2…dk of an exponent form ("d1"
// alone when k is 1) and its "e".
func appendMantissa(dst, digits []byte) []byte {
	dst = append(dst, digits[0])
	if len(digits) > 1 {
		dst = append(dst, '.')
		dst = append(dst, digits[1:]...)
	}
	return append(dst, 'e')
}

func appendFloat(dst []byte, f float64, form Form) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return dst, errf(ErrNonFinite, "non-finite float %v", f)
	}
	if form == JCSForm {
		// ECMAScript writes integral values below 1e21 without an exponent;
		// beyond ±(2^53−1) that text would read back as an out-of-range
		// integer, so such a float has no I-JSON-safe RFC 8785 form.
		if a := math.Abs(f); a > MaxSafeInteger && a < 1e21 && a == math.Trunc(a) {
			return dst, errf(ErrNumberOutOfRange, "float %v would render as an integer outside ±(2^53-1)", f)
		}
		return appendES6(dst, f), nil
	}
	return appendPython(dst, f), nil
}
