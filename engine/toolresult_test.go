package engine

import "testing"

// TestToolResultAt: a result served again at another instant encodes as a
// fresh result with that AsOf would, whether or not the original's fields
// were encoded first, and leaves the original as it was.
func TestToolResultAt(t *testing.T) {
	fresh := func(asOf string) *ToolResult {
		return &ToolResult{
			Tool: "list_quotes", Source: "quoting_service", Authority: AuthoritySystemOfRecord, RecordID: "quoting_service:maintenance_case",
			RecordVersion: "0123456789abcdef", AsOf: asOf, SchemaID: "maintenance.list_quotes.v1",
			Records: map[string]any{"quotes": map[string]any{}}, RecordsJSON: []byte(`{"quotes":{}}`), OK: true,
		}
	}
	const t0, t1 = "2031-03-03T09:00:00Z", "2031-03-04T10:30:00Z"
	for _, encodedFirst := range []bool{false, true} {
		r := fresh(t0)
		if encodedFirst {
			r.appendEntry(nil)
		}
		later := r.At(t1)
		if later.AsOf != t1 || r.AsOf != t0 {
			t.Fatalf("At: AsOf %s (original %s)", later.AsOf, r.AsOf)
		}
		if got, want := string(later.appendEntry(nil)), string(fresh(t1).appendEntry(nil)); got != want {
			t.Errorf("encoded first %v: At(%s) encodes\n%s\nwant\n%s", encodedFirst, t1, got, want)
		}
		if got, want := string(r.appendEntry(nil)), string(fresh(t0).appendEntry(nil)); got != want {
			t.Errorf("encoded first %v: the original now encodes\n%s\nwant\n%s", encodedFirst, got, want)
		}
	}
}
