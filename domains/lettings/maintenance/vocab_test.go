package maintenance

import (
	"math/rand/v2"
	"testing"
)

// TestPayloadProblem holds payloadProblem's verdict to the oracle fits over
// every event and action schema, with payloads drawn from valid, mistyped,
// empty, null, missing and unknown fields, and its unknown-field flag to
// whether the payload has a field the schema does not name.
func TestPayloadProblem(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	values := []any{"x", "", nil, int64(0), int64(7), true, false, 1.5, []any{}, map[string]any{}}
	schemas := map[string]payloadSchema{}
	for k, s := range eventPayloadSchemas() {
		schemas["event "+k] = s
	}
	for k, s := range actionPayloadSchemas() {
		schemas["action "+k] = s
	}
	for name, s := range schemas {
		for k := range s.required {
			if _, both := s.optional[k]; both {
				t.Errorf("%s: %s is both required and optional", name, k)
			}
		}
		fields := append([]string{}, s.checkOrder...)
		fields = append(fields, "unknown_field")
		for i := 0; i < 3000; i++ {
			p := map[string]any{}
			for _, f := range fields {
				switch r.IntN(4) {
				case 0: // absent
				case 1, 2: // a value of the declared kind
					switch kind := s.required[f] + s.optional[f]; kind {
					case kString, kOptString:
						p[f] = "v"
					case kInteger:
						p[f] = int64(3)
					case kBoolean:
						p[f] = true
					}
				default:
					p[f] = values[r.IntN(len(values))]
				}
			}
			problem, unknownField := payloadProblem(s, p, name, "what")
			if want := fits(s, p); (problem == "") != want {
				t.Fatalf("%s %v: problem %q, want fits = %v", name, p, problem, want)
			}
			if _, has := p["unknown_field"]; unknownField != has {
				t.Fatalf("%s %v: unknown field flag %v", name, p, unknownField)
			}
		}
	}
}

// fits is the oracle: a payload fits its schema when every field is
// known, every required field present, every value of its kind (an
// optional string may be null) and no string empty.
func fits(s payloadSchema, payload map[string]any) bool {
	for k, v := range payload {
		kind, ok := s.required[k]
		if !ok {
			if kind, ok = s.optional[k]; !ok {
				return false
			}
		}
		switch kind {
		case kOptString:
			if v == nil {
				continue
			}
			if x, ok := v.(string); !ok || x == "" {
				return false
			}
		case kString:
			if x, ok := v.(string); !ok || x == "" {
				return false
			}
		case kInteger:
			if _, ok := v.(int64); !ok {
				return false
			}
		case kBoolean:
			if _, ok := v.(bool); !ok {
				return false
			}
		default:
			return false
		}
	}
	for k := range s.required {
		if _, ok := payload[k]; !ok {
			return false
		}
	}
	return true
}
