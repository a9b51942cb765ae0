package limits_test

import (
	"strings"
	"testing"

	"github.com/obaudit/obaudit/internal/limits"
	"github.com/obaudit/obaudit/internal/upstreamtest"
	"github.com/obaudit/obaudit/refusal"
)

// TestCheckDensity: arrays and objects of tiny values are refused before
// any parse; the artefacts upstream writes, and values packed inside
// strings, are not.
func TestCheckDensity(t *testing.T) {
	n := 1 << 20
	for _, c := range []struct {
		name string
		doc  string
		want bool // refused
	}{
		{"zeros", "[" + strings.Repeat("0,", n) + "0]", true},
		{"empty objects", "[" + strings.Repeat("{},", n) + "{}]", true},
		{"empty arrays", "[" + strings.Repeat("[],", n) + "[]]", true},
		{"commas in a string", `{"a":"` + strings.Repeat(",[{", n) + `"}`, false},
		{"escaped quote", `{"a":"\"` + strings.Repeat(",", n) + `"}`, false},
		{"small dense", "[" + strings.Repeat("0,", 1000) + "0]", false},
		// Each byte counted alone: the bound CheckDensity tries first
		// counts all three.
		{"nested arrays", strings.Repeat("[", n) + strings.Repeat("]", n), true},
		{"open braces", strings.Repeat("{", n), true},
		{"commas", strings.Repeat(",", n), true},
	} {
		err := limits.CheckDensity(c.name, []byte(c.doc))
		if got, _ := refusal.ClassOf(err); (got == limits.ErrExceeded.Class) != c.want {
			t.Errorf("%s: CheckDensity = %v, want refused %v", c.name, err, c.want)
		}
	}
	for _, f := range []string{"artifact8-deterministic-reference-v1.json", "artifact8-fake-openai-reference-v1.json", "artifact1-reference-V1.json"} {
		if err := limits.CheckDensity(f, upstreamtest.Read(t, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}
