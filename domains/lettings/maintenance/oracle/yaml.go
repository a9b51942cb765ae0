package oracle

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"

	"github.com/obaudit/obaudit/refusal"
	"go.yaml.in/yaml/v3"
)

var sprintf = fmt.Sprintf

// maxDepth bounds nesting in a manifest (the format needs four levels).
const maxDepth = 16

// notText stands for a plain scalar YAML 1.1 reads as something other than
// a string (null, a boolean such as "yes", a number, a timestamp). Every
// leaf of a valid manifest is text, so such a value can only ever be
// refused as a malformed field; it is kept distinct so the refusal says so.
type notText struct{ raw, kind string }

var (
	reNull  = regexp.MustCompile(`^(?:~|null|Null|NULL|)$`)
	reBool  = regexp.MustCompile(`^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$`)
	reInt   = regexp.MustCompile(`^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+|0o[0-7]+)$`)
	reFloat = regexp.MustCompile(`^(?:[-+]?(?:[0-9][0-9_]*)?\.[0-9_]*(?:[eE][-+]?[0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)|[-+]?[0-9]+[eE][-+]?[0-9]+)$`)
	reStamp = regexp.MustCompile(`^(?:[0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)$`)
)

// parseYAML reads one YAML document into a canon tree whose every mapping
// key is a string. Plain scalars that YAML 1.1 does not read as strings
// become notText values.
func parseYAML(b []byte, source string) (map[string]any, error) {
	dec := yaml.NewDecoder(bytes.NewReader(b))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, refusal.New(ErrUnreadable, "%s: the document is empty", source)
		}
		return nil, refusal.New(ErrUnreadable, "%s: not readable as YAML: %v", source, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, refusal.New(ErrUnreadable, "%s: more than one YAML document", source)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return nil, refusal.New(ErrUnreadable, "%s: not one YAML document", source)
	}
	v, err := convert(doc.Content[0], source, 0)
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, refusal.New(ErrUnreadable, "%s: expected a mapping", source)
	}
	return m, nil
}

func where(source string, n *yaml.Node) string {
	return source + ":" + strconv.Itoa(n.Line) + ":" + strconv.Itoa(n.Column)
}

func convert(n *yaml.Node, source string, depth int) (any, error) {
	if depth > maxDepth {
		return nil, refusal.New(ErrUnreadable, "%s: nesting deeper than %d", where(source, n), maxDepth)
	}
	if n.Anchor != "" || n.Kind == yaml.AliasNode {
		return nil, refusal.New(ErrUnreadable, "%s: anchors and aliases are not accepted", where(source, n))
	}
	if n.Style&yaml.TaggedStyle != 0 {
		return nil, refusal.New(ErrUnreadable, "%s: explicit tag %s is not accepted", where(source, n), n.Tag)
	}
	switch n.Kind {
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			kn, vn := n.Content[i], n.Content[i+1]
			k, err := convert(kn, source, depth+1)
			if err != nil {
				return nil, err
			}
			key, ok := k.(string)
			if !ok {
				return nil, refusal.New(ErrUnreadable, "%s: a mapping key must be text", where(source, kn))
			}
			if _, dup := m[key]; dup {
				return nil, refusal.New(ErrUnreadable, "%s: key %q appears twice", where(source, kn), key)
			}
			v, err := convert(vn, source, depth+1)
			if err != nil {
				return nil, err
			}
			m[key] = v
		}
		return m, nil
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := convert(c, source, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.ScalarNode:
		if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
			return n.Value, nil
		}
		s := n.Value
		switch {
		case reNull.MatchString(s):
			return notText{s, "null"}, nil
		case reBool.MatchString(s):
			return notText{s, "boolean"}, nil
		case reInt.MatchString(s):
			return notText{s, "integer"}, nil
		case reFloat.MatchString(s):
			return notText{s, "float"}, nil
		case reStamp.MatchString(s):
			return notText{s, "timestamp"}, nil
		}
		return s, nil
	}
	return nil, refusal.New(ErrUnreadable, "%s: unsupported YAML node", where(source, n))
}
