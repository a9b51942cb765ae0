package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/export/agentrun"
	"github.com/obaudit/obaudit/export/agentrun/agentrunschema"
	episodereport "github.com/obaudit/obaudit/report"
)

// The eleven gate runs: the reference on V1, V2 and V3 and the eight
// negative controls on V1, with the verdict each Agent Run record must carry
// under obaudit's engine (V2's reference fails recovery and obligations
// there, so it is legitimately terminal but unreliable).
var gateRuns = []struct {
	scenario, agent, verdict string
}{
	{"V1", "reference", agentrun.VerdictAchieved},
	{"V2", "reference", agentrun.VerdictMissed},
	{"V3", "reference", agentrun.VerdictAchieved},
	{"V1", "complete_early", agentrun.VerdictAborted},
	{"V1", "always_act", agentrun.VerdictAborted},
	{"V1", "always_wait", agentrun.VerdictMissed},
	{"V1", "always_escalate", agentrun.VerdictAborted},
	{"V1", "ignore_new_events", agentrun.VerdictMissed},
	{"V1", "trust_actor_claim", agentrun.VerdictMissed},
	{"V1", "stale_after_wake", agentrun.VerdictMissed},
	{"V1", "duplicate_after_wake", agentrun.VerdictMissed},
}

// TestGateRunsExportAndValidate runs each gate run through `obaudit run
// --output`, exports the artefact to an Agent Run record, validates the
// record with `obaudit validate --agent-run`, and renders its report.
func TestGateRunsExportAndValidate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, g := range gateRuns {
		t.Run(g.scenario+"/"+g.agent, func(t *testing.T) {
			art := filepath.Join(dir, g.scenario+"-"+g.agent+".artefact.json")
			code, _, stderr := obaudit("run", "--scenario", g.scenario, "--agent", g.agent,
				"--operation-instance-id", "opinst_0123456789abcdef0123456789abcdef", "--output", art)
			if code != exitOK && code != exitNo {
				t.Fatalf("obaudit run = exit %d: %s", code, stderr)
			}
			raw, err := os.ReadFile(art)
			if err != nil {
				t.Fatal(err)
			}
			doc, rec := exportRecord(t, raw)
			file := filepath.Join(dir, rec.FileName())
			if err := os.WriteFile(file, rec.Bytes, 0o600); err != nil {
				t.Fatal(err)
			}
			if code, out, stderr := obaudit("validate", "--agent-run", file); code != exitOK {
				t.Fatalf("validate --agent-run = exit %d: %s%s", code, out, stderr)
			}
			v := rec.Value
			if got := v["outcome"].(map[string]any)["verdict"]; got != g.verdict {
				t.Errorf("verdict = %v, want %s", got, g.verdict)
			}
			// One failure per finding, each with evidence.
			tree, err := canon.Parse(raw)
			if err != nil {
				t.Fatal(err)
			}
			codes := tree.(map[string]any)["evaluation"].(map[string]any)["finding_codes"].([]any)
			fs := v["failures"].([]any)
			if len(fs) != len(codes) {
				t.Errorf("%d failures for %d finding codes", len(fs), len(codes))
			}
			for i, f := range fs {
				if ev, _ := f.(map[string]any)["evidence"].(string); ev == "" {
					t.Errorf("failure %d has no evidence", i)
				}
			}
			r, err := episodereport.Build(doc, episodereport.Options{Pack: reportPack})
			if err != nil {
				t.Fatalf("report: %v", err)
			}
			page := r.HTML()
			if g.agent == "trust_actor_claim" {
				for _, want := range []string{"NOT RELIABLE: failed authority_boundaries, action_validity, retrieval_discipline", "request_payment ✗ ACTED_ON_CLAIM_WITHOUT_RECORD"} {
					if !bytes.Contains(page, []byte(want)) {
						t.Errorf("trust_actor_claim page lacks %q", want)
					}
				}
			}
		})
	}
}

// exportRecord is obaudit export's reading of the artefact raw and the
// Agent Run record it exports (not held to the published schema).
func exportRecord(t *testing.T, raw []byte) (*artefact.Document, *agentrun.Record) {
	t.Helper()
	doc, err := exportValidate(parseArtefact(raw, true))
	if err != nil {
		t.Fatalf("export: %v", err)
	}
	s, err := agentrunschema.Default()
	if err != nil {
		t.Fatal(err)
	}
	rec, err := agentrun.Export(doc, exportOperation(doc), s)
	if err != nil {
		t.Fatalf("export: %v", err)
	}
	return doc, rec
}
