package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/obaudit/obaudit/arm/notimerecord"
	"github.com/obaudit/obaudit/arm/notimeverify"
	"github.com/obaudit/obaudit/arm/notimewire"
	"github.com/obaudit/obaudit/arm/pair"
	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/commonoutcome"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/refusal"
	"github.com/spf13/cobra"
)

// armsMediaType names the `obaudit arms …` report formats.
const armsMediaType = "application/vnd.obaudit.arms+json;version=1"

func newArmsCmd(g *globals) *cobra.Command {
	c := &cobra.Command{
		Use:   "arms",
		Short: "Validate, replay and match stateful_time_removed records against their Full pair",
		Long: `The stateful_time_removed arm (protocol operatebench.arm.stateful_time_removed.v1,
obaudit's implementation, not upstream-released) records each run in its own
contract, obaudit.arm.stateful_time_removed.run.v1 (schemas/notime/v1.json),
which no contract-8 reader accepts.

  arms validate NOTIME       strict decode, schema, re-derived digests, the bound spec; CommonOutcomeV1
  arms replay NOTIME         re-execute from the decision tape (zero provider calls), compare digests
  arms verify FULL NOTIME    the independent matching proof of a contract-8 Full artefact and a No-Time record

Exit status: 0 yes, 2 the answer is no (not reproduced, not matched), 1 an input was refused.`,
	}
	c.AddCommand(newArmsValidateCmd(g), newArmsReplayCmd(g), newArmsVerifyCmd(g))
	return c
}

// readNoTime decodes a record and binds it to the embedded spec's scenario.
func readNoTime(cmd *cobra.Command, name string) (*notimewire.RunV1, engine.Domain, error) {
	b, err := readInputAs(cmd, name, kindNoTime)
	if err != nil {
		return nil, nil, err
	}
	rec, err := notimerecord.Decode(b)
	if err != nil {
		return nil, nil, err
	}
	d, _, err := armDomain(cmd, "", rec.ScenarioID, "reference")
	if err != nil {
		return nil, nil, err
	}
	if got := d.Plan().Meta.SpecDigest; got != rec.SpecDigest {
		return nil, nil, refusal.New(pair.ErrSpecMismatch, "the record names spec %s; this build embeds %s", rec.SpecDigest, got)
	}
	return rec, d, nil
}

func newArmsValidateCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "validate NOTIME",
		Short: "Validate a stateful_time_removed run record and grade it by CommonOutcomeV1",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			rec, d, err := readNoTime(cmd, args[0])
			if err != nil {
				return err
			}
			o, err := pair.GradeNoTime(d, rec)
			if err != nil {
				return err
			}
			return writeReport(cmd, g, map[string]any{"mediaType": armsMediaType, "valid": true, "contract": rec.Contract,
				"protocol": rec.Protocol, "scenario_id": rec.ScenarioID, "agent_id": rec.AgentID, "halt": rec.Halt,
				"common_outcome": commonoutcome.Tree(o)}, func(w io.Writer) {
				fmt.Fprintf(w, "valid: %s (%s)\n", rec.Contract, rec.Protocol)
				fmt.Fprintf(w, "scenario %s, agent %s, halt %s\n", rec.ScenarioID, rec.AgentID, rec.Halt)
				writeCommonOutcome(w, o)
			})
		},
	}
}

func newArmsReplayCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "replay NOTIME",
		Short: "Replay a stateful_time_removed record from its decision tape (no agent, no provider)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			rec, d, err := readNoTime(cmd, args[0])
			if err != nil {
				return err
			}
			ok, err := pair.Replay(d, rec)
			if err != nil {
				return err
			}
			report := map[string]any{"mediaType": armsMediaType, "reproduced": ok, "provider_calls": int64(0)}
			if err := writeReport(cmd, g, report, func(w io.Writer) {
				fmt.Fprintf(w, "reproduced: %v\nprovider_calls: 0\n", ok)
			}); err != nil {
				return err
			}
			return answerNoUnless(ok, "the replay did not reproduce the record's digests")
		},
	}
}

func newArmsVerifyCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "verify FULL NOTIME",
		Short: "Prove a Full artefact and a stateful_time_removed record of the same episode match",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			doc, err := readArtefact(cmd, args[0])
			if err != nil {
				return err
			}
			rec, d, err := readNoTime(cmd, args[1])
			if err != nil {
				return err
			}
			a := doc.Artefact
			if a.Operation.SpecDigest != rec.SpecDigest {
				return refusal.New(pair.ErrSpecMismatch, "the Full artefact names spec %s, the record %s", a.Operation.SpecDigest, rec.SpecDigest)
			}
			if err := samePair(a, rec); err != nil {
				return err
			}
			ep := fullEpisodeOf(a)
			rep, verr := pair.Verify(d, ep, rec)
			if verr != nil && !errors.Is(verr, notimeverify.ErrMismatch) {
				return verr
			}
			of, err := pair.GradeFull(d, ep)
			if err != nil {
				return err
			}
			on, err := pair.GradeNoTime(d, rec)
			if err != nil {
				return err
			}
			report := map[string]any{"mediaType": armsMediaType, "contract": notimewire.VerificationContract, "protocol": notimewire.Protocol,
				"matched": rep.Matched, "findings": canon.StringList(rep.Findings), "checked": canon.StringList(rep.Checked),
				"unverified": canon.StringList(rep.Unverified), "activation_ids": canon.StringList(rep.Activations),
				"projection_digest_sha256": rep.ProjectionDigest, "raw_differences": counts(rep.RawDifferences),
				"common_outcome": map[string]any{notimewire.ArmFull: commonoutcome.Tree(of), notimewire.ArmNoTime: commonoutcome.Tree(on)}}
			if err := writeReport(cmd, g, report, func(w io.Writer) {
				fmt.Fprintf(w, "matched: %v\n", rep.Matched)
				for _, c := range rep.Checked {
					fmt.Fprintf(w, "  checked: %s\n", c)
				}
				for _, f := range rep.Findings {
					fmt.Fprintf(w, "  ! %s\n", f)
				}
				for _, u := range rep.Unverified {
					fmt.Fprintf(w, "  unverified: %s\n", u)
				}
				fmt.Fprintf(w, "activation_ids: %d\n", len(rep.Activations))
				fmt.Fprintf(w, "full: common_outcome.status: %s\n", of.Status)
				fmt.Fprintf(w, "stateful_time_removed: common_outcome.status: %s\n", on.Status)
			}); err != nil {
				return err
			}
			return answerNoUnless(rep.Matched, "the Full artefact and the No-Time record do not match under %s", notimewire.Protocol)
		},
	}
}

func counts(m map[string]int64) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
