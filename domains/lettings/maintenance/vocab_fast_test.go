package maintenance

import (
	"math/rand/v2"
	"testing"
)

// TestPayloadOKAgreesWithProblem holds the allocation-free payload check to
// the full payloadProblem over every event and action schema, with payloads
// drawn from valid, mistyped, empty, null, missing and unknown fields.
func TestPayloadOKAgreesWithProblem(t *testing.T) {
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
		fields := append(append([]string{}, s.requiredOrder...), s.optionalOrder...)
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
			problem, _ := fullPayloadProblem(s, p, name, "what")
			if got := payloadOK(s, p); got != (problem == "") {
				t.Fatalf("%s %v: payloadOK = %v, problem %q", name, p, got, problem)
			}
		}
	}
}
