package engine

import (
	"testing"

	"github.com/obaudit/obaudit/canon"
)

// TestObservationForms holds, for observations with and without a waking
// event and a rejection, over served windows that meet, half meet and miss
// the schemas' required reads: the projection's bytes to canon.Upstream of
// its tree, every digest (through one execution's midstate cache, whose
// entries the windows reuse, and without it) to the SHA-256 of those
// bytes, and the projection's action schemas to the published ones
// collapsed by upstream's rule.
func TestObservationForms(t *testing.T) {
	odd := "quote\"back\\slash\ttab \u00e9\u2028"
	static := &Static{
		OperationID: "op", Policy: map[string]any{"currency": "GBP", "n": int64(3)},
		Actors: map[string]any{"agent": "agent", "tenant": odd}, MessageFixtureIDs: []string{"m1", "m2"},
		ActionSchemas: map[string]map[string]any{
			"act": {
				"required": map[string]any{"x": "string"}, "optional": map[string]any{},
				"reads":         map[string]any{"list_quotes": "required", "get_case": "required", "get_notes": "optional"},
				"evidence_refs": map[string]any{"required": map[string]any{}},
			},
			"complete": {"required": map[string]any{}, "optional": map[string]any{}, "reads": map[string]any{}, "evidence_refs": map[string]any{}},
			"note":     {"required": map[string]any{}, "reads": map[string]any{"get_notes": "optional"}},
		},
		WakeEventTypes: []string{"a", "b"},
		Catalogue: map[string]CatalogueEntry{
			"get_case":    {Source: "s", Authority: AuthoritySystemOfRecord, SchemaID: "c.v1", Arguments: map[string]any{}},
			"get_notes":   {Source: "s", Authority: AuthorityCommunication, SchemaID: "n.v1"},
			"list_quotes": {Source: "q", Authority: AuthoritySystemOfRecord, SchemaID: "q.v1", Arguments: map[string]any{"k": "v"}},
		},
		RecordContract: []any{"suffix", int64(16)},
	}
	result := func(tool string, ok bool) *ToolResult {
		return &ToolResult{
			Tool: tool, Source: "s", Authority: AuthoritySystemOfRecord, RecordID: "s:" + tool, RecordVersion: "0123",
			AsOf: "2031-03-03T09:00:00Z", SchemaID: tool + ".v1", Records: map[string]any{tool: map[string]any{"v": odd}}, OK: ok,
		}
	}
	windows := []map[string]*ToolResult{
		nil,
		{"get_case": result("get_case", true)},
		{"get_case": result("get_case", true), "list_quotes": result("list_quotes", false)},
		{"get_case": result("get_case", true), "list_quotes": result("list_quotes", true), "get_notes": result("get_notes", true)},
		{"get_case": result("get_case", true)},
	}
	event := &Envelope{EventID: "e1", EventType: "a", ActorID: "tenant", Payload: map[string]any{"text": odd}, Authority: AuthorityActorClaim}
	var mid midstates
	for i, served := range windows {
		for _, o := range []*Observation{
			{OperationInstanceID: "opinst", OperationID: "op", Now: "2031-03-03T09:00:00Z", InvocationIndex: i, Phase: "NEW", Served: served, BatchBudgetRemaining: 2, static: static},
			{OperationID: "op", TurnIndex: i, Event: event, LastRejection: &Rejection{"retrieve", "CODE", odd}, Served: served, static: static},
		} {
			tree := o.Projection()
			want, err := canon.Upstream(tree)
			if err != nil {
				t.Fatal(err)
			}
			if got := o.ProjectionJSON(); string(got) != string(want) {
				t.Errorf("window %d: projection bytes\n got %s\nwant %s", i, got, want)
			}
			if got := o.Digest(); got != canon.SHA256Hex(want) {
				t.Errorf("window %d: digest %s, want %s", i, got, canon.SHA256Hex(want))
			}
			o.mid, o.digest = &mid, ""
			if got := o.Digest(); got != canon.SHA256Hex(want) {
				t.Errorf("window %d: cached digest %s, want %s", i, got, canon.SHA256Hex(want))
			}
			if o.Event == nil && tree["event"] != nil {
				t.Errorf("window %d: a fallback wake's event is %v, not null", i, tree["event"])
			}
			schemas := tree["action_schemas"].(map[string]any)
			for k, s := range static.ActionSchemas {
				if got, want := canon.String(schemas[k], canon.UpstreamForm), canon.String(collapsed(s, served), canon.UpstreamForm); got != want {
					t.Errorf("window %d: schema %s projects as %s, want %s", i, k, got, want)
				}
			}
			published := o.Tree()
			for k, v := range tree {
				if k != "action_schemas" && canon.String(published[k], canon.UpstreamForm) != canon.String(v, canon.UpstreamForm) {
					t.Errorf("window %d: Tree's %s differs from the projection's", i, k)
				}
			}
			for k, s := range static.ActionSchemas {
				if got, want := canon.String(published["action_schemas"].(map[string]any)[k], canon.UpstreamForm), canon.String(s, canon.UpstreamForm); got != want {
					t.Errorf("window %d: Tree's schema %s is %s, want the published %s", i, k, got, want)
				}
			}
		}
	}
	// Windows 1, 2 (its second result not ok) and 4 serve the same tools ok.
	if len(mid.states) != 3 {
		t.Errorf("the cache holds %d heads, want one per served-ok set (3)", len(mid.states))
	}
}

// collapsed is upstream's projection of the published schema s: while a
// required read is not served ok, {"reads": the unmet required reads and
// the optional ones}; then s without its reads but for the optional ones.
func collapsed(s map[string]any, served map[string]*ToolResult) map[string]any {
	reads, _ := s["reads"].(map[string]any)
	unmet, optional := map[string]any{}, map[string]any{}
	for t, v := range reads {
		if r := served[t]; v == "optional" {
			optional[t] = v
		} else if r == nil || !r.OK {
			unmet[t] = v
		}
	}
	if len(unmet) > 0 {
		for t, v := range optional {
			unmet[t] = v
		}
		return map[string]any{"reads": unmet}
	}
	out := map[string]any{}
	for k, v := range s {
		if k != "reads" {
			out[k] = v
		}
	}
	if len(optional) > 0 {
		out["reads"] = optional
	}
	return out
}
