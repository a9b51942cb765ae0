package artefact_test

import (
	"testing"

	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/refusal"
)

// TestRecoveryRuleIsTheDomains: a contract-8 side effect carrying
// recovery_of and dispatch_channel is read as a recovery only for the
// operation version the domain names, and may re-send only the fixture the
// domain names (the reader spells neither).
func TestRecoveryRuleIsTheDomains(t *testing.T) {
	recovery := func(d map[string]any, fixture string) map[string]any {
		m(d["operation"])["operation_version"] = "9.9.9"
		r := row(d, 194)
		r["recovery_of"], r["dispatch_channel"], r["message_fixture_id"] = int64(1), "secondary", fixture
		return d
	}
	with := func(version, fixture string) artefact.Options {
		o := testOptions()
		o.Domains[0].RecoveryVersion, o.Domains[0].RecoveryFixture = version, fixture
		return o
	}
	for _, tc := range []struct {
		name    string
		opts    artefact.Options
		fixture string
		want    *refusal.Refusal
		pointer string
	}{
		// No recovery operation: the extra keys are not a row shape.
		{"no recovery rule", testOptions(), "msg_completion_notice", artefact.ErrRowShape, "/trajectory/194"},
		{"another version", with("9.9.8", "msg_completion_notice"), "msg_completion_notice", artefact.ErrRowShape, "/trajectory/194"},
		{"the domain's fixture", with("9.9.9", "msg_completion_notice"), "msg_completion_notice", nil, ""},
		{"another fixture", with("9.9.9", "msg_transfer_notice"), "msg_completion_notice", artefact.ErrUnknownValue, "/trajectory/194/message_fixture_id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := artefact.Validate(recovery(tree(t, "artifact8-deterministic-reference-v1.json"), tc.fixture), tc.opts)
			if tc.want == nil {
				// The recovery row is accepted; the document then fails later
				// (its digests no longer match), never at the row.
				if p, _ := artefact.Pointer(err); len(p) >= len("/trajectory/194") && p[:len("/trajectory/194")] == "/trajectory/194" {
					t.Fatalf("Validate = %v at %s, want the recovery row accepted", err, p)
				}
				return
			}
			class, _ := refusal.ClassOf(err)
			p, _ := artefact.Pointer(err)
			if class != tc.want.Class || p != tc.pointer {
				t.Fatalf("Validate = %v (class %s at %s), want %s at %s", err, class, p, tc.want.Class, tc.pointer)
			}
		})
	}
}
