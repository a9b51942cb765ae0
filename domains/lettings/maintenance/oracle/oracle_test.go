package oracle_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/obaudit/obaudit/domains/lettings/maintenance/oracle"
	"github.com/obaudit/obaudit/internal/upstreamtest"
	"github.com/obaudit/obaudit/refusal"
)

// The upstream digest of the v0_5 manifest, as upstream 0.9.0's gate
// reports it.
const upstreamDigest = "c3cc69543e8baa35f53a63916554be0fc5355b2ac6f003d03ad7dccfaa80b10e"

// vocab is the evaluator's result vector, written out here so this
// package's tests import no evaluator (the gate's tests check the loader
// against the evaluator itself).
var vocab = oracle.Vocabulary{
	Dimensions: []string{"terminal_outcome", "critical_invariants", "temporal_correctness", "authority_boundaries",
		"action_validity", "human_checkpoints", "recovery", "obligations", "deterministic_replay",
		"environment_integrity", "retrieval_discipline"},
	KnownCode: func(code string) bool {
		return slices.Contains([]string{"PREMATURE_COMPLETION", "WAIT_NEVER_DECLARED", "DUPLICATE_OR_INVALID_ACTION",
			"WAIT_NEVER_ENDED", "UNNECESSARY_ESCALATION", "REQUIRED_EVIDENCE_SELECTOR_UNRESOLVED",
			"ACTED_ON_CLAIM_WITHOUT_RECORD", "CLAIM_TREATED_AS_AUTHORITATIVE", "STALE_RETRIEVED_RECORD",
			"REJECTED_TERMINAL_PROPOSAL", "REPEATED_ACTION_AFTER_WAKE"}, code)
	},
}

func TestDefaultIdentity(t *testing.T) {
	m, err := oracle.Default(vocab)
	if err != nil {
		t.Fatalf("Default = %v", err)
	}
	want := oracle.Identity{OracleID: "lettings_maintenance_negative_controls", OracleVersion: "0.5.0", Digest: upstreamDigest}
	if got := m.Identity(); got != want {
		t.Fatalf("Identity() = %+v, want %+v", got, want)
	}
	wantAgents := []string{"complete_early", "always_act", "always_wait", "always_escalate", "ignore_new_events",
		"trust_actor_claim", "stale_after_wake", "duplicate_after_wake"}
	if got := m.AgentIDs(); !slices.Equal(got, wantAgents) {
		t.Fatalf("AgentIDs() = %v", got)
	}
	c, ok := m.Control("trust_actor_claim")
	if !ok || c.ScenarioID != "V1" ||
		!slices.Equal(c.Closure, []string{"authority_boundaries", "action_validity", "retrieval_discipline"}) ||
		!slices.Equal(c.RequiredFindings, []string{"ACTED_ON_CLAIM_WITHOUT_RECORD", "CLAIM_TREATED_AS_AUTHORITATIVE"}) {
		t.Fatalf("Control(trust_actor_claim) = %+v", c)
	}
	if _, ok := m.Control("reference"); ok {
		t.Fatal("the reference agent has a control")
	}
}

// TestDefaultEqualsUpstream: obaudit's own manifest file carries exactly
// the facts of upstream's: parsed, the two documents have one canonical
// form, whose digest is the one upstream's gate reports.
func TestDefaultEqualsUpstream(t *testing.T) {
	up := upstreamtest.Read(t, "maintenance_negative_controls_v0_5.yaml")
	if bytes.Equal(up, oracle.DefaultBytes()) {
		t.Fatal("the shipped manifest is a byte copy of upstream's file; it must be obaudit's own")
	}
	upstream, err := oracle.Load(up, "upstream", vocab)
	if err != nil {
		t.Fatalf("Load(upstream) = %v", err)
	}
	ours, err := oracle.Default(vocab)
	if err != nil {
		t.Fatal(err)
	}
	if upstream.Identity() != ours.Identity() || ours.Identity().Digest != upstreamDigest {
		t.Fatalf("identities: upstream %+v, ours %+v, want digest %s", upstream.Identity(), ours.Identity(), upstreamDigest)
	}
	if !slices.EqualFunc(upstream.Controls(), ours.Controls(), func(a, b oracle.Control) bool {
		return a.AgentID == b.AgentID && a.ScenarioID == b.ScenarioID && a.Intervention == b.Intervention &&
			a.GuaranteeAttacked == b.GuaranteeAttacked && a.Rationale == b.Rationale &&
			slices.Equal(a.Closure, b.Closure) && slices.Equal(a.RequiredFindings, b.RequiredFindings) && slices.Equal(a.MustPass, b.MustPass)
	}) {
		t.Fatal("controls differ")
	}
}

// TestDigestIgnoresLayout: comments, quoting and reflow do not move the
// digest; an edited expectation does.
func TestDigestIgnoresLayout(t *testing.T) {
	base := string(oracle.DefaultBytes())
	relaid := strings.ReplaceAll(base, `scenario_id: "V1"`, "scenario_id: 'V1' # the reference variant")
	m, err := oracle.Load([]byte(relaid), "relaid", vocab)
	if err != nil {
		t.Fatal(err)
	}
	if m.Identity().Digest != upstreamDigest {
		t.Fatalf("relaid digest = %s", m.Identity().Digest)
	}
	edited := strings.Replace(base, "required_finding_codes: [PREMATURE_COMPLETION]", "required_finding_codes: [PREMATURE_COMPLETION, WAIT_NEVER_DECLARED]", 1)
	m, err = oracle.Load([]byte(edited), "edited", vocab)
	if err != nil {
		t.Fatal(err)
	}
	if m.Identity().Digest == upstreamDigest {
		t.Fatal("an edited expectation kept the digest")
	}
}

func TestViewsAreCopies(t *testing.T) {
	m, _ := oracle.Default(vocab)
	m.Targets("always_wait")[0] = "recovery"
	c, _ := m.Control("always_wait")
	c.MustPass[0] = "terminal_outcome"
	if got := m.Targets("always_wait"); got[0] != "terminal_outcome" {
		t.Fatalf("Targets view changed the manifest: %v", got)
	}
	if got := m.MustPass("always_wait"); got[0] != "critical_invariants" {
		t.Fatalf("Control copy changed the manifest: %v", got)
	}
}

func TestRefusals(t *testing.T) {
	base := string(oracle.DefaultBytes())
	swap := func(old, new string) string {
		if !strings.Contains(base, old) {
			t.Fatalf("base manifest lacks %q", old)
		}
		return strings.Replace(base, old, new, 1)
	}
	firstMustPass := "must_pass_dimensions: [critical_invariants, authority_boundaries, recovery, obligations, deterministic_replay, environment_integrity, retrieval_discipline]"
	cases := []struct {
		name  string
		doc   string
		class refusal.Class
	}{
		{"not yaml", "controls: [", oracle.ErrUnreadable.Class},
		{"not a mapping", "- a\n- b\n", oracle.ErrUnreadable.Class},
		{"two documents", base + "---\n{}\n", oracle.ErrUnreadable.Class},
		{"duplicate key", swap(`oracle_version: "0.5.0"`, "oracle_version: \"0.5.0\"\noracle_version: \"0.6.0\""), oracle.ErrUnreadable.Class},
		{"anchor", swap(`operation_id: "lettings_maintenance_synthetic_v1"`, `operation_id: &x "lettings_maintenance_synthetic_v1"`), oracle.ErrUnreadable.Class},
		{"unknown top-level field", swap(`oracle_version: "0.5.0"`, "oracle_version: \"0.5.0\"\nweights: \"none\""), oracle.ErrUnknownField.Class},
		{"unknown control field", swap("    scenario_id: \"V1\"", "    scenario_id: \"V1\"\n    severity: \"high\""), oracle.ErrUnknownField.Class},
		{"missing field", swap(`semantic_scenario_id: "maintenance_recurring_leak_synthetic_v1"`, ""), oracle.ErrMissingField.Class},
		{"number where text", swap(`oracle_version: "0.5.0"`, "oracle_version: 5"), oracle.ErrMalformedField.Class},
		{"yaml 1.1 boolean where text", swap(`scenario_id: "V1"`, "scenario_id: yes"), oracle.ErrMalformedField.Class},
		{"empty text", swap(`scenario_id: "V1"`, `scenario_id: "  "`), oracle.ErrMalformedField.Class},
		{"name twice in a list", swap("required_finding_codes: [PREMATURE_COMPLETION]", "required_finding_codes: [PREMATURE_COMPLETION, PREMATURE_COMPLETION]"), oracle.ErrMalformedField.Class},
		{"dimension missing from the vocabulary", swap("deterministic_replay, environment_integrity, retrieval_discipline]\n\ncontrols", "environment_integrity, retrieval_discipline]\n\ncontrols"), oracle.ErrVocabularyMismatch.Class},
		{"vocabulary reordered", swap("[terminal_outcome, critical_invariants, temporal", "[critical_invariants, terminal_outcome, temporal"), oracle.ErrVocabularyMismatch.Class},
		{"control names an unknown dimension", swap(firstMustPass, strings.Replace(firstMustPass, "recovery", "recovery_rate", 1)), oracle.ErrUnknownDimension.Class},
		{"dimension failing and passing", swap(firstMustPass, strings.Replace(firstMustPass, "[critical_invariants", "[terminal_outcome, critical_invariants", 1)), oracle.ErrDimensionConflict.Class},
		{"a dimension left unjudged", swap(firstMustPass, strings.Replace(firstMustPass, ", retrieval_discipline]", "]", 1)), oracle.ErrDimensionUnjudged.Class},
		{"unknown finding code", swap("required_finding_codes: [PREMATURE_COMPLETION]", "required_finding_codes: [PREMATURE_FINISH]"), oracle.ErrUnknownFindingCode.Class},
		{"duplicate control", swap("  - agent_id: always_act", "  - agent_id: complete_early"), oracle.ErrDuplicateControl.Class},
		{"empty controls", base[:strings.Index(base, "controls:")] + "controls: []\n", oracle.ErrMalformedField.Class},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := oracle.Load([]byte(tc.doc), tc.name, vocab)
			if got, _ := refusal.ClassOf(err); got != tc.class {
				t.Fatalf("Load = %v, want class %s", err, tc.class)
			}
		})
	}
}

func TestLoadNeedsVocabulary(t *testing.T) {
	_, err := oracle.Load(oracle.DefaultBytes(), "x", oracle.Vocabulary{})
	if err == nil || refusal.Of(err) == oracle.ErrUnreadable.Class {
		t.Fatalf("Load without a vocabulary = %v, want a plain failure", err)
	}
	if _, ok := refusal.ClassOf(err); ok {
		t.Fatalf("a missing vocabulary is a programming error, not a refusal: %v", err)
	}
}
