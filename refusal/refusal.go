// Package refusal defines the one error kind obaudit uses to say "this input
// is not trustworthy": a [Refusal] with a stable [Class].
//
// A class is a string of the form "area/kebab-name" (for example
// "ledger/chain-break"). Classes belong to the wire contract: they appear in
// JSON reports and on stderr as "refused: <class>: <detail>", they are listed
// in SECURITY.md, and they are never renamed, only deprecated.
//
// Refusals are a different kind from failures. An I/O error or a bug is a
// plain wrapped error and never carries a class.
//
// # Use
//
// An owning package declares its sentinels once:
//
//	var ErrChainBreak = refusal.Sentinel("ledger/chain-break")
//
// and returns instances carrying detail:
//
//	return refusal.New(ErrChainBreak, "row %d: previous digest mismatch", n)
//
// Callers read the class with [ClassOf] (or [Of]); tests assert the exact
// class, refusal.Of(err) == pkg.ErrX.Class, never messages. ([errors.Is]
// matches a class anywhere in the chain, so it also passes when a wrapper
// surfaces a different class.)
//
// Leaf packages that may not import refusal (canon) implement the
// [Classed] interface instead; [ClassOf] recognises both.
package refusal

import (
	"errors"
	"fmt"
	"strings"
	"sync"
)

// Class is a stable refusal class, "area/kebab-name".
type Class string

// Classed is implemented by any error that carries a refusal class. Packages
// that must stay free of project imports implement it on their own error type.
type Classed interface {
	error
	RefusalClass() string
}

// Refusal is a refused input: a class, a human-readable detail, and an
// optional underlying cause.
type Refusal struct {
	Class  Class
	Detail string
	Err    error
}

// Error renders "<class>: <detail>".
func (r *Refusal) Error() string {
	if r.Detail == "" {
		return string(r.Class)
	}
	return string(r.Class) + ": " + r.Detail
}

// Unwrap returns the underlying cause, if any.
func (r *Refusal) Unwrap() error { return r.Err }

// RefusalClass implements [Classed].
func (r *Refusal) RefusalClass() string { return string(r.Class) }

// Is reports whether target is a refusal of the same class. It lets
// errors.Is(err, ErrX) match any refusal built from the sentinel ErrX.
func (r *Refusal) Is(target error) bool {
	var c Classed
	return errors.As(target, &c) && c.RefusalClass() == string(r.Class)
}

var (
	mu       sync.Mutex
	registry = map[Class]bool{}
)

// ValidClass reports whether s has the form "area/kebab-name": a lowercase
// letter, then lowercase letters and digits, a slash, and one or more
// words of lowercase letters and digits joined by single hyphens. (A byte
// loop rather than a regular expression: every package's sentinels are
// checked at start-up.)
func ValidClass(s string) bool {
	area, name, ok := strings.Cut(s, "/")
	if !ok || area == "" || area[0] < 'a' || area[0] > 'z' {
		return false
	}
	for i := range len(area) {
		if !lowerAlnum(area[i]) {
			return false
		}
	}
	prev := byte('-')
	for i := range len(name) {
		c := name[i]
		if c == '-' && prev == '-' || c != '-' && !lowerAlnum(c) {
			return false
		}
		prev = c
	}
	return prev != '-'
}

func lowerAlnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }

// Sentinel registers class c and returns the sentinel refusal used to build
// and match instances of it. It is meant for package-level variable
// declarations; it panics if c is malformed or already registered, which is
// a programming error caught by the first test run, never an input error.
func Sentinel(c Class) *Refusal {
	Register(c)
	return &Refusal{Class: c}
}

// Register records classes declared by a package that cannot import refusal
// (see [Classed]). It panics on a malformed or duplicate class.
func Register(cs ...Class) {
	mu.Lock()
	defer mu.Unlock()
	for _, c := range cs {
		if !ValidClass(string(c)) {
			panic(fmt.Sprintf("refusal: malformed class %q", c))
		}
		if registry[c] {
			panic(fmt.Sprintf("refusal: class %q registered twice", c))
		}
		registry[c] = true
	}
}

// New returns a refusal of sentinel's class with a formatted detail.
func New(sentinel *Refusal, format string, args ...any) *Refusal {
	return &Refusal{Class: sentinel.Class, Detail: fmt.Sprintf(format, args...)}
}

// Wrap returns a refusal of sentinel's class that keeps err as its cause. If
// err already carries a class, the detail names it.
func Wrap(sentinel *Refusal, err error, format string, args ...any) *Refusal {
	d := fmt.Sprintf(format, args...)
	if err != nil {
		if d != "" {
			d += ": "
		}
		d += err.Error()
	}
	return &Refusal{Class: sentinel.Class, Detail: d, Err: err}
}

// Because is Wrap for a cause in a library's own terms (protobuf, x509,
// sigstore-go, tessera, YAML): err stays the cause for [errors.Is] and
// [errors.As], but the detail is only the sentence given, one a person can
// act on, never the library's text.
func Because(sentinel *Refusal, err error, format string, args ...any) *Refusal {
	return &Refusal{Class: sentinel.Class, Detail: fmt.Sprintf(format, args...), Err: err}
}

// ClassOf returns the class of the first refusal in err's chain.
func ClassOf(err error) (Class, bool) {
	var c Classed
	if errors.As(err, &c) {
		return Class(c.RefusalClass()), true
	}
	return "", false
}

// Detail returns the detail of the first refusal in err's chain, or
// err.Error() if it carries no class.
func Detail(err error) string {
	var r *Refusal
	if errors.As(err, &r) {
		return r.Detail
	}
	var c Classed
	if errors.As(err, &c) {
		return strings.TrimPrefix(c.Error(), c.RefusalClass()+": ")
	}
	if err == nil {
		return ""
	}
	return err.Error()
}

// Of returns the class of the first refusal in err's chain, or "" when err
// carries none: [ClassOf] for comparisons, refusal.Of(err) == want.
func Of(err error) Class {
	c, _ := ClassOf(err)
	return c
}
