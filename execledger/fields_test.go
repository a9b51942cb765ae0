package execledger_test

import (
	"flag"
	"fmt"
	"slices"
	"testing"

	"github.com/obaudit/obaudit/execledger"
	"github.com/obaudit/obaudit/internal/fieldtable"
)

var updateFieldTable = flag.Bool("update-field-table", false, "rewrite SECURITY.md's ledger field table")

// TestFieldTable: every field the ledger reader enforces has exactly one
// row in the field table, and SECURITY.md carries the same rows.
func TestFieldTable(t *testing.T) {
	var rows, fields []string
	for _, k := range execledger.FieldKinds() {
		if slices.Contains(fields, k.Field) {
			t.Errorf("%s has two rows", k.Field)
		}
		fields = append(fields, k.Field)
		for _, kind := range []string{k.Ledger, k.Bundle} {
			if kind != execledger.Covered && kind != execledger.Derived && kind != execledger.Carried {
				t.Errorf("%s: kind %q", k.Field, kind)
			}
		}
		rows = append(rows, fmt.Sprintf("| `/%s` | %s | %s |", k.Field, k.Ledger, k.Bundle))
	}
	want := execledger.TableFields()
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
	if err := fieldtable.Check("../SECURITY.md", "ledger-fields", rows, *updateFieldTable); err != nil {
		t.Error(err)
	}
}
