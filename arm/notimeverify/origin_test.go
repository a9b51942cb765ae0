package notimeverify

import (
	"testing"

	"github.com/obaudit/obaudit/arm/notime"
	"github.com/obaudit/obaudit/engine"
)

// The verifier recomputes origin_plan_digest on its own; for every plan it
// must agree with the compiler's, an event without a payload included (the
// compiler's nil payload is canon's {}).
func TestOriginDigestAgreesWithCompiler(t *testing.T) {
	cyc := "c1"
	for name, p := range map[string]*engine.Plan{
		"payloads": {StartsAt: "2026-01-05T09:00:00Z", HorizonMinutes: 600, MaxTurnsPerInvocation: 4, MaxInvocations: 8,
			Events: []engine.PlannedEvent{
				{EventID: "e1", EventType: "t1", ActorID: "a1", Sequence: 1, At: "2026-01-05T09:00:00Z", Payload: map[string]any{"k": "v"}, TriggersAgent: true},
				{EventID: "e2", EventType: "t2", ActorID: "a2", Sequence: 2, Trigger: &engine.Trigger{Kind: "action", Type: "x", CycleID: &cyc}, DelayMinutes: 30, Payload: map[string]any{}},
			}},
		"nil payload": {StartsAt: "2026-01-05T09:00:00Z", HorizonMinutes: 60, MaxTurnsPerInvocation: 1, MaxInvocations: 1,
			Events: []engine.PlannedEvent{{EventID: "e1", EventType: "t1", ActorID: "a1", Sequence: 1, At: "2026-01-05T09:00:00Z"}}},
	} {
		if got, want := originDigest(p), notime.OriginPlanDigest(p); got != want {
			t.Errorf("%s: verifier %s, compiler %s", name, got, want)
		}
	}
}
