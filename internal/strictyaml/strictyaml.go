// Package strictyaml reads one YAML document into a canon tree (nil, bool,
// string, int64, float64, []any, map[string]any) and refuses what hides
// structure or what two readers could read differently: an empty document,
// several documents, anchors and aliases, explicit tags, a mapping key that
// is not a string or is given twice, YAML 1.1 merge keys (where asked), and
// nesting beyond a bound. Only a mapping is accepted as the document.
//
// Quoted, literal and folded scalars are strings. What a plain scalar is
// (a null, a boolean, a number, text) is the caller's to say through
// [Reader.Plain]: the formats read with this package resolve YAML 1.1 and
// YAML 1.2 differences each in their own way.
//
// # Refusals
//
// The classes are the caller's: [Reader.Malformed] for every structural
// refusal, [Reader.DuplicateKey] for a key given twice. Refusals that
// [Reader.Plain] returns are passed on unchanged.
package strictyaml

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"github.com/obaudit/obaudit/internal/limits"
	"io"
	"regexp"
	"strconv"
	"sync"

	"github.com/obaudit/obaudit/refusal"
	"go.yaml.in/yaml/v3"
)

// A Reader reads strict YAML documents. Malformed, MaxDepth and Plain are
// required.
type Reader struct {
	// Malformed is the class of every structural refusal.
	Malformed *refusal.Refusal
	// DuplicateKey is the class of a key given twice in one mapping; nil
	// means Malformed.
	DuplicateKey *refusal.Refusal
	// MaxDepth is the deepest nesting accepted (the document's mapping is
	// at depth 0).
	MaxDepth int
	// RefuseMergeKeys refuses a plain "<<" mapping key, which a YAML 1.1
	// reader merges and a YAML 1.2 reader reads as a key.
	RefuseMergeKeys bool
	// Plain returns the value of a plain (unquoted) scalar whose text is
	// value; pos ("source:line:column") is for its refusals.
	Plain func(value, pos string) (any, error)
}

// Read reads b, named source in refusals, as one YAML document holding a
// mapping. A document larger than limits.MaxYAMLBytes is refused
// (limits/exceeded) before it is parsed.
func (r *Reader) Read(b []byte, source string) (map[string]any, error) {
	if len(b) > limits.MaxYAMLBytes {
		return nil, limits.Exceeded("MaxYAMLBytes", limits.MaxYAMLBytes, int64(len(b)))
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, refusal.New(r.Malformed, "%s: the document is empty", source)
		}
		return nil, refusal.Because(r.Malformed, err, "%s", syntaxError(source, err))
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, refusal.New(r.Malformed, "%s: more than one YAML document", source)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return nil, refusal.New(r.Malformed, "%s: not one YAML document", source)
	}
	v, err := r.convert(doc.Content[0], source, 0)
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, refusal.New(r.Malformed, "%s: the document is not a mapping", source)
	}
	return m, nil
}

// yamlSyntax is the YAML parser's "yaml: line N: reason", compiled on first
// use.
var yamlSyntax = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yaml: (?:line (\d+): )?(.*)$`) })

// syntaxError says where the parser stopped and what to do, in place of
// its own "yaml: …" text.
func syntaxError(source string, err error) string {
	m := yamlSyntax().FindStringSubmatch(err.Error())
	if m == nil {
		return source + ": not well-formed YAML; correct its syntax"
	}
	if m[1] == "" {
		return fmt.Sprintf("%s: not well-formed YAML (%s); correct its syntax", source, m[2])
	}
	return fmt.Sprintf("%s:%s: not well-formed YAML (%s); correct the syntax at or just before line %s", source, m[1], m[2], m[1])
}

func at(source string, n *yaml.Node) string {
	return source + ":" + strconv.Itoa(n.Line) + ":" + strconv.Itoa(n.Column)
}

func (r *Reader) convert(n *yaml.Node, source string, depth int) (any, error) {
	if depth > r.MaxDepth {
		return nil, refusal.New(r.Malformed, "%s: nesting deeper than %d", at(source, n), r.MaxDepth)
	}
	if n.Anchor != "" || n.Kind == yaml.AliasNode {
		return nil, refusal.New(r.Malformed, "%s: anchors and aliases are not accepted", at(source, n))
	}
	if n.Style&yaml.TaggedStyle != 0 {
		return nil, refusal.New(r.Malformed, "%s: explicit tag %s is not accepted", at(source, n), n.Tag)
	}
	switch n.Kind {
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			kn, vn := n.Content[i], n.Content[i+1]
			if kn.Kind != yaml.ScalarNode {
				return nil, refusal.New(r.Malformed, "%s: a mapping key must be a string", at(source, kn))
			}
			kv, err := r.convert(kn, source, depth+1)
			if err != nil {
				return nil, err
			}
			k, ok := kv.(string)
			if !ok {
				return nil, refusal.New(r.Malformed, "%s: mapping key %q is not a string", at(source, kn), kn.Value)
			}
			if r.RefuseMergeKeys && k == "<<" && kn.Style == 0 {
				return nil, refusal.New(r.Malformed, "%s: merge keys are not accepted", at(source, kn))
			}
			if _, dup := m[k]; dup {
				return nil, refusal.New(cmp.Or(r.DuplicateKey, r.Malformed), "%s: key %q appears twice in one mapping", at(source, kn), k)
			}
			v, err := r.convert(vn, source, depth+1)
			if err != nil {
				return nil, err
			}
			m[k] = v
		}
		return m, nil
	case yaml.SequenceNode:
		l := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := r.convert(c, source, depth+1)
			if err != nil {
				return nil, err
			}
			l = append(l, v)
		}
		return l, nil
	case yaml.ScalarNode:
		if n.Style != 0 { // quoted, literal or folded (a tag was refused above): a string
			return n.Value, nil
		}
		return r.Plain(n.Value, at(source, n))
	}
	return nil, refusal.New(r.Malformed, "%s: unsupported YAML node", at(source, n))
}

// numbers11 holds the YAML 1.1 number and timestamp patterns (PyYAML's
// resolver, which upstream reads with), as [Type11] names them. They are
// compiled on first use, not at package initialisation.
var numbers11 = sync.OnceValue(func() [3]type11 {
	return [3]type11{
		{"integer", regexp.MustCompile(`^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+|0o[0-7]+)$`)},
		{"float", regexp.MustCompile(`^(?:[-+]?(?:[0-9][0-9_]*)?\.[0-9_]*(?:[eE][-+]?[0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)|[-+]?[0-9]+[eE][-+]?[0-9]+)$`)},
		{"timestamp", regexp.MustCompile(`^(?:[0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)$`)},
	}
})

// type11 is one YAML 1.1 plain-scalar type and its pattern.
type type11 struct {
	name string
	re   *regexp.Regexp
}

// Type11 returns the type YAML 1.1 gives the plain scalar s: "null",
// "boolean", "integer", "float" or "timestamp", or "" when it is a string.
// Null and boolean are fixed word lists; the number and timestamp patterns
// are disjoint, and each begins with a sign, a digit or a dot, so a scalar
// starting otherwise is a string without being matched (PyYAML dispatches
// its resolvers on the first character the same way).
func Type11(s string) string {
	switch s {
	case "", "~", "null", "Null", "NULL":
		return "null"
	case "yes", "Yes", "YES", "no", "No", "NO", "true", "True", "TRUE", "false", "False", "FALSE", "on", "On", "ON", "off", "Off", "OFF":
		return "boolean"
	}
	if c := s[0]; c != '-' && c != '+' && c != '.' && (c < '0' || c > '9') {
		return ""
	}
	for _, t := range numbers11() {
		if t.re.MatchString(s) {
			return t.name
		}
	}
	return ""
}
