package enginetest

import (
	"bytes"
	"slices"
	"testing"

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/engine"
)

// PackCase is one domain/agent pairing the conformance suite runs.
type PackCase struct {
	Name      string
	NewDomain func() engine.Domain
	NewAgent  func() engine.Agent
}

const instance = "opinst_0123456789abcdef0123456789abcdef"

// TestDomain checks the engine contract for a pack (compare
// slogtest.TestHandler): the same inputs give the same records; running an
// episode mutates neither the plan nor the published vocabulary; every
// record type is in the closed vocabulary and every row carries index, at
// and record_type in order; an unknown action is refused and a refusal
// mutates nothing; Serve mutates nothing and is deterministic.
func TestDomain(t *testing.T, cases ...PackCase) {
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			dom := c.NewDomain()
			planBefore := engine.AppendCanonical(nil, planTree(dom.Plan()))
			staticBefore := engine.AppendCanonical(nil, staticTree(dom.Static()))

			a, err := engine.Execute(dom, c.NewAgent(), instance)
			if err != nil {
				t.Fatal(err)
			}
			b, err := engine.Execute(c.NewDomain(), c.NewAgent(), instance)
			if err != nil {
				t.Fatal(err)
			}
			if a.TrajectoryDigest != b.TrajectoryDigest || a.FinalStateDigest != b.FinalStateDigest || a.DecisionsDigest != b.DecisionsDigest {
				t.Error("the same domain, agent and instance gave different records")
			}
			if !bytes.Equal(planBefore, engine.AppendCanonical(nil, planTree(dom.Plan()))) {
				t.Error("running an episode mutated the domain's plan")
			}
			if !bytes.Equal(staticBefore, engine.AppendCanonical(nil, staticTree(dom.Static()))) {
				t.Error("running an episode mutated the published vocabulary")
			}
			for i, r := range a.Trajectory {
				row, ok := r.(map[string]any)
				if !ok {
					t.Fatalf("row %d is %T, not an object", i, r)
				}
				if row["index"] != int64(i) {
					t.Errorf("row %d has index %v", i, row["index"])
				}
				if _, err := engine.ParseInstant(row["at"].(string)); err != nil {
					t.Errorf("row %d: %v", i, err)
				}
				if rt, _ := row["record_type"].(string); !slices.Contains(engine.RecordTypes, rt) {
					t.Errorf("row %d has record type %q outside the closed vocabulary", i, rt)
				}
			}
			if got := canon.SHA256Hex(engine.AppendCanonical(nil, a.Trajectory)); got != a.TrajectoryDigest {
				t.Errorf("trajectory digest %s does not hash the rows (%s)", a.TrajectoryDigest, got)
			}

			st := dom.NewState()
			before := engine.AppendCanonical(nil, st.Canonical())
			ctx := engine.NewTestContext(dom, st)
			v := st.ApplyAction(ctx, "no_such_action_type", map[string]any{}, nil)
			if v.Accepted || v.Code == "" {
				t.Errorf("an unknown action was not refused by name: %+v", v)
			}
			if !bytes.Equal(before, engine.AppendCanonical(nil, st.Canonical())) {
				t.Error("a refused action mutated the state")
			}
			var tools []string
			for name := range dom.Static().Catalogue {
				tools = append(tools, name)
			}
			slices.Sort(tools)
			r1 := st.Serve(tools, dom.Plan().StartsAt)
			r2 := st.Serve(tools, dom.Plan().StartsAt)
			for i := range r1 {
				if r1[i].RecordVersion != r2[i].RecordVersion || !bytes.Equal(engine.AppendCanonical(nil, r1[i].Records), engine.AppendCanonical(nil, r2[i].Records)) {
					t.Errorf("serving %s twice gave different records", r1[i].Tool)
				}
			}
			if !bytes.Equal(before, engine.AppendCanonical(nil, st.Canonical())) {
				t.Error("serving reads mutated the state")
			}
		})
	}
}

func planTree(p *engine.Plan) map[string]any {
	var events []any
	for _, e := range p.Events {
		events = append(events, map[string]any{"id": e.EventID, "type": e.EventType, "payload": e.Payload, "at": e.At})
	}
	return map[string]any{"starts_at": p.StartsAt, "events": events}
}

func staticTree(s *engine.Static) map[string]any {
	schemas := map[string]any{}
	for k, v := range s.ActionSchemas {
		schemas[k] = v
	}
	return map[string]any{"policy": s.Policy, "actors": s.Actors, "schemas": schemas, "wake": s.WakeEventTypes, "fixtures": s.MessageFixtureIDs}
}
