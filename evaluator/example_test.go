package evaluator_test

import (
	"fmt"

	"github.com/obaudit/obaudit/evaluator"
	"github.com/obaudit/obaudit/schemas"
)

// A transferred operation whose transfer notice failed to dispatch, graded
// under both engine versions. (A real run comes from engine.Run or from an
// artefact via RunFromArtefact.)
func ExampleEvaluate() {
	run := transferRecord("failed")
	contract := maintenanceContract("V2")
	for _, version := range []string{schemas.EngineUpstream, schemas.EngineObaudit} {
		ev, err := evaluator.Evaluate(version, contract, run)
		if err != nil {
			panic(err)
		}
		recovery, _ := ev.Dimension(evaluator.Recovery)
		fmt.Println(version, "recovery ok:", recovery.OK, recovery.Findings == nil)
	}
	// Output:
	// 0.9.0 recovery ok: true true
	// 0.9.0+obaudit.1 recovery ok: false false
}
