package main

import (
	"encoding/json"
	"testing"
)

// validate --schema reports both verdicts when they differ: an artefact
// recording fewer agent invocations than its decision tape names (a
// relation the published schema cannot state) is refused by the named
// checks, by class, and passed by the
// schema; the exit code is 1.
func TestValidateSchemaReportsBothVerdicts(t *testing.T) {
	p := writeEdited(t, "artifact8-deterministic-reference-v1.json", func(d map[string]any) {
		d["agent_invocations"] = int64(13)
	})
	code, out, errs := obaudit("validate", "--schema", "--json", p)
	if code != exitRefused {
		t.Fatalf("exit %d, want %d (%s)", code, exitRefused, errs)
	}
	var r struct {
		Refusal struct{ Class string }
		Schema  struct{ Applicable, OK bool } `json:"schema_verdict"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.Refusal.Class != "artefact/tape-mismatch" || !r.Schema.Applicable || !r.Schema.OK {
		t.Fatalf("report %s: want a named refusal beside a passing schema verdict", out)
	}
}
