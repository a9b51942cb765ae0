package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/obaudit/obaudit/internal/upstreamtest"
)

// writeEdited writes an upstream fixture with one consistent edit (content
// digests resealed, so it validates) and returns its path.
func writeEdited(t *testing.T, name string, edit func(d map[string]any)) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "edited.json")
	if err := os.WriteFile(p, upstreamtest.Edited(t, name, edit), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// A replay that runs and differs exits 2, names the first divergence on
// stdout and in the --json report, and is not a refusal.
func TestReplayDiffersExitsTwo(t *testing.T) {
	p := writeEdited(t, "artifact8-deterministic-reference-v1.json", func(d map[string]any) {
		row := d["trajectory"].([]any)[11].(map[string]any)
		row["outcome"].(map[string]any)["rationale"] = "edited after the run"
	})
	if code, _, errs := obaudit("validate", p); code != exitOK {
		t.Fatalf("validate of the consistently edited record: exit %d (%s), want 0: coherence is not reproduction", code, errs)
	}
	code, out, errs := obaudit("replay", p)
	if code != exitNo {
		t.Fatalf("replay exit = %d (stderr %q), want %d", code, errs, exitNo)
	}
	for _, re := range []string{
		`(?m)^replay DIFFERS: contract 8, scenario V1, agent reference, engine 0.9.0$`,
		`(?m)^first divergence   trajectory /trajectory/11/outcome/rationale: recorded "edited after the run", replayed "`,
		`(?m)^sections .*trajectory DIFFERS`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("stdout does not match %s:\n%s", re, out)
		}
	}
	if !regexp.MustCompile(`^no: the replay differs from the record: first at trajectory /trajectory/11/outcome/rationale`).MatchString(errs) {
		t.Errorf("stderr = %q", errs)
	}
	code, out, _ = obaudit("replay", "--json", p)
	if code != exitNo {
		t.Fatalf("replay --json exit = %d, want %d", code, exitNo)
	}
	for _, want := range []string{`"ok":false`, `"pointer":"/trajectory/11/outcome/rationale"`, `"provider_calls":0`} {
		if !strings.Contains(out, want) {
			t.Errorf("--json report lacks %s", want)
		}
	}
}

// The pack wiring holds final_state to the maintenance pack's canonical
// state (maintenance.ValidateFinalState): a missing, unknown or mistyped
// root, a nested record's unknown field and a dangling reference are each
// refused as artefact/final-state with the pack's class in the chain, at the
// value's pointer.
func TestValidateHoldsMaintenanceRoots(t *testing.T) {
	for name, tc := range map[string]struct {
		edit           func(map[string]any)
		inner, pointer string
	}{
		"missing-root":     {func(s map[string]any) { delete(s, "payment") }, "state/missing-field", "/final_state"},
		"unknown-root":     {func(s map[string]any) { s["issue_reporting_actor_id"] = "customer_1" }, "state/unknown-field", "/final_state/issue_reporting_actor_id"},
		"mistyped":         {func(s map[string]any) { s["reopen_count"] = "1" }, "state/bad-field", "/final_state/reopen_count"},
		"nested-unknown":   {func(s map[string]any) { s["cycles"].(map[string]any)["work_cycle_1"].(map[string]any)["x"] = true }, "state/unknown-field", "/final_state/cycles/work_cycle_1/x"},
		"dangling-current": {func(s map[string]any) { s["current_cycle_id"] = "work_cycle_7" }, "state/dangling-reference", "/final_state/current_cycle_id"},
	} {
		t.Run(name, func(t *testing.T) {
			p := writeEdited(t, "artifact8-deterministic-reference-v1.json", func(d map[string]any) {
				tc.edit(d["final_state"].(map[string]any))
			})
			code, _, errs := obaudit("validate", p)
			if code != exitRefused {
				t.Fatalf("exit %d, want %d", code, exitRefused)
			}
			if !strings.HasPrefix(errs, "refused: artefact/final-state: "+tc.pointer+": ") || !strings.Contains(errs, ": "+tc.inner+": ") {
				t.Fatalf("stderr = %q, want artefact/final-state at %s with %s in the chain", errs, tc.pointer, tc.inner)
			}
			if _, out, _ := obaudit("validate", "--json", p); !strings.Contains(out, `"pointer":"`+tc.pointer+`"`) {
				t.Fatalf("--json report %s lacks pointer %s", out, tc.pointer)
			}
		})
	}
}
