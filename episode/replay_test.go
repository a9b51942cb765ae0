package episode_test

import (
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/episode"
	"github.com/obaudit/obaudit/internal/upstreamtest"
	"github.com/obaudit/obaudit/refusal"
)

const (
	fixtureDet   = "artifact8-deterministic-reference-v1.json"
	fixtureModel = "artifact8-fake-openai-reference-v1.json"
)

// edited parses a fixture, applies edit, reseals the content digests and
// reads the result back through the full validator.
func edited(t *testing.T, name string, edit func(d map[string]any)) *artefact.Document {
	t.Helper()
	doc, err := artefact.Read(upstreamtest.Edited(t, name, edit), testOptions())
	if err != nil {
		t.Fatalf("edited %s does not validate: %v", name, err)
	}
	return doc
}

func replay(t *testing.T, doc *artefact.Document, scenario string) (*artefact.ReplayReport, error) {
	t.Helper()
	return episode.Replay(doc, episode.ReplayConfig{Domain: operation(t, scenario), Agents: registry})
}

func mm(x any) map[string]any { return x.(map[string]any) }
func ll(x any) []any          { return x.([]any) }

func fieldVerdict(r *artefact.ReplayReport, section, field string) (artefact.FieldVerdict, bool) {
	s, ok := r.Section(section)
	if !ok {
		return artefact.FieldVerdict{}, false
	}
	for _, f := range s.Fields {
		if f.Name == field {
			return f, true
		}
	}
	return artefact.FieldVerdict{}, false
}

// Differences a replay reports (not refusals): the section, field and first
// divergence pointer are named.
func TestReplayReportsDivergence(t *testing.T) {
	for _, tc := range []struct {
		name     string
		fixture  string
		edit     func(d map[string]any)
		section  string
		field    string
		pointer  string
		sections []string // every section that must differ
	}{
		// X24: a reference run relabelled negative is an identity
		// difference (the replay derives the kind from the registry).
		{"X24-reference-labelled-negative", fixtureDet, func(d map[string]any) { d["agent_kind"] = "negative" },
			"identity", "agent_kind", "/agent_kind", []string{"identity"}},
		{"simulated-minutes-edited", fixtureDet, func(d map[string]any) { d["simulated_minutes"] = int64(14791) },
			"metadata", "simulated_minutes", "/simulated_minutes", []string{"metadata"}},
		{"final-state-edited-consistently", fixtureDet, func(d map[string]any) { mm(d["final_state"])["reopen_count"] = int64(7) },
			"final_state", "final_state", "/final_state/reopen_count", []string{"final_state"}},
		{"evaluation-note-edited", fixtureDet, func(d map[string]any) {
			mm(ll(mm(d["evaluation"])["dimensions"])[0])["note"] = "expected anything"
		}, "evaluation", "evaluation", "/evaluation/dimensions/0/note", []string{"evaluation"}},
		{"event-payload-edited", fixtureDet, func(d map[string]any) {
			mm(mm(ll(d["events"])[0])["payload"])["description_fixture_id"] = "fixture_other"
		}, "events", "events", "/events/0/payload/description_fixture_id", []string{"events"}},
		// A rerun does not read the tape: an edited observation digest is a
		// decisions difference, named at the decision.
		{"rerun-tape-observation-edited", fixtureDet, func(d map[string]any) {
			mm(ll(d["decisions"])[5])["observation_digest_sha256"] = strings.Repeat("0", 64)
		}, "decisions", "decisions", "/decisions/5/observation_digest_sha256", []string{"decisions"}},
		// A trajectory row edited consistently: the first divergence is the
		// row (where the runs parted), not the metadata.
		{"trajectory-rationale-edited", fixtureDet, func(d map[string]any) {
			mm(mm(ll(d["trajectory"])[11])["outcome"])["rationale"] = "edited"
		}, "trajectory", "trajectory", "/trajectory/11/outcome/rationale", []string{"trajectory"}},
		// Playback of a model record whose tape decision was edited: the
		// edited decision is executed, so the trajectory differs from the
		// row it wrote onwards.
		{"playback-decision-rationale-edited", fixtureModel, func(d map[string]any) {
			mm(mm(ll(d["decisions"])[1])["outcome"])["rationale"] = "edited"
		}, "trajectory", "trajectory", "/trajectory/11/outcome/rationale", []string{"trajectory"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := replay(t, edited(t, tc.fixture, tc.edit), "V1")
			if err != nil {
				t.Fatalf("Replay = %v, want a report", err)
			}
			if r.OK() {
				t.Fatal("Replay OK on an edited record")
			}
			d := r.FirstDivergence
			if d == nil || d.Section != tc.section || d.Field != tc.field || d.Pointer != tc.pointer {
				t.Fatalf("FirstDivergence = %+v, want %s/%s at %s", d, tc.section, tc.field, tc.pointer)
			}
			for _, s := range r.Sections {
				if want := !slices.Contains(tc.sections, s.Name); s.Matches != want {
					t.Errorf("section %s matches = %v, want %v", s.Name, s.Matches, want)
				}
			}
			if fv, ok := fieldVerdict(r, tc.section, tc.field); !ok || fv.Matches || fv.FirstDifference != tc.pointer {
				t.Errorf("field verdict %+v", fv)
			}
		})
	}
}

// Refusals a replay raises before or instead of a comparison.
func TestReplayRefusals(t *testing.T) {
	for _, tc := range []struct {
		name     string
		doc      func(t *testing.T) *artefact.Document
		scenario string
		class    *refusal.Refusal
	}{
		{"engine-not-run-by-this-build", func(t *testing.T) *artefact.Document {
			return edited(t, fixtureDet, func(d map[string]any) { d["engine_version"] = "0.13.0" })
		}, "V1", episode.ErrEngineMismatch},
		{"spec-digest-of-another-operation", func(t *testing.T) *artefact.Document {
			return edited(t, fixtureDet, func(d map[string]any) { mm(d["operation"])["spec_digest_sha256"] = strings.Repeat("a", 64) })
		}, "V1", episode.ErrSpecMismatch},
		{"operation-bound-to-another-scenario", func(t *testing.T) *artefact.Document {
			return edited(t, fixtureDet, func(map[string]any) {})
		}, "V2", episode.ErrSpecMismatch},
		{"retrieval-record-version-edited", func(t *testing.T) *artefact.Document {
			return edited(t, fixtureDet, func(d map[string]any) { mm(ll(d["trajectory"])[4])["record_version"] = "0000000000000000" })
		}, "V1", artefact.ErrRetrievalProvenance},
		{"retrieval-records-edited", func(t *testing.T) *artefact.Document {
			return edited(t, fixtureDet, func(d map[string]any) { mm(mm(ll(d["trajectory"])[4])["records"])["injected"] = "x" })
		}, "V1", artefact.ErrRetrievalProvenance},
		{"playback-observation-digest-edited", func(t *testing.T) *artefact.Document {
			return edited(t, fixtureModel, func(d map[string]any) {
				mm(ll(d["decisions"])[3])["observation_digest_sha256"] = strings.Repeat("0", 64)
			})
		}, "V1", engine.ErrObservationMismatch},
		{"playback-tape-order-moved", func(t *testing.T) *artefact.Document {
			return edited(t, fixtureModel, func(d map[string]any) {
				// The last decision moves one turn later: the tape is still
				// strictly increasing, and the episode asks for it a turn
				// earlier than it was recorded.
				ds, as := ll(d["decisions"]), ll(mm(d["agent_execution"])["attempts"])
				for _, x := range []map[string]any{mm(ds[len(ds)-1]), mm(as[len(as)-1])} {
					x["turn_index"] = x["turn_index"].(int64) + 1
				}
			})
		}, "V1", engine.ErrDecisionOrder},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := replay(t, tc.doc(t), tc.scenario)
			if refusal.Of(err) != tc.class.Class {
				c, _ := refusal.ClassOf(err)
				t.Fatalf("Replay = %v (class %q), want %s", err, c, tc.class.Class)
			}
		})
	}
}

// A contract-1 record is read and never reproduced, before anything runs.
func TestReplayRefusesContract1(t *testing.T) {
	doc, err := artefact.Read(upstreamtest.Read(t, "artifact1-reference-V1.json"), testOptions())
	if err != nil {
		t.Fatal(err)
	}
	_, err = episode.Replay(doc, episode.ReplayConfig{}) // no domain, no agents: nothing may be reached
	if refusal.Of(err) != artefact.ErrNotReproducible.Class {
		t.Fatalf("Replay(contract 1) = %v, want %s", err, artefact.ErrNotReproducible.Class)
	}
}

// A deterministic record whose agent the registry passed in cannot rebuild.
func TestReplayUnknownAgent(t *testing.T) {
	doc := readFixture(t, fixtureDet)
	_, err := episode.Replay(doc, episode.ReplayConfig{Domain: operation(t, "V1"),
		Agents: func(string) (episode.Registered, bool) { return episode.Registered{}, false }})
	if refusal.Of(err) != episode.ErrUnknownAgent.Class {
		t.Fatalf("Replay = %v, want %s", err, episode.ErrUnknownAgent.Class)
	}
}

// X47: a deterministic run re-minted as a coherent model record with an
// invented binding validates and replays ok by playback: consistency is
// not attestation (only the bundle audit reaches the ledger).
func TestReplayAcceptsCoherentReminting(t *testing.T) {
	doc := remint(t, "openai-m")
	r, err := replay(t, doc, "V1")
	if err != nil {
		t.Fatal(err)
	}
	if !r.OK() || r.TotalComparison() || len(r.Unverified) == 0 {
		t.Fatalf("reminted record: ok=%v total=%v unverified=%v; want ok, not total, request digests unverified", r.OK(), r.TotalComparison(), r.Unverified)
	}
}

// A model record whose agent id is not the one its binding names is
// refused: the run would read as another agent's or vendor's.
func TestReplayRefusesUnboundAgent(t *testing.T) {
	_, err := replay(t, remint(t, "anthropic-claude-9"), "V1")
	if c, _ := refusal.ClassOf(err); c != episode.ErrAgentUnbound.Class {
		t.Fatalf("Replay = %v, want %s", err, episode.ErrAgentUnbound.Class)
	}
}

// remint turns the deterministic fixture into a coherent model record of
// model "m" at provider openai, under agentID.
func remint(t *testing.T, agentID string) *artefact.Document {
	return edited(t, fixtureDet, func(d map[string]any) {
		d["agent_id"], d["agent_kind"] = agentID, "model"
		ex := mm(d["agent_execution"])
		var attempts, index []any
		for i, x := range ll(d["decisions"]) {
			dec := mm(x)
			sum, _ := canon.UpstreamDigest(map[string]any{"reminted": int64(i)})
			attempts = append(attempts, map[string]any{"invocation_index": dec["invocation_index"], "turn_index": dec["turn_index"],
				"request_digest_sha256": sum, "outcome": "decided", "fault": nil})
			index = append(index, int64(i))
		}
		ex["outcome_source"], ex["model"], ex["protocol_version"] = "model", "m", "operatebench.model.v4"
		ex["max_output_tokens"], ex["transport_calls"], ex["attempts"] = int64(4096), int64(len(attempts)), attempts
		d["provider_execution"] = map[string]any{
			"execution_run_id": "exec_" + strings.Repeat("0", 32), "execution_ledger_version": int64(3),
			"execution_ledger_digest_sha256": strings.Repeat("0", 64), "provider": "openai", "api": "responses", "model": "m",
			"settings_digest_sha256": strings.Repeat("1", 64), "pricing_digest_sha256": strings.Repeat("2", 64),
			"provider_calls": int64(len(attempts)), "attempts": int64(len(attempts)), "measured_cost_usd": "0",
			"forfeited_reservation_usd": "0", "input_tokens": int64(0), "output_tokens": int64(0), "decision_call_index": index,
		}
	})
}

// The forbidden transport refuses and counts every call.
func TestForbiddenTransport(t *testing.T) {
	var ft episode.ForbiddenTransport
	for i := 0; i < 2; i++ {
		if _, err := ft.Send([]byte("{}")); refusal.Of(err) != episode.ErrProviderCallForbidden.Class {
			t.Fatalf("Send = %v, want %s", err, episode.ErrProviderCallForbidden.Class)
		}
	}
	if ft.Calls() != 2 {
		t.Fatalf("Calls() = %d, want 2", ft.Calls())
	}
}

// Replay cannot reach a network: nothing linked into the replay path (this
// package, the engine, the evaluator, the artefact reader) imports a
// networking or process-spawning package. Together with the forbidden
// transport's zero count this is the zero-network, zero-provider proof.
func TestReplayPathLinksNoNetwork(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/obaudit/obaudit/episode").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		switch {
		case pkg == "net" || strings.HasPrefix(pkg, "net/") || pkg == "crypto/tls" || pkg == "os/exec" || strings.HasPrefix(pkg, "golang.org/x/net"):
			t.Errorf("the replay path links %s", pkg)
		}
	}
}

// A recorded-playback record replays to a playback: the execution record is
// re-derived (no provider, no attempts), only the tape and the identity it
// names are carried.
func TestReplayRecordedPlayback(t *testing.T) {
	doc := edited(t, fixtureModel, func(d map[string]any) {
		d["agent_kind"] = "recorded"
		ex := mm(d["agent_execution"])
		ex["outcome_source"] = "recorded"
		ex["model"], ex["protocol_version"], ex["max_output_tokens"] = nil, nil, nil
		ex["transport_calls"], ex["attempts"] = int64(0), []any{}
		d["provider_execution"] = nil
	})
	r, err := replay(t, doc, "V1")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"agent_id", "agent_kind", "decisions", "decisions_digest_sha256"}
	if !r.OK() || r.Reproduction != artefact.ReproductionPlayback || !slices.Equal(r.CarriedForward, want) || len(r.Unverified) != 0 {
		t.Fatalf("ok=%v reproduction=%s carried=%v unverified=%v differences=%v", r.OK(), r.Reproduction, r.CarriedForward, r.Unverified, r.Differences)
	}
}

// byTurn is a stand-in request rebuilder: the digest of the turn an
// observation is offered at (what the real one, which builds the request
// body, is tested with in preflight and cmd/obaudit).
func byTurn(obs *engine.Observation) (string, error) {
	return canon.SHA256Hex([]byte(fmt.Sprintf("request for invocation %d turn %d", obs.InvocationIndex, obs.TurnIndex))), nil
}

// modelWithDigests is upstream's model record with every attempt's request
// digest set by digest(i, attempt) (resealed and validated).
func modelWithDigests(t *testing.T, digest func(i int, a map[string]any) string) *artefact.Document {
	return edited(t, fixtureModel, func(d map[string]any) {
		for i, x := range ll(mm(d["agent_execution"])["attempts"]) {
			a := mm(x)
			a["request_digest_sha256"] = digest(i, a)
		}
	})
}

func turnDigest(a map[string]any) string {
	return canon.SHA256Hex([]byte(fmt.Sprintf("request for invocation %d turn %d", a["invocation_index"], a["turn_index"])))
}

// With a request rebuilder, a model record's request digests are rebuilt
// from the observations the replay offers and must equal the recorded ones
// (replay/request-digest-mismatch otherwise); without one, or when it does
// not speak the record's mapping (nil), they are listed as unverified. The
// rebuilder is never asked about a deterministic record.
func TestReplayRebuildsRequestDigests(t *testing.T) {
	rebuilds := func(doc *artefact.Document) episode.RequestRebuilder { return byTurn }
	run := func(doc *artefact.Document, rd func(*artefact.Document) episode.RequestRebuilder) (*artefact.ReplayReport, error) {
		return episode.Replay(doc, episode.ReplayConfig{Domain: operation(t, "V1"), Agents: registry, RequestDigests: rd})
	}
	matching := modelWithDigests(t, func(_ int, a map[string]any) string { return turnDigest(a) })
	attempts := len(matching.Artefact.Execution.Attempts)

	r, err := run(matching, rebuilds)
	if err != nil {
		t.Fatalf("Replay(matching digests) = %v", err)
	}
	if !r.OK() || r.RequestDigestsRebuilt != int64(attempts) || len(r.Unverified) != 0 {
		t.Fatalf("matching digests: ok %v, rebuilt %d of %d, unverified %q", r.OK(), r.RequestDigestsRebuilt, attempts, r.Unverified)
	}

	for name, doc := range map[string]*artefact.Document{
		"one digest edited": modelWithDigests(t, func(i int, a map[string]any) string {
			if i == 17 {
				return strings.Repeat("f", 64)
			}
			return turnDigest(a)
		}),
		"digests of another mapping (upstream's)": readFixture(t, fixtureModel),
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := run(doc, rebuilds); refusal.Of(err) != episode.ErrRequestDigestMismatch.Class {
				t.Fatalf("Replay = %v, want %s", err, episode.ErrRequestDigestMismatch.Class)
			}
		})
	}

	t.Run("rebuilder error", func(t *testing.T) {
		broken := errors.New("cannot build")
		_, err := run(matching, func(*artefact.Document) episode.RequestRebuilder {
			return func(*engine.Observation) (string, error) { return "", broken }
		})
		if !errors.Is(err, broken) {
			t.Fatalf("Replay = %v, want the rebuilder's error", err)
		}
	})

	for name, rd := range map[string]func(*artefact.Document) episode.RequestRebuilder{
		"no rebuilder":       nil,
		"mapping not spoken": func(*artefact.Document) episode.RequestRebuilder { return nil },
	} {
		t.Run(name, func(t *testing.T) {
			// Digests no rebuilder would produce replay OK, unverified.
			r, err := run(readFixture(t, fixtureModel), rd)
			if err != nil {
				t.Fatal(err)
			}
			if !r.OK() || r.RequestDigestsRebuilt != 0 || len(r.Unverified) != 1 || !strings.HasPrefix(r.Unverified[0], "agent_execution.attempts[].request_digest_sha256: not rebuilt") {
				t.Fatalf("ok %v, rebuilt %d, unverified %q; want ok, none rebuilt, request digests unverified", r.OK(), r.RequestDigestsRebuilt, r.Unverified)
			}
		})
	}

	t.Run("deterministic record", func(t *testing.T) {
		r, err := run(readFixture(t, fixtureDet), func(*artefact.Document) episode.RequestRebuilder {
			t.Error("the rebuilder was asked about a deterministic record")
			return byTurn
		})
		if err != nil || !r.OK() || r.RequestDigestsRebuilt != 0 {
			t.Fatalf("Replay(deterministic) = %v, %v", r, err)
		}
	})
}
