package maintenance_test

import (
	"reflect"
	"testing"

	"github.com/obaudit/obaudit/domains/lettings/maintenance"
	"github.com/obaudit/obaudit/evaluator/evaluatortest"
)

// The pack's run-time grading contract equals the evaluator's own copy of
// upstream's published facts.
func TestGradingContractMatchesEvaluatorCopy(t *testing.T) {
	spec, _ := maintenance.DefaultSpec()
	for _, sc := range []string{"V1", "V2", "V3"} {
		op, err := maintenance.NewOperation(spec, sc)
		if err != nil {
			t.Fatal(err)
		}
		got, want := op.GradingContract(), evaluatortest.Maintenance(sc)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: GradingContract() = %+v\nwant %+v", sc, got, want)
		}
	}
}
