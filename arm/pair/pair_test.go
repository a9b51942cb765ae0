package pair_test

import (
	"testing"

	"github.com/obaudit/obaudit/arm/pair"
	"github.com/obaudit/obaudit/domains"
	"github.com/obaudit/obaudit/engine"
)

const inst = "opinst_0123456789abcdef0123456789abcdef"

func setup(t testing.TB, scenario, agentID string) (engine.Domain, pair.Agent) {
	t.Helper()
	pack := domains.Default()
	d, err := pack.Operation(nil, "", scenario)
	if err != nil {
		t.Fatal(err)
	}
	a, ok := pack.Agent(agentID)
	if !ok {
		t.Fatalf("no agent %q", agentID)
	}
	return d, pair.Agent{ID: a.ID, Kind: a.Kind, New: a.New}
}

func TestMatrix(t *testing.T) {
	pack := domains.Default()
	for _, sc := range []string{"V1", "V2"} {
		for _, id := range pack.AgentIDs() {
			if sc != "V1" && id != "reference" {
				continue
			}
			d, a := setup(t, sc, id)
			ep, err := pair.FullRun(d, a, inst)
			if err != nil {
				t.Fatal(err)
			}
			nt, err := pair.NoTimeRun(d, a, inst)
			if err != nil {
				t.Fatal(err)
			}
			of, _ := pair.GradeFull(d, ep)
			on, _ := pair.GradeNoTime(d, nt)
			_, verr := pair.Verify(d, ep, nt)
			t.Logf("%s %-22s full %s %v %v | notime %s %v %v (%s) | verify %v", sc, id, of.Status, of.FindingCodes, ep.Status, on.Status, on.FindingCodes, nt.Halt, nt.HaltCode, verr)
		}
	}
}
