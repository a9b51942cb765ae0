package agentrun

import (
	"os"
	"regexp"
	"slices"
	"testing"
)

// TestMappingDocTable holds the code → kind table of docs/agent-run-mapping.md
// equal to ClassOf: the same codes, the same kinds and attributions.
func TestMappingDocTable(t *testing.T) {
	b, err := os.ReadFile("../../docs/agent-run-mapping.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `([A-Z_]+)` \\| [a-z_]+ \\| ([a-z-]+) \\| ([a-z]+) \\|$")
	var documented []string
	for _, m := range row.FindAllStringSubmatch(string(b), -1) {
		code, kind, by := m[1], m[2], m[3]
		documented = append(documented, code)
		c, ok := ClassOf(code)
		if !ok {
			t.Errorf("docs map %s, which the code does not know", code)
			continue
		}
		if c.Kind != kind || c.AttributableTo != by {
			t.Errorf("%s: docs say %s/%s, code says %s/%s", code, kind, by, c.Kind, c.AttributableTo)
		}
	}
	slices.Sort(documented)
	if got, want := len(slices.Compact(documented)), len(documented); got != want {
		t.Errorf("the docs table lists a code twice")
	}
	for _, code := range Codes() {
		if _, found := slices.BinarySearch(documented, code); !found {
			t.Errorf("%s is in the code's table but not in docs/agent-run-mapping.md", code)
		}
	}
}

// Codes returns every finding code in the table, sorted.
func Codes() []string {
	out := make([]string, 0, len(codeClasses()))
	for c := range codeClasses() {
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}
