package maintenance

import (
	"bytes"
	"errors"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/obaudit/obaudit/refusal"
	"go.yaml.in/yaml/v3"
)

// maxYAMLDepth bounds nesting in an operation spec.
const maxYAMLDepth = 64

var (
	// Upstream reads specs with PyYAML (YAML 1.1 scalars). Plain scalars are
	// resolved here the way both YAML 1.1 and 1.2 agree on; a plain scalar
	// the two read differently is refused rather than guessed.
	reNull    = regexp.MustCompile(`^(?:~|null|Null|NULL|)$`)
	reBool11  = regexp.MustCompile(`^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$`)
	reInt     = regexp.MustCompile(`^[-+]?(?:0|[1-9][0-9]*)$`)
	reInt11   = regexp.MustCompile(`^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+|0o[0-7]+)$`)
	reFloat   = regexp.MustCompile(`^[-+]?[0-9]+\.[0-9]*(?:[eE][-+][0-9]+)?$`)
	reFloat11 = regexp.MustCompile(`^(?:[-+]?(?:[0-9][0-9_]*)?\.[0-9_]*(?:[eE][-+]?[0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)|[-+]?[0-9]+[eE][-+]?[0-9]+)$`)
	reStamp   = regexp.MustCompile(`^(?:[0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)$`)
)

// parseYAML reads one strict YAML document into a canon tree.
func parseYAML(b []byte, source string) (map[string]any, error) {
	dec := yaml.NewDecoder(bytes.NewReader(b))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, refusal.New(ErrFormat, "%s: the document is empty", source)
		}
		return nil, refusal.New(ErrFormat, "%s: %v", source, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, refusal.New(ErrFormat, "%s: more than one YAML document", source)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return nil, refusal.New(ErrFormat, "%s: not one YAML document", source)
	}
	v, err := convertNode(doc.Content[0], source, 0)
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, refusal.New(ErrFormat, "%s: the document is not a mapping", source)
	}
	return m, nil
}

func at(source string, n *yaml.Node) string {
	return source + ":" + strconv.Itoa(n.Line) + ":" + strconv.Itoa(n.Column)
}

func convertNode(n *yaml.Node, source string, depth int) (any, error) {
	if depth > maxYAMLDepth {
		return nil, refusal.New(ErrFormat, "%s: nesting deeper than %d", at(source, n), maxYAMLDepth)
	}
	if n.Anchor != "" || n.Kind == yaml.AliasNode {
		return nil, refusal.New(ErrFormat, "%s: anchors and aliases are not accepted", at(source, n))
	}
	if n.Style&yaml.TaggedStyle != 0 {
		return nil, refusal.New(ErrFormat, "%s: explicit tag %s is not accepted", at(source, n), n.Tag)
	}
	switch n.Kind {
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			kn, vn := n.Content[i], n.Content[i+1]
			if kn.Kind != yaml.ScalarNode {
				return nil, refusal.New(ErrFormat, "%s: a mapping key must be a string", at(source, kn))
			}
			kv, err := convertNode(kn, source, depth+1)
			if err != nil {
				return nil, err
			}
			k, ok := kv.(string)
			if !ok {
				return nil, refusal.New(ErrFormat, "%s: mapping key %q is not a string", at(source, kn), kn.Value)
			}
			if k == "<<" && kn.Style == 0 {
				return nil, refusal.New(ErrFormat, "%s: merge keys are not accepted", at(source, kn))
			}
			if _, dup := m[k]; dup {
				return nil, refusal.New(ErrDuplicateKey, "%s: key %q appears twice in one mapping", at(source, kn), k)
			}
			v, err := convertNode(vn, source, depth+1)
			if err != nil {
				return nil, err
			}
			m[k] = v
		}
		return m, nil
	case yaml.SequenceNode:
		l := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := convertNode(c, source, depth+1)
			if err != nil {
				return nil, err
			}
			l = append(l, v)
		}
		return l, nil
	case yaml.ScalarNode:
		return scalar(n, source)
	}
	return nil, refusal.New(ErrFormat, "%s: unsupported YAML node", at(source, n))
}

func scalar(n *yaml.Node, source string) (any, error) {
	s := n.Value
	if n.Style != 0 { // quoted, literal or folded: a string
		return s, nil
	}
	switch {
	case reNull.MatchString(s):
		return nil, nil
	case reBool11.MatchString(s):
		switch strings.ToLower(s) {
		case "true", "yes", "on":
			return true, nil
		}
		return false, nil
	case reInt.MatchString(s):
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil || v > 1<<53-1 || v < -(1<<53-1) {
			return nil, refusal.New(ErrSchema, "%s: integer %s is out of range", at(source, n), s)
		}
		return v, nil
	case reInt11.MatchString(s):
		return nil, refusal.New(ErrAmbiguousScalar, "%s: %q is an integer in YAML 1.1 and not the same one (or not one) in YAML 1.2; quote it or write it in decimal", at(source, n), s)
	case reStamp.MatchString(s):
		return nil, refusal.New(ErrNonStringInstant, "%s: %q is an unquoted YAML timestamp; an instant is a quoted \"YYYY-MM-DDTHH:MM:SSZ\" string", at(source, n), s)
	case reFloat.MatchString(s):
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, refusal.New(ErrSchema, "%s: %q is not a finite number", at(source, n), s)
		}
		return f, nil
	case reFloat11.MatchString(s):
		return nil, refusal.New(ErrAmbiguousScalar, "%s: %q is a float in YAML 1.1 that YAML 1.2 reads differently; quote it or write it plainly", at(source, n), s)
	}
	return s, nil
}
