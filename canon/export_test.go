package canon

import "math"

// What only the tests use: the whole-value encoder, the package's classes,
// and the two number formatters alone.

// Encode returns the canonical encoding of v in form f.
func Encode(v any, f Form) ([]byte, error) { return Append(nil, v, f) }

// Classes returns every class this package can raise, sorted.
func Classes() []string {
	return []string{
		ErrBOM.Class,
		ErrDuplicateKey.Class,
		ErrInvalidUTF8.Class,
		ErrLoneSurrogate.Class,
		ErrNonFinite.Class,
		ErrNumberOutOfRange.Class,
		ErrSyntax.Class,
		ErrTooDeep.Class,
		ErrTrailingData.Class,
		ErrUnsupportedValue.Class,
	}
}

// FormatES6 renders a finite float as RFC 8785 §3.2.2.3 (ECMAScript's
// Number.prototype.toString) does, without obaudit's I-JSON restriction
// (see [JCS]): the number formatter alone, as gowebpki/jcs's NumberToJSON.
func FormatES6(f float64) (string, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "", errf(ErrNonFinite, "non-finite float %v", f)
	}
	return string(appendES6(nil, f)), nil
}

// FormatPython renders a finite float as Python's repr does (the upstream
// form).
func FormatPython(f float64) (string, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "", errf(ErrNonFinite, "non-finite float %v", f)
	}
	return string(appendPython(nil, f)), nil
}
