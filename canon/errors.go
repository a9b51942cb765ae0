package canon

import "fmt"

// Error is a refusal raised by this package. It implements the
// refusal.Classed interface (RefusalClass) without importing it, so that
// canon stays a standard-library-only leaf.
type Error struct {
	Class  string // "canon/…", stable
	Detail string
	Offset int // byte offset into the input, or -1 when not from parsing
}

func (e *Error) Error() string {
	if e.Detail == "" {
		return e.Class
	}
	return e.Class + ": " + e.Detail
}

// RefusalClass returns the stable class string.
func (e *Error) RefusalClass() string { return e.Class }

// Is matches any *Error (or other classed error) of the same class.
func (e *Error) Is(target error) bool {
	t, ok := target.(interface{ RefusalClass() string })
	return ok && t.RefusalClass() == e.Class
}

// Sentinels, one per refusal class. Match with errors.Is.
var (
	// ErrSyntax: the input is not JSON (bad token, bad escape, raw control
	// character in a string, leading zero, empty input…).
	ErrSyntax = &Error{Class: "canon/syntax", Offset: -1}
	// ErrBOM: the input starts with a UTF-8 byte order mark.
	ErrBOM = &Error{Class: "canon/bom", Offset: -1}
	// ErrInvalidUTF8: a byte sequence that is not UTF-8.
	ErrInvalidUTF8 = &Error{Class: "canon/invalid-utf8", Offset: -1}
	// ErrLoneSurrogate: a \uD800–\uDFFF escape without its pair.
	ErrLoneSurrogate = &Error{Class: "canon/lone-surrogate", Offset: -1}
	// ErrDuplicateKey: an object names the same key twice (after unescaping).
	ErrDuplicateKey = &Error{Class: "canon/duplicate-key", Offset: -1}
	// ErrTooDeep: more than MaxDepth nested containers.
	ErrTooDeep = &Error{Class: "canon/too-deep", Offset: -1}
	// ErrNumberOutOfRange: an integer outside ±MaxSafeInteger.
	ErrNumberOutOfRange = &Error{Class: "canon/number-out-of-range", Offset: -1}
	// ErrNonFinite: NaN, Infinity, or a literal that overflows to infinity.
	ErrNonFinite = &Error{Class: "canon/non-finite-number", Offset: -1}
	// ErrTrailingData: anything but whitespace after the value.
	ErrTrailingData = &Error{Class: "canon/trailing-data", Offset: -1}
	// ErrUnsupportedValue: an encoder was handed a Go value that has no JSON
	// form here (a channel, a struct, a non-string key…).
	ErrUnsupportedValue = &Error{Class: "canon/unsupported-value", Offset: -1}
)

func errAt(sentinel *Error, off int, format string, args ...any) *Error {
	return &Error{Class: sentinel.Class, Detail: fmt.Sprintf("offset %d: ", off) + fmt.Sprintf(format, args...), Offset: off}
}

func errf(sentinel *Error, format string, args ...any) *Error {
	return &Error{Class: sentinel.Class, Detail: fmt.Sprintf(format, args...), Offset: -1}
}
