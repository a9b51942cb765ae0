package grading_test

import (
	"reflect"
	"testing"

	"github.com/obaudit/obaudit/domains/lettings/maintenance"
	"github.com/obaudit/obaudit/domains/lettings/maintenance/grading"
	"github.com/obaudit/obaudit/evaluator/evaluatortest"
)

// TestContractEqualsTheWrittenOutFacts: the contract derived from the pack
// equals the one written out independently from upstream's published facts
// (evaluatortest), scenario by scenario.
func TestContractEqualsTheWrittenOutFacts(t *testing.T) {
	spec, err := maintenance.DefaultSpec()
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"V1", "V2", "V3"} {
		got, err := grading.Contract(spec, id)
		if err != nil {
			t.Fatalf("Contract(%s) = %v", id, err)
		}
		want := evaluatortest.Maintenance(id)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Contract(%s) =\n%+v\nwant\n%+v", id, got, want)
		}
	}
	if _, err := grading.Contract(spec, "V4"); err == nil {
		t.Fatal("Contract(V4) succeeded")
	}
}
