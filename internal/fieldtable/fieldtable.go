// Package fieldtable keeps a markdown table in SECURITY.md in step with a
// field table declared in code: the rows between a pair of marker comments
// must be exactly the rows the code renders. Tests only.
package fieldtable

import (
	"fmt"
	"os"
	"slices"
	"strings"
)

// Row is one row of a field table declared in code: a field pointer and
// its kind to each reader, in column order.
type Row struct {
	Field string
	Kinds []string
}

// Rows holds a field table to the exact field set its readers enforce
// (want): every field has exactly one row, every row names a field of want,
// and every kind is one of kinds. It returns the table's markdown rows, for
// [Check], and every problem found.
func Rows(table []Row, want []string, kinds ...string) (rows []string, problems []error) {
	var fields []string
	for _, r := range table {
		if slices.Contains(fields, r.Field) {
			problems = append(problems, fmt.Errorf("%s has two rows", r.Field))
		}
		fields = append(fields, r.Field)
		for _, k := range r.Kinds {
			if !slices.Contains(kinds, k) {
				problems = append(problems, fmt.Errorf("%s: kind %q", r.Field, k))
			}
		}
		rows = append(rows, "| `/"+r.Field+"` | "+strings.Join(r.Kinds, " | ")+" |")
	}
	for _, f := range want {
		if !slices.Contains(fields, f) {
			problems = append(problems, fmt.Errorf("field %s has no row in the field table", f))
		}
	}
	for _, f := range fields {
		if !slices.Contains(want, f) {
			problems = append(problems, fmt.Errorf("row %s names no field of the format", f))
		}
	}
	return rows, problems
}

// Check compares the region of the markdown file at path between
// "<!-- begin NAME -->" and "<!-- end NAME -->" with rows. With update, it
// rewrites the region instead.
func Check(path, name string, rows []string, update bool) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	begin, end := "<!-- begin "+name+" -->\n", "<!-- end "+name+" -->"
	s := string(b)
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if i < 0 || j < i {
		return fmt.Errorf("%s has no %q … %q region", path, begin, end)
	}
	want := strings.Join(rows, "\n") + "\n"
	got := s[i+len(begin) : j]
	if got == want {
		return nil
	}
	if update {
		return os.WriteFile(path, []byte(s[:i+len(begin)]+want+s[j:]), 0o644)
	}
	gotRows := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	for _, r := range rows {
		if !slices.Contains(gotRows, r) {
			return fmt.Errorf("%s: the %s table lacks the row %q (a field added without a row, or its kind changed); regenerate with -update-field-table", path, name, r)
		}
	}
	for _, r := range gotRows {
		if !slices.Contains(rows, r) {
			return fmt.Errorf("%s: the %s table has a row the code does not declare: %q", path, name, r)
		}
	}
	return fmt.Errorf("%s: the %s table's rows are out of order; regenerate with -update-field-table", path, name)
}
