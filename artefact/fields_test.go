package artefact_test

import (
	"flag"
	"fmt"
	"slices"
	"testing"

	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/internal/fieldtable"
)

var updateFieldTable = flag.Bool("update-field-table", false, "rewrite SECURITY.md's artefact field table")

// TestFieldTable: every contract-8 field the reader enforces has exactly
// one row in the field table, with one kind per reader, and SECURITY.md
// carries the same rows.
func TestFieldTable(t *testing.T) {
	var rows, fields []string
	for _, k := range artefact.FieldKinds() {
		if slices.Contains(fields, k.Field) {
			t.Errorf("%s has two rows", k.Field)
		}
		fields = append(fields, k.Field)
		for _, kind := range []string{k.Validate, k.Replay, k.Bundle} {
			if kind != artefact.Covered && kind != artefact.Derived && kind != artefact.Carried {
				t.Errorf("%s: kind %q", k.Field, kind)
			}
		}
		rows = append(rows, fmt.Sprintf("| `/%s` | %s | %s | %s |", k.Field, k.Validate, k.Replay, k.Bundle))
	}
	want := artefact.TableFields()
	for _, f := range want {
		if !slices.Contains(fields, f) {
			t.Errorf("field %s has no row in the field table", f)
		}
	}
	for _, f := range fields {
		if !slices.Contains(want, f) {
			t.Errorf("row %s names no field of the format", f)
		}
	}
	if err := fieldtable.Check("../SECURITY.md", "artefact-fields", rows, *updateFieldTable); err != nil {
		t.Error(err)
	}
}

func TestModelAgentID(t *testing.T) {
	for _, c := range [][3]string{
		{"openai", "gpt-5.6-luna", "openai-gpt-5-6-luna"},
		{"acme", "Model_5.1", "acme--odel-5-1"},
	} {
		if got := artefact.ModelAgentID(c[0], c[1]); got != c[2] {
			t.Errorf("ModelAgentID(%q, %q) = %q, want %q", c[0], c[1], got, c[2])
		}
	}
}
