package evaluator_test

import (
	"github.com/obaudit/obaudit/domains/lettings/maintenance"
	"github.com/obaudit/obaudit/engine"
)

// maintenanceContract is the maintenance pack's grading contract for
// scenario V1, V2 or V3 (the evaluator's tests grade upstream's artefacts
// of that operation).
func maintenanceContract(scenario string) *engine.GradingContract {
	spec, err := maintenance.DefaultSpec()
	if err != nil {
		panic(err)
	}
	op, err := maintenance.NewOperation(spec, scenario)
	if err != nil {
		panic(err)
	}
	return op.GradingContract()
}
