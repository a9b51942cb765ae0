package episodeview

import (
	"testing"

	"github.com/obaudit/obaudit/internal/upstreamtest"
)

func TestParseV1(t *testing.T) {
	raw := upstreamtest.Read(t, "artifact8-deterministic-reference-v1.json")
	e, err := Parse(raw)
	if err != nil {
		t.Fatalf("Parse(V1) = %v", err)
	}
	if e.FileSHA256 != "45f2f3bec377230a0fc464c5ea1b64798a053beeb588c3ec4bdb477eaf7cfab5" {
		t.Errorf("FileSHA256 = %s", e.FileSHA256)
	}
	if len(e.Events) != 19 || len(e.Rows) != 306 || e.Decisions != 46 {
		t.Errorf("events %d rows %d decisions %d, want 19 306 46", len(e.Events), len(e.Rows), e.Decisions)
	}
	if len(e.Evaluation.Dimensions) != 11 || !e.Evaluation.Reliable {
		t.Errorf("evaluation: %d dimensions, reliable %t", len(e.Evaluation.Dimensions), e.Evaluation.Reliable)
	}
	d, ok := e.Evaluation.Dimension("retrieval_discipline")
	if !ok || len(d.Counts) != 4 || d.Counts[0].Name != "business_proposals" || d.Counts[3].Value != 157 {
		t.Errorf("retrieval_discipline counts = %+v", d.Counts)
	}
	if e.EndedAt.T.Sub(e.StartedAt.T).Minutes() != float64(e.SimulatedMinutes) {
		t.Errorf("started %s ended %s, simulated minutes %d", e.StartedAt.Text, e.EndedAt.Text, e.SimulatedMinutes)
	}
	if e.Events[17].CausedBy != "timer" || e.Events[0].CausedBy != "" {
		t.Errorf("caused_by not read: %q %q", e.Events[17].CausedBy, e.Events[0].CausedBy)
	}
	if e.Provider != nil || e.Execution.OutcomeSource != "deterministic" || e.FinalPhase != "FINALIZED" {
		t.Errorf("execution %+v provider %v phase %s", e.Execution, e.Provider, e.FinalPhase)
	}
	r := e.Rows[65]
	if r.Type != "checkpoint_opened" || r.Str("checkpoint_id") != "checkpoint_1" || !r.Bool("required") {
		t.Errorf("row 65 = %+v", r)
	}
}

func TestParseModelRun(t *testing.T) {
	e, err := Parse(upstreamtest.Read(t, "artifact8-fake-openai-reference-v1.json"))
	if err != nil {
		t.Fatalf("Parse(fake-openai) = %v", err)
	}
	if e.Provider == nil || e.Provider.Model != "gpt-5.6-luna" || e.Execution.OutcomeSource != "model" || e.Execution.TransportCalls != 46 {
		t.Errorf("execution %+v provider %+v", e.Execution, e.Provider)
	}
}

func TestParseRejectsMistypes(t *testing.T) {
	for name, doc := range map[string]string{
		"array":       `[]`,
		"syntax":      `{`,
		"missing all": `{}`,
	} {
		if _, err := Parse([]byte(doc)); err == nil {
			t.Errorf("Parse(%s) succeeded", name)
		}
	}
}
