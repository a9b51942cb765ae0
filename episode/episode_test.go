package episode_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"testing"

	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/domains"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/episode"
	"github.com/obaudit/obaudit/internal/upstreamtest"
	"github.com/obaudit/obaudit/schemas"
)

const pinnedInstance = "opinst_0123456789abcdef0123456789abcdef"

// testOptions registers the maintenance pack with the artefact reader the
// way cmd/obaudit does, with a root-shape state check.
func testOptions() artefact.Options {
	var opts artefact.Options
	for _, p := range domains.Packs() {
		agents := map[string]string{}
		for _, a := range p.Agents {
			agents[a.ID] = a.Kind
		}
		opts.Domains = append(opts.Domains, artefact.Domain{
			OperationType:   p.OperationType,
			TerminalClasses: []string{"completed_successfully", "transferred_to_human_ownership"},
			Agents:          agents,
			ValidateState:   func(map[string]any, string, int, bool) error { return nil },
		})
	}
	return opts
}

func operation(t testing.TB, scenario string) engine.Domain {
	t.Helper()
	d, err := domains.Default().Operation(nil, "", scenario)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func runConfig(t testing.TB, scenario, agentID, engineVersion string) episode.Config {
	t.Helper()
	p := domains.Default()
	a, ok := p.Agent(agentID)
	if !ok {
		t.Fatalf("no agent %q", agentID)
	}
	return episode.Config{
		Domain: operation(t, scenario), NewAgent: a.New, AgentID: a.ID, AgentKind: a.Kind,
		OperationInstanceID: pinnedInstance, EngineVersion: engineVersion,
	}
}

// The V1 reference run under engine 0.9.0 with the pinned instance id
// writes upstream's artefact byte for byte.
func TestRunReproducesUpstreamArtefact(t *testing.T) {
	want := upstreamtest.Read(t, "artifact8-deterministic-reference-v1.json")
	res, err := episode.Run(runConfig(t, "V1", "reference", schemas.EngineUpstream))
	if err != nil {
		t.Fatal(err)
	}
	got, err := artefact.Encode(res.Artefact, testOptions())
	if err != nil {
		t.Fatalf("Encode = %v", err)
	}
	sum := sha256.Sum256(got)
	if h := hex.EncodeToString(sum[:]); h != "45f2f3bec377230a0fc464c5ea1b64798a053beeb588c3ec4bdb477eaf7cfab5" || !bytes.Equal(got, want) {
		t.Fatalf("artefact sha256 %s (%d bytes), want upstream's 45f2f3be… (%d bytes)", h, len(got), len(want))
	}
}

func registry(id string) (episode.Registered, bool) {
	a, ok := domains.Default().Agent(id)
	return episode.Registered{Kind: a.Kind, New: a.New}, ok
}

func readFixture(t testing.TB, name string) *artefact.Document {
	t.Helper()
	doc, err := artefact.Read(upstreamtest.Read(t, name), testOptions())
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// Replay reproduces both upstream contract-8 artefacts under engine 0.9.0:
// the deterministic one by rerun (nothing carried), the model one by tape
// playback with the execution record and binding carried forward, and no
// provider call either way.
func TestReplayUpstreamArtefacts(t *testing.T) {
	for _, tc := range []struct {
		name, reproduction string
		carried            []string
	}{
		{"artifact8-deterministic-reference-v1.json", artefact.ReproductionRerun, nil},
		{"artifact8-fake-openai-reference-v1.json", artefact.ReproductionPlayback,
			[]string{"agent_execution", "agent_id", "agent_kind", "decisions", "decisions_digest_sha256", "provider_execution"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := readFixture(t, tc.name)
			ft := &episode.ForbiddenTransport{}
			r, err := episode.Replay(doc, episode.ReplayConfig{Domain: operation(t, "V1"), Agents: registry, Transport: ft})
			if err != nil {
				t.Fatalf("Replay = %v", err)
			}
			if !r.OK() || r.FirstDivergence != nil || len(r.Differences) != 0 {
				t.Fatalf("Replay not ok: %v (first %+v)", r.Differences, r.FirstDivergence)
			}
			if r.Reproduction != tc.reproduction {
				t.Errorf("Reproduction = %q, want %q", r.Reproduction, tc.reproduction)
			}
			if !slices.Equal(r.CarriedForward, tc.carried) || r.TotalComparison() != (len(tc.carried) == 0) {
				t.Errorf("CarriedForward = %v, want %v", r.CarriedForward, tc.carried)
			}
			if r.ProviderCalls != 0 || ft.Calls() != 0 {
				t.Errorf("provider calls = %d/%d, want 0", r.ProviderCalls, ft.Calls())
			}
			if r.ReplayedTrajectoryDigest != "16dd2845143fea411282753df6832cc51eccdad76f4d37feb77bc98ca1469439" {
				t.Errorf("replayed trajectory digest %s", r.ReplayedTrajectoryDigest)
			}
		})
	}
}

// Without --engine a run names obaudit's own engine, and its artefact
// differs from the upstream-engine one only where that version's grading
// differs: the engine_version everywhere, and the evaluation only for V2
// (the later notification rule fails the undelivered transfer notice).
func TestEnginesDifferOnlyInGrading(t *testing.T) {
	for _, tc := range []struct {
		scenario string
		differ   []string
	}{
		{"V1", []string{"engine_version"}},
		{"V2", []string{"engine_version", "evaluation"}},
		{"V3", []string{"engine_version"}},
	} {
		t.Run(tc.scenario, func(t *testing.T) {
			up, err := episode.Run(runConfig(t, tc.scenario, "reference", schemas.EngineUpstream))
			if err != nil {
				t.Fatal(err)
			}
			own, err := episode.Run(runConfig(t, tc.scenario, "reference", schemas.EngineObaudit))
			if err != nil {
				t.Fatal(err)
			}
			a, b := up.Artefact.Tree(), own.Artefact.Tree()
			var differ []string
			for _, k := range artefact.Fields(8) {
				x, _ := canonBytes(a[k])
				y, _ := canonBytes(b[k])
				if !bytes.Equal(x, y) {
					differ = append(differ, k)
				}
			}
			if !slices.Equal(differ, tc.differ) {
				t.Fatalf("fields that differ between engines = %v, want %v", differ, tc.differ)
			}
			if own.Artefact.EngineVersion != schemas.EngineObaudit {
				t.Fatalf("engine_version = %q", own.Artefact.EngineVersion)
			}
		})
	}
}

func canonBytes(v any) ([]byte, error) { return canon.Upstream(v) }
