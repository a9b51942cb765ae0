package engine

import "testing"

type batchCase struct {
	name      string
	b         *Retrieve
	remaining int
}

func x0() *execution {
	cat := map[string]CatalogueEntry{}
	for _, n := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", ""} {
		cat[n] = CatalogueEntry{Arguments: map[string]any{"k": "string"}}
	}
	return &execution{static: &Static{Catalogue: cat}}
}

func batchCases() []batchCase {
	reqs := func(tools ...string) *Retrieve {
		r := &Retrieve{}
		for _, t := range tools {
			r.Requests = append(r.Requests, Request{Tool: t})
		}
		return r
	}
	args := func(r *Retrieve, i int, a map[string]any) *Retrieve {
		r.Requests[i].Arguments = a
		return r
	}
	var out []batchCase
	for _, c := range []struct {
		name string
		b    *Retrieve
	}{
		{"empty", reqs()},
		{"one", reqs("a")},
		{"duplicate", reqs("b", "a", "b")},
		{"empty tool", reqs("")},
		{"empty tool second", reqs("a", "")},
		{"unknown", reqs("zz")},
		{"unknown second", reqs("a", "zz", "yy", "zz")},
		{"eight", reqs("a", "b", "c", "d", "e", "f", "g", "h")},
		{"nine", reqs("a", "b", "c", "d", "e", "f", "g", "h", "i")},
		{"eight repeated", reqs("a", "b", "c", "d", "e", "f", "g", "h", "a", "b")},
		{"arguments", args(reqs("a", "b"), 1, map[string]any{"k": "v"})},
		{"conflict", args(reqs("a", "a"), 0, map[string]any{"k": "v"})},
		{"conflict unknown", args(reqs("zz", "zz"), 0, map[string]any{"k": "v"})},
		{"conflict two", args(args(reqs("b", "b", "a", "a"), 0, map[string]any{"k": "v"}), 3, map[string]any{"k": "w"})},
		{"same arguments", args(args(reqs("a", "a"), 0, map[string]any{"k": "v"}), 1, map[string]any{"k": "v"})},
		{"empty arguments", args(reqs("a"), 0, map[string]any{})},
		{"invented argument", args(reqs("a", "b"), 1, map[string]any{"x": "v", "k": "v", "j": int64(1)})},
		{"empty argument name", args(reqs("a"), 0, map[string]any{"": "v"})},
		{"nine by arguments", args(reqs("a", "b", "c", "d", "e", "f", "g", "h", "a"), 8, map[string]any{"k": "v"})},
	} {
		for _, remaining := range []int{0, 1} {
			out = append(out, batchCase{c.name, c.b, remaining})
		}
	}
	return out
}

// TestBatchProblem holds batchProblem to upstream's check sequence: each
// batch (at a remaining budget of 0, then 1) gets the code and detail of
// the first check it fails, or none.
func TestBatchProblem(t *testing.T) {
	want := []struct{ name, code, detail string }{
		{"empty", "EMPTY_RETRIEVAL_BATCH", "a retrieval batch carries at least one request; an empty one asks the environment for nothing and would be a turn spent on silence"},
		{"empty", "EMPTY_RETRIEVAL_BATCH", "a retrieval batch carries at least one request; an empty one asks the environment for nothing and would be a turn spent on silence"},
		{"one", "RETRIEVAL_BUDGET_EXHAUSTED", "the retrieval batch budget for this invocation is spent; the bound is published on every observation and this is a refusal rather than a silently truncated read"},
		{"one", "", ""},
		{"duplicate", "RETRIEVAL_BUDGET_EXHAUSTED", "the retrieval batch budget for this invocation is spent; the bound is published on every observation and this is a refusal rather than a silently truncated read"},
		{"duplicate", "", ""},
		{"empty tool", "MALFORMED_RETRIEVAL_REQUEST", "request 0: a retrieval request must name a non-empty tool"},
		{"empty tool", "MALFORMED_RETRIEVAL_REQUEST", "request 0: a retrieval request must name a non-empty tool"},
		{"empty tool second", "MALFORMED_RETRIEVAL_REQUEST", "request 1: a retrieval request must name a non-empty tool"},
		{"empty tool second", "MALFORMED_RETRIEVAL_REQUEST", "request 1: a retrieval request must name a non-empty tool"},
		{"unknown", "UNKNOWN_RETRIEVAL_TOOL", "the batch names 1 tool(s) outside the published catalogue; it publishes ['', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i']"},
		{"unknown", "UNKNOWN_RETRIEVAL_TOOL", "the batch names 1 tool(s) outside the published catalogue; it publishes ['', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i']"},
		{"unknown second", "UNKNOWN_RETRIEVAL_TOOL", "the batch names 2 tool(s) outside the published catalogue; it publishes ['', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i']"},
		{"unknown second", "UNKNOWN_RETRIEVAL_TOOL", "the batch names 2 tool(s) outside the published catalogue; it publishes ['', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i']"},
		{"eight", "RETRIEVAL_BUDGET_EXHAUSTED", "the retrieval batch budget for this invocation is spent; the bound is published on every observation and this is a refusal rather than a silently truncated read"},
		{"eight", "", ""},
		{"nine", "RETRIEVAL_BATCH_TOO_LARGE", "a retrieval batch carries at most 8 distinct requests and this one carries 9"},
		{"nine", "RETRIEVAL_BATCH_TOO_LARGE", "a retrieval batch carries at most 8 distinct requests and this one carries 9"},
		{"eight repeated", "RETRIEVAL_BUDGET_EXHAUSTED", "the retrieval batch budget for this invocation is spent; the bound is published on every observation and this is a refusal rather than a silently truncated read"},
		{"eight repeated", "", ""},
		{"arguments", "RETRIEVAL_BUDGET_EXHAUSTED", "the retrieval batch budget for this invocation is spent; the bound is published on every observation and this is a refusal rather than a silently truncated read"},
		{"arguments", "", ""},
		{"conflict", "CONFLICTING_RETRIEVAL_ARGUMENTS", "the batch names ['a'] more than once with different arguments; a duplicate collapses, but two argument sets under one tool name are two questions and the environment does not choose between them"},
		{"conflict", "CONFLICTING_RETRIEVAL_ARGUMENTS", "the batch names ['a'] more than once with different arguments; a duplicate collapses, but two argument sets under one tool name are two questions and the environment does not choose between them"},
		{"conflict unknown", "UNKNOWN_RETRIEVAL_TOOL", "the batch names 1 tool(s) outside the published catalogue; it publishes ['', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i']"},
		{"conflict unknown", "UNKNOWN_RETRIEVAL_TOOL", "the batch names 1 tool(s) outside the published catalogue; it publishes ['', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i']"},
		{"conflict two", "CONFLICTING_RETRIEVAL_ARGUMENTS", "the batch names ['a', 'b'] more than once with different arguments; a duplicate collapses, but two argument sets under one tool name are two questions and the environment does not choose between them"},
		{"conflict two", "CONFLICTING_RETRIEVAL_ARGUMENTS", "the batch names ['a', 'b'] more than once with different arguments; a duplicate collapses, but two argument sets under one tool name are two questions and the environment does not choose between them"},
		{"same arguments", "RETRIEVAL_BUDGET_EXHAUSTED", "the retrieval batch budget for this invocation is spent; the bound is published on every observation and this is a refusal rather than a silently truncated read"},
		{"same arguments", "", ""},
		{"empty arguments", "RETRIEVAL_BUDGET_EXHAUSTED", "the retrieval batch budget for this invocation is spent; the bound is published on every observation and this is a refusal rather than a silently truncated read"},
		{"empty arguments", "", ""},
		{"invented argument", "MALFORMED_RETRIEVAL_REQUEST", "the 'b' request carries argument name(s) ['j', 'x'] the catalogue does not publish; it publishes ['k']"},
		{"invented argument", "MALFORMED_RETRIEVAL_REQUEST", "the 'b' request carries argument name(s) ['j', 'x'] the catalogue does not publish; it publishes ['k']"},
		{"empty argument name", "MALFORMED_RETRIEVAL_REQUEST", "request 0: a retrieval argument name must be a non-empty string"},
		{"empty argument name", "MALFORMED_RETRIEVAL_REQUEST", "request 0: a retrieval argument name must be a non-empty string"},
		{"nine by arguments", "RETRIEVAL_BATCH_TOO_LARGE", "a retrieval batch carries at most 8 distinct requests and this one carries 9"},
		{"nine by arguments", "RETRIEVAL_BATCH_TOO_LARGE", "a retrieval batch carries at most 8 distinct requests and this one carries 9"},
	}
	cases := batchCases()
	if len(cases) != len(want) {
		t.Fatalf("%d cases, %d expectations", len(cases), len(want))
	}
	for i, c := range cases {
		code, detail := x0().batchProblem(c.b, c.remaining)
		if w := want[i]; c.name != w.name || code != w.code || detail != w.detail {
			t.Errorf("%s (remaining %d): got %s %q, want %s %q", c.name, c.remaining, code, detail, w.code, w.detail)
		}
	}
}
