package artefact

import (
	"slices"

	"github.com/obaudit/obaudit/canon"
)

// FieldKinds returns the contract-8 field table, in document order.
func FieldKinds() []FieldKind { return slices.Clone(fieldKinds) }

// TableFields returns every field pointer the table must have a row for:
// the contract-8 top-level fields, with operation, agent_execution (and its
// attempts) and provider_execution expanded to their exact field sets.
func TableFields() []string {
	var out []string
	expand := map[string][]string{"operation": operationFields, "agent_execution": executionFields, "provider_execution": bindingFields}
	for _, f := range fieldsV7 {
		sub, ok := expand[f]
		if !ok {
			out = append(out, f)
			continue
		}
		for _, s := range sub {
			if f == "agent_execution" && s == "attempts" {
				for _, a := range attemptFields {
					out = append(out, f+"/attempts/[]/"+a)
				}
				continue
			}
			out = append(out, f+"/"+s)
		}
	}
	return out
}

// Clone returns a deep copy of a JSON tree.
var Clone = canon.Clone

// Dimensions returns the result vector contract v graded, in order.
func Dimensions(v int) []string {
	switch {
	case v == 1:
		return slices.Clone(dimensionsV1)
	case v >= 2 && v <= 5:
		return slices.Clone(dimensionsV2)
	case v >= 6 && v <= 8:
		return slices.Clone(dimensionsV6)
	}
	return nil
}
