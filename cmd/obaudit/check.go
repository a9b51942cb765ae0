package main

import (
	"fmt"
	"runtime/debug"

	"github.com/obaudit/obaudit/domains"
	"github.com/obaudit/obaudit/gate"
	"github.com/obaudit/obaudit/schemas"
	"github.com/spf13/cobra"
)

// Test-only seams (house style S8): nil in the shipped binary, set by
// check_test.go to show the gate's teeth through the command.
var (
	testOnlyCheckLookup   func(id string) (gate.Agent, error)
	testOnlyCheckEvaluate gate.EvaluateFunc
)

func newCheckCmd(g *globals) *cobra.Command {
	var specFile, oracleFile, engineVersion, arm string
	c := &cobra.Command{
		Use:   "check [--spec FILE] [--oracle FILE] [--engine VERSION]",
		Short: "Run the causal acceptance gate: reference accepted, every negative rejected for its declared reason",
		Long: `Runs the causal acceptance gate of the lettings maintenance operation: eleven
checks, each a full episode with its determinism self-check, graded under the
chosen engine version. The reference must be reliable on V1 and V3; on V2 it must
match the authored notification-fault expectation under obaudit's engine
(transferred, not reliable, failing exactly recovery and obligations) and be
reliable under --engine 0.9.0, as upstream 0.9.0 grades it. Each negative must
fail exactly the dimensions its control in the negative-control oracle declares,
for the declared finding codes, with its must-pass dimensions passing.

The report names the engine version, the spec digest and the oracle's id,
version and content digest, and per check the agent, variant, verdict, failing
dimensions, findings and, for a failed check, why it failed.

--spec FILE     operation spec YAML (default: the embedded lettings_maintenance_synthetic_v1)
--oracle FILE   negative-control oracle YAML (default: the embedded oracle 0.5.0)
--engine V      0.9.0+obaudit.1 (default) or 0.9.0

Exit status: 0 the gate passes, 2 it says no, 1 an input was refused.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			// The gate allocates ~12 MB of short-lived trees; fewer GC
			// cycles cut its CPU time by about a quarter (BENCHMARKS.md).
			defer debug.SetGCPercent(debug.SetGCPercent(400))
			if cmd.Flags().Changed("arm") {
				return checkArm(cmd, g, arm)
			}
			subject, err := loadCheckSubject(cmd, specFile, oracleFile)
			if err != nil {
				return err
			}
			if testOnlyCheckLookup != nil {
				subject.Lookup = testOnlyCheckLookup
			}
			r, err := gate.Run(gate.Options{Subject: subject, EngineVersion: engineVersion, Evaluate: testOnlyCheckEvaluate})
			if err != nil {
				return err
			}
			if g.json {
				if err := writeJSON(cmd, r.Tree()); err != nil {
					return err
				}
			} else if _, err := fmt.Fprint(cmd.OutOrStdout(), r.Text()); err != nil {
				return err
			}
			return answerNoUnless(r.OK, "the causal acceptance gate says no: %d of %d checks failed", len(r.Checks)-r.Passed(), len(r.Checks))
		},
	}
	c.Flags().StringVar(&specFile, "spec", "", "operation spec YAML (default: the embedded spec)")
	c.Flags().StringVar(&oracleFile, "oracle", "", "negative-control oracle YAML (default: the embedded oracle)")
	c.Flags().StringVar(&engineVersion, "engine", schemas.EngineObaudit, "engine version to grade under (0.9.0+obaudit.1 or 0.9.0)")
	c.Flags().StringVar(&arm, "arm", "", "grade the reference and negatives by CommonOutcomeV1 on full_lifecycle, stateful_time_removed or both (see check_arms.go)")
	c.RegisterFlagCompletionFunc("engine", cobra.FixedCompletions(schemas.Engines(), cobra.ShellCompDirectiveNoFileComp))
	return c
}

// loadCheckSubject reads the spec and the oracle ("" for the embedded
// defaults) and binds them through the default pack for the gate.
func loadCheckSubject(cmd *cobra.Command, specFile, oracleFile string) (*gate.Subject, error) {
	spec, err := readOptional(cmd, specFile, kindSpec)
	if err != nil {
		return nil, err
	}
	orc, err := readOptional(cmd, oracleFile, kindOracle)
	if err != nil {
		return nil, err
	}
	return domains.Default().Gate(spec, orc, specFile, oracleFile)
}
