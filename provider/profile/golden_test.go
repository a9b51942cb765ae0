package profile_test

import (
	"bytes"
	"flag"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/internal/artefacttest"
	"github.com/obaudit/obaudit/internal/upstreamtest"
	"github.com/obaudit/obaudit/provider/lane"
	"github.com/obaudit/obaudit/provider/profile"
)

var update = flag.Bool("update", false, "rewrite testdata/requests")

// firstObservation is the first observation of V1 under a fixed instance.
func firstObservation(t *testing.T) *engine.Observation {
	t.Helper()
	dom, ref := artefacttest.Cell(t, "V1", "reference")
	f := &first{inner: ref.New()}
	if _, err := engine.Execute(dom, f, "opinst_0123456789abcdef0123456789abcdef"); err != nil {
		t.Fatal(err)
	}
	return f.obs
}

type first struct {
	inner engine.Agent
	obs   *engine.Observation
}

func (f *first) BeginEpisode(id engine.AgentIdentity) { f.inner.BeginEpisode(id) }
func (f *first) Decide(o *engine.Observation) (engine.Decision, error) {
	if f.obs == nil {
		f.obs = o
	}
	return f.inner.Decide(o)
}

// TestGoldenRequests pins, per lane, the exact request body the lane sends
// for V1's first observation under its embedded example profile, and the
// headers it sets (the credential shown as CREDENTIAL). Regenerate with
// `go test ./provider/profile -run TestGoldenRequests -update` and review
// the diff against the vendors' API references:
//
//   - OpenAI Responses (POST /v1/responses): model, instructions, input
//     [{role, content}], tools [{type "function", name, description,
//     parameters, strict}], tool_choice "required", parallel_tool_calls,
//     max_output_tokens, store, reasoning {effort}; Authorization: Bearer.
//   - Anthropic Messages (POST /v1/messages): model, max_tokens, system,
//     messages [{role "user", content}], tools [{name, description,
//     input_schema}] with an object root, tool_choice {type "any",
//     disable_parallel_tool_use}, thinking {type "disabled"}; x-api-key and
//     anthropic-version 2023-06-01.
//   - Chat Completions (POST /v1/chat/completions, xAI's and Mistral's
//     documented surface): model, messages [{role "system"}, {role
//     "user"}], tools [{type "function", function {name, description,
//     parameters}}], tool_choice "required", parallel_tool_calls,
//     max_tokens, temperature; Authorization: Bearer.
func TestGoldenRequests(t *testing.T) {
	obs := firstObservation(t)
	for _, id := range profile.LaneIDs() {
		p, err := profile.ForLane(id)
		if err != nil {
			t.Fatal(err)
		}
		req, err := lane.BuildRequest(p.Lane, obs, p.Run)
		if err != nil {
			t.Fatal(err)
		}
		h := http.Header{}
		p.Lane.Headers(h, "CREDENTIAL")
		var hb strings.Builder
		hb.WriteString("POST {base}" + p.Lane.Path() + "\n")
		for _, k := range slices.Sorted(func(yield func(string) bool) {
			for k := range h {
				if !yield(k) {
					return
				}
			}
		}) {
			hb.WriteString(k + ": " + h.Get(k) + "\n")
		}
		golden := map[string][]byte{id + ".body.json": req.Body, id + ".headers.txt": []byte(hb.String())}
		for name, got := range golden {
			path := filepath.Join("testdata", "requests", name)
			if want := upstreamtest.Golden(t, path, got, *update); !bytes.Equal(got, want) {
				t.Errorf("%s: the lane sends other bytes than the reviewed golden file", name)
			}
		}
		// The body's top-level fields are exactly the ones the settings
		// record as sent; none of the omitted ones is present.
		v, _ := canon.Parse(req.Body)
		var keys []string
		for k := range v.(map[string]any) {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if !slices.Equal(keys, lane.FieldsSent(p.Lane, p.Run)) {
			t.Errorf("%s sends %v; its settings record %v", id, keys, lane.FieldsSent(p.Lane, p.Run))
		}
		for _, o := range p.Run.Omit {
			if slices.Contains(keys, o) {
				t.Errorf("%s sends %s, which its profile omits", id, o)
			}
		}
	}
}
