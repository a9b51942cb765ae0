package bundle_test

import (
	"bytes"
	"flag"
	"os"
	"testing"

	"github.com/obaudit/obaudit/bundle"
	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/execledger"
	lt "github.com/obaudit/obaudit/execledger/ledgertest"
	"github.com/obaudit/obaudit/internal/limits"
	"github.com/obaudit/obaudit/internal/upstreamtest"
	"github.com/obaudit/obaudit/refusal"
)

// pair builds a small agreeing bundle from this build's writer: a ledger of
// n answered calls whose decision digests are those of real tape outcomes,
// and the minimal artefact tree that binds it.
func pair(tb testing.TB, n int) (art, ledger []byte) {
	var calls []execledger.Call
	var decisions, attempts []any
	for i := 0; i < n; i++ {
		outcome := map[string]any{"kind": "WAIT", "reason": "visit", "wake_on": []any{"visit_completed"}, "fallback_after_minutes": int64(60 + i)}
		d, _ := canon.UpstreamDigest(outcome)
		c := lt.Answered(int64(i), 1, int64(i))
		c.Decision.Kind, c.Decision.DecisionDigest = "WAIT", d
		calls = append(calls, c)
		decisions = append(decisions, map[string]any{"invocation_index": int64(1), "turn_index": int64(i), "observation_digest_sha256": c.ObservationDigest, "outcome": outcome})
		attempts = append(attempts, map[string]any{"invocation_index": int64(1), "turn_index": int64(i), "request_digest_sha256": c.RequestDigest, "outcome": "decided", "fault": nil})
	}
	var f lt.MemFile
	w, err := execledger.NewWriter(&f, lt.Header())
	if err != nil {
		tb.Fatal(err)
	}
	for _, c := range calls {
		if err := w.RecordCall(c); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Finalize("scored", "2031-03-03T09:05:00Z", nil); err != nil {
		tb.Fatal(err)
	}
	b, err := w.Binding()
	if err != nil {
		tb.Fatal(err)
	}
	h := lt.Header()
	tree := map[string]any{
		"artifact_version":   int64(8),
		"provider_execution": b.Tree(),
		"agent_execution": map[string]any{"outcome_source": "model", "max_output_tokens": int64(4096), "attempts": attempts,
			"model": h.Provider.Model, "protocol_version": h.Provider.ProtocolVersion},
		"decisions":             decisions,
		"operation":             map[string]any{"operation_id": h.OperationID, "spec_digest_sha256": h.SpecDigest},
		"operation_instance_id": h.OperationInstanceID,
		"scenario_id":           h.ScenarioID,
		"agent_id":              h.AgentID,
		"agent_kind":            h.AgentKind,
		"engine_version":        h.EngineVersion,
	}
	art, err = canon.Upstream(tree)
	if err != nil {
		tb.Fatal(err)
	}
	return art, f.Bytes()
}

func TestSyntheticPairAgrees(t *testing.T) {
	art, led := pair(t, 3)
	tree, _ := canon.Parse(art)
	r, err := bundle.AuditReader(tree.(map[string]any), bytes.NewReader(led), "l.ndjson", bundle.Options{})
	if err != nil || r.ProviderCalls != 3 {
		t.Fatalf("AuditReader = %+v, %v", r, err)
	}
}

// FuzzAudit: the audit never panics, every refusal is classed, and a pass
// implies the ledger reads as scored with the bound digest.
func FuzzAudit(f *testing.F) {
	art, led := pair(f, 2)
	f.Add(art, led)
	f.Add(art, led[:len(led)-7])
	f.Add([]byte(`{"artifact_version":8,"provider_execution":null}`), led)
	// The upstream pair (≈ 300 KB) is a seed only for plain `go test` runs:
	// under -fuzz, minimising mutants that large stalls the engine.
	if !fuzzing() && (os.Getenv(upstreamtest.RequireEnv) == "1" || fileExists(upstreamtest.Dir())) {
		ua, _ := os.ReadFile(upstreamtest.Dir() + "/" + modelArtefact)
		ul, _ := os.ReadFile(upstreamtest.Dir() + "/" + ledgerFile)
		if ua != nil && ul != nil {
			f.Add(ua, ul)
		}
	}
	f.Fuzz(func(t *testing.T, artefact, ledger []byte) {
		tree, err := canon.Parse(artefact)
		if err != nil {
			return
		}
		m, ok := tree.(map[string]any)
		if !ok {
			return
		}
		r, err := bundle.AuditReader(m, bytes.NewReader(ledger), "l.ndjson", bundle.Options{})
		if err != nil {
			if _, ok := refusal.ClassOf(err); !ok && refusal.Of(err) != limits.ErrExceeded.Class {
				t.Fatalf("unclassed error: %v", err)
			}
			return
		}
		a, err := execledger.Read(bytes.NewReader(ledger), execledger.Options{RequireComplete: true})
		if err != nil || !a.Scored() || a.LedgerDigest() != r.ExecutionLedgerDigest {
			t.Fatalf("a pass over a ledger that does not read as the bound scored journal: %v", err)
		}
	})
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// fuzzing reports whether the test binary runs with -test.fuzz.
func fuzzing() bool {
	f := flag.Lookup("test.fuzz")
	return f != nil && f.Value.String() != ""
}
