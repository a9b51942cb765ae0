package notimerecord_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/obaudit/obaudit/arm/notimerecord"
	"github.com/obaudit/obaudit/arm/pair"
	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/domains/lettings/maintenance"
	"github.com/obaudit/obaudit/episode"
	"github.com/obaudit/obaudit/internal/artefacttest"
	"github.com/obaudit/obaudit/refusal"
	"github.com/obaudit/obaudit/schemas"
)

const inst = "opinst_0123456789abcdef0123456789abcdef"

func record(t testing.TB) []byte {
	t.Helper()
	d, a := artefacttest.Cell(t, "V1", "reference")
	nt, err := pair.NoTimeRun(d, pair.Agent{ID: a.ID, Kind: a.Kind, New: a.New}, inst)
	if err != nil {
		t.Fatal(err)
	}
	b, err := notimerecord.Encode(nt)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRoundTrip(t *testing.T) {
	b := record(t)
	r, err := notimerecord.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	again, err := notimerecord.Encode(r)
	if err != nil || !bytes.Equal(again, b) {
		t.Fatalf("round trip: %v", err)
	}
}

func class(err error) refusal.Class { c, _ := refusal.ClassOf(err); return c }

// refusalInputs are edits of the record b, by name (TestSchemaOracle
// judges them too).
func refusalInputs(b []byte) map[string][]byte {
	return map[string][]byte{
		"not json":             []byte("{"),
		"other contract":       bytes.Replace(b, []byte(`"contract":"obaudit.arm.stateful_time_removed.run.v1"`), []byte(`"contract":"x"`), 1),
		"digest tampered":      bytes.Replace(b, []byte(`"v1_e18"`), []byte(`"v1_e19"`), 1),
		"not canonical":        append(append([]byte{}, b[:len(b)-1]...), ' ', '\n'),
		"incoherent summary":   bytes.Replace(b, []byte(`"invocations":14`), []byte(`"invocations":15`), 1),
		"has artifact_version": bytes.Replace(b, []byte(`{"agent_id"`), []byte(`{"artifact_version":8,"agent_id"`), 1),
	}
}

func TestRefusals(t *testing.T) {
	want := map[string]refusal.Class{
		"not json":             "notimerecord/malformed",
		"other contract":       "notimerecord/schema",
		"digest tampered":      "notimerecord/digest-mismatch",
		"not canonical":        "notimerecord/not-canonical",
		"incoherent summary":   "notimerecord/incoherent",
		"has artifact_version": "notimerecord/schema",
	}
	inputs := refusalInputs(record(t))
	if len(inputs) != len(want) {
		t.Fatalf("%d inputs, %d expectations", len(inputs), len(want))
	}
	for name, in := range inputs {
		_, err := notimerecord.Decode(in)
		if got := class(err); got != want[name] {
			t.Errorf("%s: %v (class %q), want %s", name, err, got, want[name])
		}
	}
}

// A contract-8 artefact is refused by this reader, and this record by the
// contract-8 reader.
func TestNotMistakable(t *testing.T) {
	art, opts := contract8(t)
	if _, err := notimerecord.Decode(art); class(err) != "notimerecord/schema" {
		t.Errorf("a contract-8 artefact: %v", err)
	}
	if _, err := artefact.Read(art, opts); err != nil {
		t.Fatalf("the contract-8 reader refused its own artefact: %v", err)
	}
	if _, err := artefact.Read(record(t), opts); err == nil {
		t.Error("the contract-8 reader accepted a No-Time record")
	}
}

// contract8 is the reference's contract-8 artefact of V1 and the reader's
// options that accept it.
func contract8(t testing.TB) ([]byte, artefact.Options) {
	t.Helper()
	d, a := artefacttest.Cell(t, "V1", "reference")
	res, err := episode.Run(episode.Config{Domain: d, NewAgent: a.New, AgentID: a.ID, AgentKind: a.Kind, OperationInstanceID: inst, EngineVersion: schemas.EngineObaudit})
	if err != nil {
		t.Fatal(err)
	}
	opts := artefact.Options{Domains: []artefact.Domain{{OperationType: maintenance.OperationType, Agents: map[string]string{"reference": "reference"},
		TerminalClasses: maintenance.ProducibleTerminals, ValidateState: maintenance.ValidateFinalState}}}
	art, err := artefact.Encode(res.Artefact, opts)
	if err != nil {
		t.Fatal(err)
	}
	return art, opts
}

// A shape refusal names the RFC 6901 pointer of the offending value.
func TestSchemaRefusalPointers(t *testing.T) {
	b := record(t)
	zeros := strings.Repeat("0", 64)
	cases := []struct {
		steps []any
		value any
		want  string
	}{
		{[]any{"plan", "max_transitions"}, int64(0), "/plan/max_transitions"},
		{[]any{"plan", "events", 0, "finality_relations"}, map[string]any{"a/b~": "pre_finality"}, "/plan/events/0/finality_relations/a~1b~0"},
		{[]any{"plan", "events", 0, "finality_relations"}, map[string]any{zeros: "after"}, "/plan/events/0/finality_relations/" + zeros},
		{[]any{"unresolved_trigger_keys"}, []any{zeros, zeros}, "/unresolved_trigger_keys/1"},
		{[]any{"decisions", 0, "turn_index"}, 1.5, "/decisions/0/turn_index"},
		{[]any{"trajectory", 1}, map[string]any{"index": int64(1), "transition": int64(0)}, "/trajectory/1"},
		{[]any{"halt"}, "RUNNING", "/halt"},
		{[]any{"zz"}, true, "/zz"},
		{[]any{"artifact_version"}, int64(8), "/artifact_version"},
		{[]any{"operation_instance_id"}, "opinst_" + zeros[:31], "/operation_instance_id"},
	}
	tree, err := canon.Parse(bytes.TrimSuffix(b, []byte("\n")))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		in, err := canon.JCS(edit(tree, c.steps, func(any) (any, bool) { return c.value, true }))
		if err != nil {
			t.Fatal(err)
		}
		_, err = notimerecord.Decode(append(in, '\n'))
		p, ok := notimerecord.Pointer(err)
		if class(err) != notimerecord.ErrSchema.Class || !ok || p != c.want {
			t.Errorf("%v = %v: %v (pointer %q), want %s at %q", c.steps, c.value, err, p, notimerecord.ErrSchema.Class, c.want)
		}
	}
}
