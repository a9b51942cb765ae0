package gate_test

import (
	"fmt"

	"github.com/obaudit/obaudit/domains"
	"github.com/obaudit/obaudit/gate"
	"github.com/obaudit/obaudit/schemas"
)

func Example() {
	subject, err := domains.Default().Gate(nil, nil, "", "") // the embedded spec and oracle
	if err != nil {
		panic(err)
	}
	r, err := gate.Run(gate.Options{Subject: subject, EngineVersion: schemas.EngineObaudit})
	if err != nil {
		panic(err)
	}
	fmt.Println(r.OK, r.Passed(), len(r.Checks))
	fmt.Println(r.Oracle.OracleID, r.Oracle.OracleVersion, r.Oracle.Digest)
	for _, c := range r.Checks {
		if c.ReferenceExpectationID != "" {
			fmt.Println(c.AgentID, c.ScenarioID, c.Status, c.Reliable, c.FailedDimensions, c.FindingCodes)
		}
	}
	// Output:
	// true 11 11
	// lettings_maintenance_negative_controls 0.5.0 c3cc69543e8baa35f53a63916554be0fc5355b2ac6f003d03ad7dccfaa80b10e
	// reference V2 transferred_to_human_ownership false [recovery obligations] [OBLIGATION_MESSAGE_NOT_ESTABLISHED REQUIRED_NOTIFICATION_UNDELIVERED]
}
