package engine

import (
	"maps"
	"slices"
	"testing"

	"github.com/obaudit/obaudit/canon"
)

// entry is a result's observation entry, as the observation writes it.
func entry(r *ToolResult) []byte {
	return AppendMembers(nil, func(o *Members) { r.members(o, nil) })
}

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
			entry(r)
		}
		later := r.At(t1)
		if later.AsOf != t1 || r.AsOf != t0 {
			t.Fatalf("At: AsOf %s (original %s)", later.AsOf, r.AsOf)
		}
		if got, want := string(entry(later)), string(entry(fresh(t1))); got != want {
			t.Errorf("encoded first %v: At(%s) encodes\n%s\nwant\n%s", encodedFirst, t1, got, want)
		}
		if got, want := string(entry(r)), string(entry(fresh(t0))); got != want {
			t.Errorf("encoded first %v: the original now encodes\n%s\nwant\n%s", encodedFirst, got, want)
		}
	}
}

// TestServedForms holds the two forms [ToolResult.members] declares to
// each other and to their keys: its observation entry's bytes to
// canon.Upstream of Tree, and the retrieval_served row the ledger writes
// (bytes fed to the digest) to canon.Upstream of the row it keeps, for results ok and not,
// with and without their records' encoding, strings that need escaping,
// and a second row at the same instant.
func TestServedForms(t *testing.T) {
	odd := "quote\"back\\slash\ttab \u00e9\u2028"
	entryKeys := []string{"as_of", "authority", "error_code", "ok", "record_id", "record_version", "records", "schema_id", "source", "tool"}
	rowKeys := []string{"as_of", "at", "authority", "batch_index", "index", "initiated_by", "invocation_index", "ok", "record_id",
		"record_type", "record_version", "records", "request_index", "schema_id", "source", "tool", "turn_index"}
	for _, ok := range []bool{true, false} {
		for _, withJSON := range []bool{true, false} {
			r := &ToolResult{
				Tool: "get_" + odd, Source: "s", Authority: odd, RecordID: "s:" + odd, RecordVersion: "0123",
				AsOf: "2031-03-03T09:00:00Z", SchemaID: odd + ".v1", Records: map[string]any{"r": map[string]any{"v": odd, "n": int64(300)}}, OK: ok,
			}
			if withJSON {
				r.RecordsJSON = AppendCanonical(nil, r.Records)
			}
			tree := r.Tree()
			if got := slices.Sorted(maps.Keys(tree)); !slices.Equal(got, entryKeys) {
				t.Errorf("entry keys %v, want %v", got, entryKeys)
			}
			if tree["ok"] != ok || tree["error_code"] != nil || tree["tool"] != r.Tool {
				t.Errorf("entry tree %v", tree)
			}
			want, err := canon.Upstream(tree)
			if err != nil {
				t.Fatal(err)
			}
			if got := entry(r); string(got) != string(want) {
				t.Errorf("entry bytes\n got %s\nwant %s", got, want)
			}

			var kept []byte
			l := &ledger{keep: &kept}
			l.row("2031-03-03T09:00:00Z", "timer_cancelled", fStr("event_id", "x"))
			l.appendServed("2031-03-03T09:00:00Z", 7, 2, 1, 0, r)
			l.appendServed("2031-03-03T09:00:00Z", 7, 2, 1, 1, r)
			l.close()
			want, err = canon.Upstream(l.rows)
			if err != nil {
				t.Fatal(err)
			}
			if string(kept) != string(want) {
				t.Errorf("served rows' bytes\n got %s\nwant %s", kept, want)
			}
			row := l.rows[2].(map[string]any)
			if got := slices.Sorted(maps.Keys(row)); !slices.Equal(got, rowKeys) {
				t.Errorf("row keys %v, want %v", got, rowKeys)
			}
			if row["index"] != int64(2) || row["request_index"] != int64(1) || row["invocation_index"] != int64(7) || row["turn_index"] != int64(2) ||
				row["batch_index"] != int64(1) || row["record_type"] != "retrieval_served" || row["initiated_by"] != "agent" || row["ok"] != ok {
				t.Errorf("row %v", row)
			}
		}
	}
}
