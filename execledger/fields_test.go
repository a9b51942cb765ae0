package execledger_test

import (
	"flag"
	"testing"

	"github.com/obaudit/obaudit/execledger"
	"github.com/obaudit/obaudit/format/fieldkind"
	"github.com/obaudit/obaudit/internal/fieldtable"
)

var updateFieldTable = flag.Bool("update-field-table", false, "rewrite SECURITY.md's ledger field table")

// TestFieldTable: every field the ledger reader enforces has exactly one
// row in the field table, and SECURITY.md carries the same rows.
func TestFieldTable(t *testing.T) {
	var table []fieldtable.Row
	for _, k := range execledger.FieldKinds() {
		table = append(table, fieldtable.Row{Field: k.Field, Kinds: []string{k.Ledger, k.Bundle}})
	}
	rows, problems := fieldtable.Rows(table, execledger.TableFields(), fieldkind.Covered, fieldkind.Derived, fieldkind.Carried)
	for _, err := range problems {
		t.Error(err)
	}
	if err := fieldtable.Check("../SECURITY.md", "ledger-fields", rows, *updateFieldTable); err != nil {
		t.Error(err)
	}
}
