package maintenance_test

import (
	"bytes"
	"testing"

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/domains/lettings/maintenance"
	"github.com/obaudit/obaudit/domains/lettings/maintenance/agents"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/schemas"
)

// projectionChecker wraps any agent and holds every observation's fast
// digest encoding to the canonical encoding of its projection tree.
type projectionChecker struct {
	engine.Agent
	t testing.TB
}

func (a projectionChecker) Decide(obs *engine.Observation) (engine.Decision, error) {
	want, err := canon.Upstream(obs.Projection())
	if err != nil {
		a.t.Fatal(err)
	}
	if got := obs.ProjectionJSON(); !bytes.Equal(got, want) {
		a.t.Fatalf("invocation %d turn %d: projection bytes differ\n got %s\nwant %s", obs.InvocationIndex, obs.TurnIndex, got, want)
	}
	if got, want := obs.Digest(), canon.SHA256Hex(want); got != want {
		a.t.Fatalf("invocation %d turn %d: observation digest %s, canon says %s", obs.InvocationIndex, obs.TurnIndex, got, want)
	}
	return a.Agent.Decide(obs)
}

// TestServeCacheIsExact runs every registered agent (the reference and the
// eight negatives) on every variant with the pack's verification mode on:
// every Serve re-derives every tool's records from freshly built trees and
// panics unless the served bytes, the cached trees and the direct root
// encodings all equal them, and every final-state encoding is held to the
// tree. The runs' digests must equal canon's digests of the returned trees
// and the ones the same runs give with verification off, and the self-check
// rerun must agree.
func TestServeCacheIsExact(t *testing.T) {
	eachCell(t, func(t *testing.T, e agents.Entry, op *maintenance.Operation) {
		run := func(verify bool) *engine.Episode {
			maintenance.VerifyServeCache(verify)
			defer maintenance.VerifyServeCache(false)
			ep, err := engine.Run(engine.Config{
				Domain: op, NewAgent: func() engine.Agent { return projectionChecker{e.New(), t} },
				AgentID: e.ID, AgentKind: e.Kind, OperationInstanceID: pinnedInstance,
				EngineVersion: schemas.EngineObaudit, SelfCheck: engine.SelfCheckRerun,
			})
			if err != nil {
				t.Fatal(err)
			}
			return ep
		}
		checked, plain := run(true), run(false)
		for _, ep := range []*engine.Episode{checked, plain} {
			if ep.ReplayOK == nil || !*ep.ReplayOK {
				t.Fatalf("self-check rerun disagrees")
			}
			for _, c := range []struct {
				name string
				v    any
				got  string
			}{{"trajectory", ep.Trajectory, ep.TrajectoryDigest}, {"final state", ep.FinalState, ep.FinalStateDigest}, {"decisions", ep.Decisions, ep.DecisionsDigest}} {
				if want, err := canon.UpstreamDigest(c.v); err != nil || want != c.got {
					t.Errorf("%s digest %s, canon says %s (%v)", c.name, c.got, want, err)
				}
			}
		}
		if !bytes.Equal(episodeBytes(t, checked), episodeBytes(t, plain)) || checked.TrajectoryDigest != plain.TrajectoryDigest ||
			checked.FinalStateDigest != plain.FinalStateDigest || checked.DecisionsDigest != plain.DecisionsDigest {
			t.Error("verification mode changed the episode")
		}
	})
}

// eachCell runs f as a subtest "agent/variant" for every registered agent
// (the reference and the eight negatives) on every variant of the embedded
// spec, the variant bound.
func eachCell(t *testing.T, f func(t *testing.T, e agents.Entry, op *maintenance.Operation)) {
	for _, e := range agents.Entries() {
		for _, sc := range []string{"V1", "V2", "V3"} {
			t.Run(e.ID+"/"+sc, func(t *testing.T) {
				f(t, e, defaultOp(t, sc))
			})
		}
	}
}
