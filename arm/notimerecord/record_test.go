package notimerecord_test

import (
	"bytes"
	"testing"

	"github.com/obaudit/obaudit/arm/notimerecord"
	"github.com/obaudit/obaudit/arm/pair"
	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/domains/lettings/maintenance"
	"github.com/obaudit/obaudit/episode"
	"github.com/obaudit/obaudit/internal/artefacttest"
	"github.com/obaudit/obaudit/refusal"
	"github.com/obaudit/obaudit/schemas"
)

const inst = "opinst_0123456789abcdef0123456789abcdef"

func record(t *testing.T) []byte {
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

func TestRefusals(t *testing.T) {
	b := record(t)
	cases := map[string]struct {
		in   []byte
		want refusal.Class
	}{
		"not json":             {[]byte("{"), "notimerecord/malformed"},
		"other contract":       {bytes.Replace(b, []byte(`"contract":"obaudit.arm.stateful_time_removed.run.v1"`), []byte(`"contract":"x"`), 1), "notimerecord/schema"},
		"digest tampered":      {bytes.Replace(b, []byte(`"v1_e18"`), []byte(`"v1_e19"`), 1), "notimerecord/digest-mismatch"},
		"not canonical":        {append(append([]byte{}, b[:len(b)-1]...), ' ', '\n'), "notimerecord/not-canonical"},
		"incoherent summary":   {bytes.Replace(b, []byte(`"invocations":14`), []byte(`"invocations":15`), 1), "notimerecord/incoherent"},
		"has artifact_version": {bytes.Replace(b, []byte(`{"agent_id"`), []byte(`{"artifact_version":8,"agent_id"`), 1), "notimerecord/schema"},
	}
	for name, c := range cases {
		_, err := notimerecord.Decode(c.in)
		if got := class(err); got != c.want {
			t.Errorf("%s: %v (class %q), want %s", name, err, got, c.want)
		}
	}
}

// A contract-8 artefact is refused by this reader, and this record by the
// contract-8 reader.
func TestNotMistakable(t *testing.T) {
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
