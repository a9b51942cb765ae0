package artefact_test

import (
	"flag"
	"testing"

	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/format/fieldkind"
	"github.com/obaudit/obaudit/internal/fieldtable"
)

var updateFieldTable = flag.Bool("update-field-table", false, "rewrite SECURITY.md's artefact field table")

// TestFieldTable: every contract-8 field the reader enforces has exactly
// one row in the field table, with one kind per reader, and SECURITY.md
// carries the same rows.
func TestFieldTable(t *testing.T) {
	var table []fieldtable.Row
	for _, k := range artefact.FieldKinds() {
		table = append(table, fieldtable.Row{Field: k.Field, Kinds: []string{k.Validate, k.Replay, k.Bundle}})
	}
	rows, problems := fieldtable.Rows(table, artefact.TableFields(), fieldkind.Covered, fieldkind.Derived, fieldkind.Carried)
	for _, err := range problems {
		t.Error(err)
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
