package maintenance

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/obaudit/obaudit/engine"
)

// TestViewIsTheMergedRecords holds ViewOf's layered lookup to the union it
// stands for: the records of the ok results merged in tool order (a later
// tool's value wins), failed results ignored, anything else missing.
func TestViewIsTheMergedRecords(t *testing.T) {
	served := map[string]*engine.ToolResult{
		"b_tool": {OK: true, Records: map[string]any{"x": "b", "y": int64(2)}},
		"a_tool": {OK: true, Records: map[string]any{"x": "a", "z": nil}},
		"c_tool": {OK: false, Records: map[string]any{"x": "c", "w": true}},
		"d_tool": {OK: true, Records: map[string]any{}},
	}
	merged := map[string]any{}
	for _, t := range slices.Sorted(maps.Keys(served)) {
		if r := served[t]; r.OK {
			maps.Copy(merged, r.Records)
		}
	}
	v := ViewOf(served)
	for _, root := range []string{"x", "y", "z", "w", "missing"} {
		got, err := v.Get(root)
		want, ok := merged[root]
		if (err == nil) != ok || got != want {
			t.Errorf("Get(%s) = %v, %v; the merged records hold %v, %v", root, got, err, want, ok)
		}
	}
	if _, err := ViewOf(nil).Get("x"); err == nil {
		t.Error("an empty view has a root")
	}
	if _, err := (View{}).Get("x"); err == nil {
		t.Error("the zero view has a root")
	}
}

func TestSprintIsFmtSprint(t *testing.T) {
	for _, x := range []any{"", "a b", nil, int64(-3), 2, true, 1.5, []any{"x"}, map[string]any{"k": "v"}} {
		if got, want := sprint(x), fmt.Sprint(x); got != want {
			t.Errorf("sprint(%#v) = %q, want %q", x, got, want)
		}
	}
}
