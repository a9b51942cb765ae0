package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/obaudit/obaudit/internal/upstreamtest"
)

// TestReportMarksCarried: a record this build reads but does not re-grade
// (contract 1) is rendered with its verdict marked as carried, never as
// established; an episode of this build, re-graded, carries no such mark.
func TestReportMarksCarried(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	const mark = "CARRIED, NOT RE-DERIVED"
	render := func(artefact, page string) string {
		t.Helper()
		if code, _, errs := obaudit("report", artefact, "--html", page); code != exitOK {
			t.Fatalf("report %s: exit %d: %s", artefact, code, errs)
		}
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if err := os.WriteFile("c1.json", upstreamtest.Read(t, "artifact1-reference-V1.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := render("c1.json", "c1.html"); !strings.Contains(got, mark) || !strings.Contains(got, "evaluation: contract 1 is read, not re-graded") {
		t.Error("a contract-1 record's page does not say its evaluation is carried")
	}
	if code, _, errs := obaudit("run", "--scenario", "V1", "--output", "own.json"); code != exitOK {
		t.Fatalf("run: exit %d: %s", code, errs)
	}
	if got := render(filepath.Join(dir, "own.json"), "own.html"); strings.Contains(got, mark) {
		t.Error("a re-graded episode's page is marked carried")
	}
}
