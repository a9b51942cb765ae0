package main

import (
	"fmt"
	"io"

	"github.com/obaudit/obaudit/arm/notimewire"
	"github.com/obaudit/obaudit/arm/pair"
	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/commonoutcome"
	"github.com/obaudit/obaudit/refusal"
	"github.com/spf13/cobra"
)

// checkArmMediaType names the `obaudit check --arm` report format.
const checkArmMediaType = "application/vnd.obaudit.check-arm+json;version=1"

const checkArmInstance = "opinst_0123456789abcdef0123456789abcdef"

// checkArm grades the reference and the eight negatives by CommonOutcomeV1
// on one arm or both, against the authored expectation table
// (arm/pair.Expectations): each cell must give its expected status, failing
// predicates and finding codes; a scenario the protocol calls ineligible
// must be refused by the No-Time compiler.
func checkArm(cmd *cobra.Command, g *globals, arm string) error {
	arms := []string{arm}
	if arm == "both" {
		arms = pair.Arms
	} else if err := pair.Known(arm); err != nil {
		return err
	}
	var cells []any
	passed := 0
	w := cmd.OutOrStdout()
	for _, x := range pair.Expectations {
		for _, a := range arms {
			d, ag, err := armDomain(cmd, "", x.Scenario, x.Agent)
			if err != nil {
				return err
			}
			cell := map[string]any{"scenario_id": x.Scenario, "agent_id": x.Agent, "arm": a, "expected_status": x.Status,
				"common_outcome": nil, "refusal": nil}
			var why string
			var outcome *notimewire.CommonOutcomeV1
			if a == armFull {
				ep, err := pair.FullRun(d, ag, checkArmInstance)
				if err != nil {
					return err
				}
				o, err := pair.GradeFull(d, ep)
				if err != nil {
					return err
				}
				outcome = &o
				why = x.Met(o)
			} else {
				nt, err := pair.NoTimeRun(d, ag, checkArmInstance)
				switch {
				case x.Ineligible && pair.IneligibleAsExpected(err):
					c, _ := refusal.ClassOf(err)
					cell["refusal"] = string(c)
					cell["expected_status"] = nil
				case x.Ineligible:
					why = fmt.Sprintf("the protocol calls this plan ineligible but the compiler gave %v", err)
				case err != nil:
					return err
				default:
					o, err := pair.GradeNoTime(d, nt)
					if err != nil {
						return err
					}
					outcome = &o
					why = x.Met(o)
				}
			}
			if outcome != nil {
				cell["common_outcome"] = commonoutcome.Tree(*outcome)
			}
			cell["passed"] = why == ""
			cell["why"] = why
			if why == "" {
				passed++
			}
			cells = append(cells, cell)
			if !g.json {
				verdict := "PASS"
				if why != "" {
					verdict = "FAIL"
				}
				got := "ineligible (" + fmt.Sprint(cell["refusal"]) + ")"
				if outcome != nil {
					got = outcome.Status + " " + fmt.Sprint(outcome.FindingCodes)
				}
				fmt.Fprintf(w, "%s %s %-22s %-22s %s", verdict, x.Scenario, x.Agent, a, got)
				if why != "" {
					fmt.Fprintf(w, " — %s", why)
				}
				fmt.Fprintln(w)
			}
		}
	}
	report := map[string]any{"mediaType": checkArmMediaType, "arms": canon.StringList(arms), "cells": cells,
		"passed": int64(passed), "total": int64(len(cells))}
	if err := writeReport(cmd, g, report, func(w io.Writer) {
		fmt.Fprintf(w, "%d of %d cells pass\n", passed, len(cells))
	}); err != nil {
		return err
	}
	return answerNoUnless(passed == len(cells), "%d of %d two-arm cells failed", len(cells)-passed, len(cells))
}
