package maintenance_test

import (
	"bytes"
	"os"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/domains/lettings/maintenance"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/internal/upstreamtest"
	"github.com/obaudit/obaudit/refusal"
)

const specDigest = "9e99b409b153e03aeb240c6402e14ff21c8bf0df3b9a1df2016c8fa64138e44d"

func TestSpecDigestEmbeddedAndUpstream(t *testing.T) {
	spec, err := maintenance.DefaultSpec()
	if err != nil {
		t.Fatal(err)
	}
	if spec.Digest != specDigest {
		t.Errorf("embedded default operation digest = %s, want %s", spec.Digest, specDigest)
	}
	up, err := maintenance.LoadSpec(upstreamtest.Read(t, "maintenance_v0_1.yaml"), "maintenance_v0_1.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if up.Digest != specDigest {
		t.Errorf("upstream maintenance_v0_1.yaml digest = %s, want %s", up.Digest, specDigest)
	}
	if bytes.Equal(maintenance.DefaultOperation(), upstreamtest.Read(t, "maintenance_v0_1.yaml")) {
		t.Error("the embedded operation is a byte copy of the upstream file; it must be obaudit's own authoring")
	}
}

func counts(ep *engine.Episode) map[string]int {
	c := map[string]int{}
	for _, r := range ep.Trajectory {
		c[r.(map[string]any)["record_type"].(string)]++
	}
	return c
}

func rowsOf(ep *engine.Episode, recordType string) []map[string]any {
	var out []map[string]any
	for _, r := range ep.Trajectory {
		if m := r.(map[string]any); m["record_type"] == recordType {
			out = append(out, m)
		}
	}
	return out
}

// The V2 and V3 figures are engine 0.9.0's (engine-0.9-delta §4).
func TestReferenceV2V3(t *testing.T) {
	for _, tc := range []struct {
		scenario                                          string
		invocations                                       int
		minutes                                           int64
		endedAt                                           string
		rows, decisions, events, accepted, served, failed int
	}{
		{"V2", 8, 5910, "2031-03-07T11:30:00Z", 161, 24, 9, 5, 80, 1},
		{"V3", 9, 7470, "2031-03-08T13:30:00Z", 176, 28, 11, 6, 86, 0},
	} {
		t.Run(tc.scenario, func(t *testing.T) {
			ep := runReference(t, tc.scenario, engine.SelfCheckRerun)
			c := counts(ep)
			if ep.Status != "transferred_to_human_ownership" || ep.TerminalOutcome != "transferred_to_human_ownership" || !ep.ReplayFinal {
				t.Errorf("status %s / %v / replay_final %v, want transferred_to_human_ownership", ep.Status, ep.TerminalOutcome, ep.ReplayFinal)
			}
			if ep.Invocations != tc.invocations || ep.SimulatedMinutes != tc.minutes || ep.EndedAt != tc.endedAt {
				t.Errorf("invocations %d, minutes %d, ended %s; want %d, %d, %s", ep.Invocations, ep.SimulatedMinutes, ep.EndedAt, tc.invocations, tc.minutes, tc.endedAt)
			}
			if len(ep.Trajectory) != tc.rows || len(ep.Decisions) != tc.decisions || len(ep.Events) != tc.events ||
				c["effect_accepted"] != tc.accepted || c["retrieval_served"] != tc.served || c["side_effect_failed"] != tc.failed {
				t.Errorf("rows %d decisions %d events %d accepted %d served %d failed %d; want %d %d %d %d %d %d",
					len(ep.Trajectory), len(ep.Decisions), len(ep.Events), c["effect_accepted"], c["retrieval_served"], c["side_effect_failed"],
					tc.rows, tc.decisions, tc.events, tc.accepted, tc.served, tc.failed)
			}
			if ep.ReplayOK == nil || !*ep.ReplayOK {
				t.Error("self-check rerun did not reproduce the episode")
			}
		})
	}
}

// V2: the transfer notice commits and then permanently fails to dispatch;
// the committed decision is preserved, nothing is retried, and the operation
// still transfers. Row 147 is the delta document's example (§2.7), with its
// keys in code-point order: that example prints record_type before
// recipient_actor_id, which no canonical encoder does.
func TestV2PermanentDispatchFault(t *testing.T) {
	ep := runReference(t, "V2", engine.SelfCheckNone)
	b, err := canon.Upstream(ep.Trajectory[147])
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"at":"2031-03-07T11:30:00Z","channel":"message_dispatch","committed_decision_preserved":true,"index":147,"message_fixture_id":"msg_transfer_notice","recipient_actor_id":"customer_1","record_type":"side_effect_failed"}`
	if string(b) != want {
		t.Errorf("V2 row 147 = %s\nwant %s", b, want)
	}
	next := ep.Trajectory[148].(map[string]any)
	if next["record_type"] != "effect_accepted" || next["action_type"] != "send_message" || next["code"] != "ACCEPTED" {
		t.Errorf("row 148 = %v, want the accepted send_message effect", next)
	}
	for _, r := range rowsOf(ep, "side_effect") {
		if r["message_fixture_id"] == "msg_transfer_notice" {
			t.Errorf("a transfer notice delivery was invented: %v", r)
		}
	}
	if ep.FinalState["transfer_notice_sent"] != true || ep.FinalState["ownership_transferred_to"] != "operator_1" {
		t.Errorf("final state transfer fields = %v / %v", ep.FinalState["transfer_notice_sent"], ep.FinalState["ownership_transferred_to"])
	}
}

// V3: the approval times out (reminder, then deadline); the late approval is
// recorded as refused and mutates nothing.
func TestV3LateApprovalIsNonMutating(t *testing.T) {
	ep := runReference(t, "V3", engine.SelfCheckNone)
	rej := rowsOf(ep, "event_rejected")
	if len(rej) != 1 || rej[0]["event_id"] != "v3_e08" || rej[0]["code"] != "CHECKPOINT_NOT_OPEN" ||
		rej[0]["detail"] != "checkpoint 'checkpoint_1' is EXPIRED; a decision that arrives after it closed cannot mutate the operation" {
		t.Fatalf("event_rejected rows = %v", rej)
	}
	var resolutions []any
	for _, r := range rowsOf(ep, "checkpoint_resolved") {
		resolutions = append(resolutions, r["resolution"])
	}
	if len(resolutions) != 2 || resolutions[0] != "EXPIRED" || resolutions[1] != "TAKE_OWNERSHIP" {
		t.Errorf("checkpoint resolutions = %v, want [EXPIRED TAKE_OWNERSHIP]", resolutions)
	}
	approval := ep.FinalState["approvals"].(map[string]any)["checkpoint_1"].(map[string]any)
	if approval["status"] != "EXPIRED" || approval["reminder_fired"] != true {
		t.Errorf("checkpoint_1 = %v, want EXPIRED with the reminder fired", approval)
	}
	var reminders int
	for _, r := range rowsOf(ep, "action_proposed") {
		if p := r["payload"].(map[string]any); p["message_fixture_id"] == "msg_approval_reminder" {
			reminders++
		}
	}
	if reminders != 1 {
		t.Errorf("%d approval reminders sent, want 1", reminders)
	}
}

func episodeBytes(t testing.TB, ep *engine.Episode) []byte {
	var buf bytes.Buffer
	for _, v := range []any{ep.Trajectory, ep.FinalState, ep.Events, ep.Decisions} {
		b, err := canon.Upstream(v)
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

func TestDeterminism(t *testing.T) {
	n := 100
	if testing.Short() {
		n = 10
	}
	for _, scenario := range []string{"V1", "V2", "V3"} {
		want := episodeBytes(t, runReference(t, scenario, engine.SelfCheckNone))
		for _, procs := range []int{1, 2} {
			prev := runtime.GOMAXPROCS(procs)
			for i := 0; i < n; i++ {
				if got := episodeBytes(t, runReference(t, scenario, engine.SelfCheckNone)); !bytes.Equal(got, want) {
					runtime.GOMAXPROCS(prev)
					t.Fatalf("%s run %d with GOMAXPROCS=%d differs from the first run", scenario, i, procs)
				}
			}
			runtime.GOMAXPROCS(prev)
		}
	}
}

// The instance id reaches observation digests (and so the decisions digest)
// but never the trajectory or the final state.
func TestInstanceIDReachesOnlyObservations(t *testing.T) {
	op := defaultOp(t, "V1")
	other, err := engine.Execute(op, maintenance.NewReference(), "opinst_ffffffffffffffffffffffffffffffff")
	if err != nil {
		t.Fatal(err)
	}
	pinned := runReference(t, "V1", engine.SelfCheckNone)
	if other.TrajectoryDigest != pinned.TrajectoryDigest || other.FinalStateDigest != pinned.FinalStateDigest {
		t.Error("the instance id changed the trajectory or final-state digest")
	}
	if other.DecisionsDigest == pinned.DecisionsDigest {
		t.Error("the instance id did not change the decisions digest")
	}
}

func TestPlaybackReproducesAndRefuses(t *testing.T) {
	op := defaultOp(t, "V1")
	first := runReference(t, "V1", engine.SelfCheckNone)
	replayed, err := engine.Execute(op, engine.NewPlayback(first.Decisions), pinnedInstance)
	if err != nil {
		t.Fatal(err)
	}
	if replayed.TrajectoryDigest != first.TrajectoryDigest || replayed.DecisionsDigest != first.DecisionsDigest {
		t.Error("playback did not reproduce the episode")
	}
	// Another instance id: every observation digest differs.
	if _, err := engine.Execute(op, engine.NewPlayback(first.Decisions), "opinst_ffffffffffffffffffffffffffffffff"); refusal.Of(err) != engine.ErrObservationMismatch.Class {
		t.Errorf("playback under another instance: %v, want %s", err, engine.ErrObservationMismatch.Class)
	}
	if _, err := engine.Execute(op, engine.NewPlayback(first.Decisions[:10]), pinnedInstance); refusal.Of(err) != engine.ErrTapeExhausted.Class {
		t.Errorf("short tape: %v, want %s", err, engine.ErrTapeExhausted.Class)
	}
	long := append(append([]any{}, first.Decisions...), first.Decisions[0])
	if _, err := engine.Execute(op, engine.NewPlayback(long), pinnedInstance); refusal.Of(err) != engine.ErrTapeUnconsumed.Class {
		t.Errorf("long tape: %v, want %s", err, engine.ErrTapeUnconsumed.Class)
	}
	swapped := append([]any{}, first.Decisions...)
	swapped[0], swapped[2] = swapped[2], swapped[0]
	if _, err := engine.Execute(op, engine.NewPlayback(swapped), pinnedInstance); refusal.Of(err) != engine.ErrDecisionOrder.Class {
		t.Errorf("reordered tape: %v, want %s", err, engine.ErrDecisionOrder.Class)
	}
	bad := append([]any{}, first.Decisions...)
	rec := canon.Clone(bad[1]).(map[string]any)
	rec["outcome"].(map[string]any)["kind"] = "SHOUT"
	bad[1] = rec
	if _, err := engine.Execute(op, engine.NewPlayback(bad), pinnedInstance); refusal.Of(err) != engine.ErrMalformedDecision.Class {
		t.Errorf("malformed decision: %v, want %s", err, engine.ErrMalformedDecision.Class)
	}
}

// dupEvent is a domain whose plan schedules its first authored event twice.
type dupEvent struct{ engine.Domain }

func (d dupEvent) Plan() *engine.Plan {
	p := *d.Domain.Plan()
	p.Events = append(append([]engine.PlannedEvent{}, p.Events...), p.Events[0])
	return &p
}

// TestEngineRefusesItsConfig: an event identity scheduled twice and a run
// without a domain or with an unknown self-check mode are refused by class.
func TestEngineRefusesItsConfig(t *testing.T) {
	op := defaultOp(t, "V1")
	first := runReference(t, "V1", engine.SelfCheckNone)
	if _, err := engine.Execute(dupEvent{op}, engine.NewPlayback(first.Decisions), pinnedInstance); refusal.Of(err) != engine.ErrDuplicateEventID.Class {
		t.Errorf("an event scheduled twice: %v, want %s", err, engine.ErrDuplicateEventID.Class)
	}
	if _, err := engine.Run(engine.Config{}); refusal.Of(err) != engine.ErrConfig.Class {
		t.Errorf("no domain: %v, want %s", err, engine.ErrConfig.Class)
	}
}

// specWith replaces one line of the embedded default operation.
func specWith(t *testing.T, old, new string) []byte {
	t.Helper()
	src := string(maintenance.DefaultOperation())
	if !strings.Contains(src, old) {
		t.Fatalf("the default operation has no %q", old)
	}
	return []byte(strings.Replace(src, old, new, 1))
}

func TestLoaderRefusals(t *testing.T) {
	for _, tc := range []struct {
		name     string
		old, new string
		want     *refusal.Refusal
	}{
		{"duplicate key", "operation_type: lettings.maintenance.synthetic\n", "operation_type: lettings.maintenance.synthetic\noperation_type: again\n", maintenance.ErrDuplicateKey},
		{"non-string instant", `starts_at: "2031-03-03T09:00:00Z"`, `starts_at: 2031-03-03T09:00:00Z`, maintenance.ErrNonStringInstant},
		{"malformed instant", `starts_at: "2031-03-03T09:00:00Z"`, `starts_at: "2031-03-03 09:00"`, maintenance.ErrMalformedInstant},
		{"malformed event instant", `at: "2031-03-03T09:00:00Z",
         payload: {issue_id: issue_1`, `at: "2031-02-30T09:00:00Z",
         payload: {issue_id: issue_1`, maintenance.ErrMalformedInstant},
		{"unknown event type", "type: supplier_visit_response,", "type: supplier_visit_status,", maintenance.ErrUnknownEventType},
		{"actor without authority", "{event_id: v1_e10, type: work_evidence_verified, actor: maintenance_system", "{event_id: v1_e10, type: work_evidence_verified, actor: supplier_1", maintenance.ErrActorLacksAuthority},
		{"clock rewind (negative delay)", "delay_minutes: 2760,", "delay_minutes: -5,", maintenance.ErrClockRewind},
		{"clock rewind (event before start)", `at: "2031-03-03T09:00:00Z",
         payload: {issue_id: issue_1`, `at: "2031-03-02T09:00:00Z",
         payload: {issue_id: issue_1`, maintenance.ErrClockRewind},
		{"unknown field", "schema_version: 1\n", "schema_version: 1\nextra_field: 1\n", maintenance.ErrUnknownField},
		{"unknown payload field", "response: ACCEPTED}", "response: ACCEPTED, mood: calm}", maintenance.ErrUnknownField},
		{"schema", "human_checkpoint_budget: 1", "human_checkpoint_budget: -1", maintenance.ErrSchema},
		{"ambiguous scalar", "approval_threshold_minor: 25000", "approval_threshold_minor: 0x61A8", maintenance.ErrAmbiguousScalar},
		{"alias", "policy:\n", "policy: &p\n", maintenance.ErrFormat},
		{"unknown reference", "dispatch_failures: [msg_transfer_notice]", "dispatch_failures: [msg_carrier_pigeon]", maintenance.ErrUnknownReference},
		{"duplicate identity", "{event_id: v1_e02,", "{event_id: v1_e01,", maintenance.ErrDuplicateIdentity},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := maintenance.LoadSpec(specWith(t, tc.old, tc.new), "mutated.yaml")
			if refusal.Of(err) != tc.want.Class {
				t.Errorf("LoadSpec(%s) = %v, want %s", tc.name, err, tc.want.Class)
			}
		})
	}
	if _, err := maintenance.LoadSpec([]byte("a: 1\n---\nb: 2\n"), "two.yaml"); refusal.Of(err) != maintenance.ErrFormat.Class {
		t.Errorf("two documents: %v, want %s", err, maintenance.ErrFormat.Class)
	}
}

func TestUnknownScenarioAndIdentity(t *testing.T) {
	spec, _ := maintenance.DefaultSpec()
	if _, err := maintenance.NewOperation(spec, "V9"); refusal.Of(err) != maintenance.ErrUnknownScenario.Class {
		t.Errorf("NewOperation(V9) = %v, want %s", err, maintenance.ErrUnknownScenario.Class)
	}
	changed, err := maintenance.LoadSpec(maintenance.DefaultOperation(), "copy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	changed.Policy.ApprovalThresholdMinor = 1
	if _, err := maintenance.NewOperation(changed, "V1"); refusal.Of(err) != maintenance.ErrIdentityMismatch.Class {
		t.Errorf("NewOperation(changed spec) = %v, want %s", err, maintenance.ErrIdentityMismatch.Class)
	}
	if _, err := maintenance.NewOperations(spec, []string{"V1", "V9"}); refusal.Of(err) != maintenance.ErrUnknownScenario.Class {
		t.Errorf("NewOperations(V1, V9) = %v, want %s", err, maintenance.ErrUnknownScenario.Class)
	}
	if _, err := maintenance.NewOperations(changed, []string{"V1"}); refusal.Of(err) != maintenance.ErrIdentityMismatch.Class {
		t.Errorf("NewOperations(changed spec) = %v, want %s", err, maintenance.ErrIdentityMismatch.Class)
	}
	ops, err := maintenance.NewOperations(spec, spec.ScenarioIDs())
	if err != nil || len(ops) != len(spec.Scenarios) {
		t.Fatalf("NewOperations(all) = %d operations, %v", len(ops), err)
	}
	for id, op := range ops {
		if one, err := maintenance.NewOperation(spec, id); err != nil || !reflect.DeepEqual(one, op) {
			t.Errorf("NewOperations' %s differs from NewOperation's (%v)", id, err)
		}
	}
}

// OpenOperation binds a spec of the operation's own without re-verifying
// it: the same operation NewOperation binds, whose digest is the one its
// content hashes to even after another operation's spec was changed.
func TestOpenOperation(t *testing.T) {
	spec, err := maintenance.DefaultSpec()
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range [][]byte{nil, maintenance.DefaultOperation()} {
		source := "copy.yaml"
		if b == nil {
			source = ""
		}
		first, err := maintenance.OpenOperation(b, source, "V1")
		if err != nil {
			t.Fatal(err)
		}
		// Change what a shared tree would carry over to the next build: the
		// hidden state and every authored event payload, in place.
		first.Spec().Policy.ApprovalThresholdMinor = 1
		first.Spec().Digest = "changed"
		for k := range first.Spec().HiddenState {
			first.Spec().HiddenState[k] = "changed"
		}
		for _, sc := range first.Spec().Scenarios {
			for i := range sc.Events {
				for k := range sc.Events[i].Payload {
					sc.Events[i].Payload[k] = "changed"
				}
			}
		}
		for _, id := range spec.ScenarioIDs() {
			op, err := maintenance.OpenOperation(b, source, id)
			if err != nil {
				t.Fatal(err)
			}
			want := defaultOp(t, id)
			if b == nil && !reflect.DeepEqual(op, want) {
				t.Errorf("OpenOperation(nil, %s) differs from NewOperation(DefaultSpec(), %s)", id, id)
			}
			if d, err := op.Spec().ComputeDigest(); err != nil || d != specDigest || op.Spec().Digest != specDigest || op.Plan().Meta.SpecDigest != specDigest {
				t.Errorf("OpenOperation(%s, %s): digest %s, computed %s (%v), want %s", source, id, op.Spec().Digest, d, err, specDigest)
			}
		}
		if _, err := maintenance.OpenOperation(b, source, "V9"); refusal.Of(err) != maintenance.ErrUnknownScenario.Class {
			t.Errorf("OpenOperation(%s, V9) = %v, want %s", source, err, maintenance.ErrUnknownScenario.Class)
		}
	}
	if _, err := maintenance.OpenOperation([]byte("a: 1\n---\nb: 2\n"), "two.yaml", "V1"); refusal.Of(err) != maintenance.ErrFormat.Class {
		t.Errorf("OpenOperation(two documents) = %v, want %s", err, maintenance.ErrFormat.Class)
	}
	own, ops, err := maintenance.OpenOperations(nil, "")
	if err != nil {
		t.Fatal(err)
	}
	want, err := maintenance.NewOperations(spec, spec.ScenarioIDs())
	if err != nil || own == spec || !reflect.DeepEqual(own, spec) || !reflect.DeepEqual(ops, want) {
		t.Errorf("OpenOperations(nil) differs from NewOperations(DefaultSpec()) or shares its spec (%v)", err)
	}
	if _, _, err := maintenance.OpenOperations([]byte("a: 1\n---\nb: 2\n"), "two.yaml"); refusal.Of(err) != maintenance.ErrFormat.Class {
		t.Errorf("OpenOperations(two documents) = %v, want %s", err, maintenance.ErrFormat.Class)
	}
}

// An empty actors, message_fixtures or scenarios mapping is refused as a
// schema error naming what is missing.
func TestEmptyMappingsRefused(t *testing.T) {
	b, err := os.ReadFile("operation/lettings_maintenance_synthetic_v1.json")
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{
		"actors":           "embedded: actors must declare at least one actor",
		"message_fixtures": "embedded: message_fixtures: at least one message fixture is required",
		"scenarios":        "embedded: at least one scenario variant is required",
	} {
		tree, err := canon.Parse(b)
		if err != nil {
			t.Fatal(err)
		}
		tree.(map[string]any)[key] = map[string]any{}
		_, err = maintenance.FromTree(tree.(map[string]any), "embedded")
		if refusal.Of(err) != maintenance.ErrSchema.Class || !strings.Contains(err.Error(), want) {
			t.Errorf("empty %s: %v, want %s %q", key, err, maintenance.ErrSchema.Class, want)
		}
	}
}

func TestFastEncodingsMatchCanon(t *testing.T) {
	for _, sc := range []string{"V1", "V2", "V3"} {
		ep, err := engine.Execute(defaultOp(t, sc), projectionChecker{maintenance.NewReference(), t}, pinnedInstance)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			name string
			v    any
			got  string
		}{{"trajectory", ep.Trajectory, ep.TrajectoryDigest}, {"final state", ep.FinalState, ep.FinalStateDigest}, {"decisions", ep.Decisions, ep.DecisionsDigest}} {
			if want, _ := canon.UpstreamDigest(c.v); want != c.got {
				t.Errorf("%s %s digest %s, canon says %s", sc, c.name, c.got, want)
			}
		}
	}
}
