package execledger

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/obaudit/obaudit/internal/jsonfield"
	"github.com/obaudit/obaudit/refusal"
)

// maxScanDepth is the deepest a row's payload may nest (upstream: 32).
const maxScanDepth = 32

// Scan is the recursive forbidden-content scanner (upstream
// assert_no_secret_material). It walks every object key and string value at
// every depth of v and refuses, with [ErrForbiddenContent], any string longer
// than [MaxTextCharacters] code points or one that looks like an
// Authorization header, a bearer credential, an API key, a secret or
// password field, or an OpenAI-style key literal. The offending value is
// never quoted. Nesting deeper than 32 is refused with [ErrSchema].
func Scan(v any, context string) error {
	return scan(v, context, 0)
}

func scan(v any, where string, depth int) error {
	if depth > maxScanDepth {
		return refusal.New(ErrSchema, "%s: a ledger payload is nested too deeply", where)
	}
	switch x := v.(type) {
	case string:
		if label := forbidden(x); label != "" {
			return refusal.New(ErrForbiddenContent, "%s: %s; no credential, header or provider prose reaches an execution ledger (the value is not quoted)", where, label)
		}
	case map[string]any:
		for k, el := range x {
			if label := forbidden(k); label != "" {
				return refusal.New(ErrForbiddenContent, "%s: a field name is %s (not quoted)", where, label)
			}
			if err := scan(el, where+"."+k, depth+1); err != nil {
				return err
			}
		}
	case []any:
		for i, el := range x {
			if err := scan(el, where+"["+strconv.Itoa(i)+"]", depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// forbidden returns the label of the first rule s breaks, or "".
//
// Matching follows upstream's Python patterns: case-insensitive with
// Python's simple case folding (so U+212A KELVIN SIGN is a "k", U+017F LONG S
// an "s", U+0130 and U+0131 are "i"), and word boundaries where a word
// character is a Unicode letter or number or '_'.
func forbidden(s string) string {
	n := utf8.RuneCountInString(s)
	if n > MaxTextCharacters {
		return "text longer than 256 characters"
	}
	// n == len(s): no multi-byte character (a byte that is no UTF-8 counts
	// as one character and folds to no letter), so the byte filter holds.
	if n == len(s) && !asciiCandidate(s) {
		return ""
	}
	// Fold into a buffer of runes (lowered), for the word-boundary rules.
	var stack [64]rune
	f := stack[:0]
	for _, r := range s {
		f = append(f, fold(r))
	}
	if containsFold(f, "authoriz") {
		return "an Authorization header"
	}
	if wordIn(f, "bearer") {
		return "a bearer credential"
	}
	if apiKey(f) {
		return "an API key"
	}
	if wordIn(f, "secret") || wordIn(f, "passwd") || wordIn(f, "password") {
		return "a secret or password field"
	}
	if skKey(s) {
		return "an OpenAI-style key literal"
	}
	return ""
}

// asciiCandidate is a cheap filter: an ASCII string can only break a rule if
// it holds one of these letters sequences somewhere (case-insensitively).
func asciiCandidate(s string) bool {
	// Every pattern needs one of t, i, r, k or w ("authoriz", "bearer",
	// "api", "secret", "passw", "sk-"); hex digests hold none of them.
	hit := false
	for i := 0; i < len(s) && !hit; i++ {
		switch s[i] {
		case 't', 'T', 'i', 'I', 'r', 'R', 'k', 'K', 'w', 'W':
			hit = true
		}
	}
	if !hit {
		return false
	}
	for i := 0; i+2 < len(s); i++ {
		a := s[i] | 0x20
		if a != 'a' && a != 'b' && a != 's' && a != 'p' {
			continue
		}
		b, c := s[i+1]|0x20, s[i+2]|0x20
		switch {
		case a == 'a' && b == 'u' && c == 't',
			a == 'a' && b == 'p' && c == 'i',
			a == 'b' && b == 'e' && c == 'a',
			a == 's' && b == 'e' && c == 'c',
			a == 's' && b == 'k' && s[i+2] == '-',
			a == 'p' && b == 'a' && c == 's':
			return true
		}
	}
	return false
}

func fold(r rune) rune {
	switch {
	case r < utf8.RuneSelf:
		if r >= 'A' && r <= 'Z' {
			return r + 32
		}
		return r
	case r == 0x131: // dotless i
		return 'i'
	case r == 0x17f: // long s
		return 's'
	}
	return unicode.ToLower(r)
}

func isWord(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r)
}

func isSpace(r rune) bool {
	// Python str.isspace: Unicode White_Space plus the separators 0x1c-0x1f.
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}

func matchAt(f []rune, i int, w string) bool {
	if i+len(w) > len(f) {
		return false
	}
	for j := 0; j < len(w); j++ {
		if f[i+j] != rune(w[j]) {
			return false
		}
	}
	return true
}

func containsFold(f []rune, w string) bool {
	for i := 0; i+len(w) <= len(f); i++ {
		if matchAt(f, i, w) {
			return true
		}
	}
	return false
}

func wordIn(f []rune, w string) bool {
	for i := 0; i+len(w) <= len(f); i++ {
		if !matchAt(f, i, w) {
			continue
		}
		if i > 0 && isWord(f[i-1]) {
			continue
		}
		if e := i + len(w); e < len(f) && isWord(f[e]) {
			continue
		}
		return true
	}
	return false
}

// apiKey matches api[\s_-]?key.
func apiKey(f []rune) bool {
	for i := 0; i+6 <= len(f); i++ {
		if !matchAt(f, i, "api") {
			continue
		}
		j := i + 3
		if matchAt(f, j, "key") {
			return true
		}
		if j < len(f) && (f[j] == '_' || f[j] == '-' || isSpace(f[j])) && matchAt(f, j+1, "key") {
			return true
		}
	}
	return false
}

// skKey matches sk-[A-Za-z0-9_-]{8,}, case-sensitively.
func skKey(s string) bool {
	for i := 0; i+3 <= len(s); i++ {
		if s[i] != 's' || s[i+1] != 'k' || s[i+2] != '-' {
			continue
		}
		n := 0
		for j := i + 3; j < len(s); j++ {
			c := s[j]
			if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' {
				n++
				if n >= 8 {
					return true
				}
				continue
			}
			break
		}
	}
	return false
}

// isToken reports whether s is a bounded identifier: 1–256 characters of
// [A-Za-z0-9._:@/+-].
func isToken(s string) bool {
	if len(s) == 0 || len(s) > MaxTextCharacters {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			continue
		}
		switch c {
		case '.', '_', ':', '@', '/', '+', '-':
			continue
		}
		return false
	}
	return true
}

// IsDigest reports whether s is 64 lowercase hexadecimal characters.
func IsDigest(s string) bool { return jsonfield.IsLowerHex(s, 64) }

// isPrefixedID reports whether s is prefix followed by 32 lowercase hex.
func isPrefixedID(s, prefix string) bool {
	return strings.HasPrefix(s, prefix) && jsonfield.IsLowerHex(s[len(prefix):], 32)
}

// isLedgerURL matches https://host[:port][/path] with host [A-Za-z0-9.-]+ and
// path [A-Za-z0-9._~/-]*; no query, fragment or userinfo.
func isLedgerURL(s string) bool {
	const p = "https://"
	if len(s) <= len(p) || s[:len(p)] != p {
		return false
	}
	i := len(p)
	start := i
	for i < len(s) && (s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z' || s[i] >= '0' && s[i] <= '9' || s[i] == '.' || s[i] == '-') {
		i++
	}
	if i == start {
		return false
	}
	if i < len(s) && s[i] == ':' {
		i++
		d := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == d {
			return false
		}
	}
	if i == len(s) {
		return true
	}
	if s[i] != '/' {
		return false
	}
	for ; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '~' || c == '/' || c == '-') {
			return false
		}
	}
	return true
}
