package main

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/obaudit/obaudit/domains"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/preflight"
	"github.com/obaudit/obaudit/provider"
	"github.com/obaudit/obaudit/provider/profile"
	"github.com/obaudit/obaudit/schemas"
	"github.com/spf13/cobra"
)

// testOnlyPreflightRun, when set, replaces preflight.Run: tests use it to
// prove that a refused command line never reaches the preflight.
var testOnlyPreflightRun func(preflight.Config) (*preflight.Result, error)

func newPreflightCmd(g *globals) *cobra.Command {
	var outputDir, laneID, fault, scenario, instanceID, runID, costCap, inRate, outRate, policyID string
	var maxCalls int64
	c := &cobra.Command{
		Use:   "preflight --output-dir DIR [--lane LANE] [--max-calls N] [--fault CELL] [--scenario V1]",
		Short: "Offline operator preflight: the model-backed agent against a scripted provider on loopback",
		Long: `Runs the model-backed agent on one lane (--lane openai-responses, anthropic-messages or
chat-completions; Go's net/http over TLS, under the lane's embedded example profile) against an
in-process scripted provider on a loopback listener that answers each turn with the reference
agent's decision in that vendor's documented wire format, and writes what the run produced
beneath DIR, an existing directory of mode 0700 (never created; nothing in it is overwritten),
under names that begin with the operation instance id ID, so many episodes share one DIR and
sign and commit name their outputs after it (ID.sigstore.json, ID.tlog-proof):

  --fault none (default)   ID.execution_ledger.ndjson and ID.episode_artifact.json. The ledger must
                           read back scored, every call's wire digest must be the digest of the
                           body the provider received, the artefact (contract 8) must pass the
                           bundle audit against the ledger and replay at zero provider calls.
  --fault 429|500|400|overloaded|spend-limit|invalid-body|wrong-model|truncated|stream-cut|transport
                           on request 4 the provider answers, in the vendor's error shape, HTTP 429
                           with retry-after, HTTP 500, a 400 validation error, overloaded
                           (Anthropic's 529 overloaded_error, 503 elsewhere), Anthropic's 400
                           spend-limit sentence (anthropic-messages only), a 200 body that is not
                           JSON, a 200 answer naming another model, an answer cut off at the
                           output ceiling (classified MODEL_OUTPUT_TRUNCATED; the diverged
                           episode's next request meets a 400), half a 200 body and a closed
                           connection, or a closed connection: ID.CELL.execution_ledger.ndjson
                           ends excluded with that cell's fault, and no artefact is written.

Bounds are fixed by the build: at most 60 provider calls (--max-calls lowers it; more is
refused before anything is built) and 1,650,300 tokens (worst case refused up front, and per
call by the cost guard before dispatch); the worst case at the stated rates must fit
--cost-cap-usd. There is no option that raises the token ceiling.

It reads no credential (a fixed placeholder value is sent in the lane's header), its client
dials loopback addresses only, and it refuses to start when any of ANTHROPIC_API_KEY,
ANTHROPIC_BASE_URL, MISTRAL_API_KEY, OPENAI_API_KEY, OPENAI_BASE_URL, OPENAI_ORG_ID,
OPENAI_PROJECT_ID or XAI_API_KEY is set.

Exit 0: a scored ledger and an artefact that passed the bundle audit and replayed at zero
provider calls. Exit 2: it ran and no audited pair exists: the run was excluded (every fault
cell, or a lowered --max-calls); the report's "cell as expected" says whether that is what
the cell requires. Exit 1: refused, by class. Exit 64: usage. Exit 70: failure. Exit 130:
interrupted (SIGINT/SIGTERM): no call is sent after the signal (the one in flight completes),
the ledger ends excluded with operator_interrupted, and no artefact is written.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			// The bounds first: nothing is built, dialled or opened before.
			if err := preflight.CheckArguments(maxCalls); err != nil {
				return err
			}
			if outputDir == "" {
				return usagef("--output-dir is required")
			}
			vendor, ok := preflight.VendorFor(laneID)
			if !ok {
				return usagef("unknown --lane %q (want one of %s)", laneID, strings.Join(profile.LaneIDs(), ", "))
			}
			cell := preflight.Fault(fault)
			if cell != preflight.FaultNone && !slices.Contains(vendor.Cells(), cell) {
				cells := []string{}
				for _, c := range vendor.Cells() {
					cells = append(cells, string(c))
				}
				return usagef("unknown --fault %q for lane %s (want none or one of %s)", fault, laneID, strings.Join(cells, ", "))
			}
			pack := domains.Default()
			ref, ok := pack.Agent("reference")
			if !ok {
				return fmt.Errorf("the default pack registers no reference agent")
			}
			if err := modelRunIDs(&runID, &instanceID); err != nil {
				return err
			}
			dom, err := pack.Operation(nil, "", scenario)
			if err != nil {
				return err
			}
			// Every output is checked before the first provider call.
			ledgerName, artefactName := preflight.OutputNames(instanceID, cell)
			outputs := []string{filepath.Join(outputDir, ledgerName)}
			if cell == preflight.FaultNone {
				outputs = append(outputs, filepath.Join(outputDir, artefactName))
			}
			if err := checkOutputs(0o600, outputs...); err != nil {
				return err
			}
			runPreflight := preflight.Run
			if testOnlyPreflightRun != nil {
				runPreflight = testOnlyPreflightRun
			}
			r, err := runPreflight(preflight.Config{
				Domain: dom, Reference: ref.New, EngineVersion: schemas.EngineObaudit,
				Lane: laneID, OutputDir: outputDir, MaxCalls: maxCalls, Fault: cell,
				CostCapUSD: costCap, InputUSDPerMTok: inRate, OutputUSDPerMTok: outRate, PricingPolicyID: policyID,
				Now: time.Now, ExecutionRunID: runID, OperationInstanceID: instanceID,
				Environment:     liveEnvironment(),
				ArtefactOptions: artefactOptions(),
				Agents:          packAgents(pack),
				Context:         cmd.Context(),
			})
			if err != nil {
				return err
			}
			if err := reportModelRun(cmd, g, r, printPreflight); err != nil {
				return err
			}
			expected := "not as the cell requires"
			if r.AsExpected() {
				expected = "as the cell requires"
			}
			return answerNoUnless(r.OK(), "the %s cell ended %s (%s), %s; no artefact was written", r.Cell, r.Status, r.ExclusionCode, expected)
		},
	}
	c.Flags().StringVar(&outputDir, "output-dir", "", "existing directory of mode 0700 to write the ledger (and artefact) into")
	c.Flags().Int64Var(&maxCalls, "max-calls", provider.MaxProviderCalls, "provider calls this run may make (1 to 60; fixed ceiling 60)")
	c.Flags().StringVar(&laneID, "lane", preflight.DefaultLane, "lane: openai-responses, anthropic-messages or chat-completions")
	c.Flags().StringVar(&fault, "fault", string(preflight.FaultNone), "cell: none, 429, 500, 400, overloaded, spend-limit (anthropic-messages), invalid-body, wrong-model, truncated, stream-cut or transport")
	c.Flags().StringVar(&scenario, "scenario", "V1", "scenario of the embedded operation to run")
	c.Flags().StringVar(&instanceID, "operation-instance-id", "", "opinst_ + 32 lower-case hex (default: random)")
	c.Flags().StringVar(&runID, "execution-run-id", "", "exec_ + 32 lower-case hex (default: random)")
	c.Flags().StringVar(&costCap, "cost-cap-usd", preflight.DefaultCostCapUSD, "operator cost cap, an exact decimal string")
	c.Flags().StringVar(&inRate, "input-usd-per-mtok", preflight.DefaultInputUSDPerMTok, "operator's pinned input rate per million (not a vendor price claim)")
	c.Flags().StringVar(&outRate, "output-usd-per-mtok", preflight.DefaultOutputUSDPerMTok, "operator's pinned output rate per million")
	c.Flags().StringVar(&policyID, "pricing-policy-id", preflight.DefaultPricingPolicyID, "identity of the pinned rate table")
	return c
}

// liveEnvironment reads the environment here, once, and only for the
// variables that would point a client at a service
// (provider.LiveVariables): the lookup a preflight's Environment is.
func liveEnvironment() func(name string) (string, bool) {
	env := map[string]string{}
	for _, name := range provider.LiveVariables {
		if v, ok := os.LookupEnv(name); ok {
			env[name] = v
		}
	}
	return func(name string) (string, bool) { v, ok := env[name]; return v, ok }
}

// randomID is prefix followed by 32 random lower-case hex digits: a fresh
// operation instance id (opinst_) or execution run id (exec_).
func randomID(prefix string) string {
	var b [16]byte
	rand.Read(b[:]) // never returns an error (crypto/rand's contract)
	return prefix + hex.EncodeToString(b[:])
}

// modelRunIDs gives a model run (preflight, run --model) a random execution
// run id and operation instance id where none was given, and refuses an
// operation instance id of the wrong form (usage).
func modelRunIDs(runID, instanceID *string) error {
	if *runID == "" {
		*runID = randomID("exec_")
	}
	if *instanceID == "" {
		*instanceID = randomID("opinst_")
	}
	if !engine.ValidInstanceID(*instanceID) {
		return usagef("--operation-instance-id %q is not opinst_ followed by 32 lower-case hex digits", *instanceID)
	}
	return nil
}

// printLedgerSummary prints the ledger lines of a preflight's or a model
// run's text summary: the ledger's file, read status and exclusion code,
// and, when it was read, its digest and totals.
func printLedgerSummary(w io.Writer, r *preflight.Result) {
	code := r.ExclusionCode
	if code == "" {
		code = "-"
	}
	fmt.Fprintf(w, "ledger:            %s: %s (exclusion %s)\n", filepath.Base(r.LedgerPath), r.Status, code)
	if a := r.Ledger; a != nil {
		t := a.Totals
		fmt.Fprintf(w, "ledger digest:     %s\n", a.LedgerDigest())
		fmt.Fprintf(w, "calls/attempts:    %d/%d\n", t.ProviderCalls, t.Attempts)
		fmt.Fprintf(w, "tokens in/out:     %d/%d\n", t.InputTokens, t.OutputTokens)
		fmt.Fprintf(w, "measured USD:      %s, forfeited USD: %s, reserved USD: %s (never summed)\n", t.MeasuredCostUSD, t.ForfeitedReservationUSD, t.ReservedUSD)
	}
}

// printArtefactSummary prints the artefact lines of a preflight's or a
// model run's text summary (the artefact written, if any, and its bundle
// audit) and reports whether an artefact was written.
func printArtefactSummary(w io.Writer, r *preflight.Result) bool {
	if r.ArtefactPath == "" {
		fmt.Fprintf(w, "artefact:          none written\n")
		return false
	}
	fmt.Fprintf(w, "artefact:          %s (contract 8, reliable %v)\n", filepath.Base(r.ArtefactPath), r.Reliable)
	if r.Bundle != nil {
		fmt.Fprintf(w, "bundle audit:      OK (not provider attestation)\n")
	}
	return true
}

func printPreflight(w io.Writer, r *preflight.Result) {
	verdict := "OK"
	if !r.OK() {
		verdict = "NO"
	}
	fmt.Fprintf(w, "preflight %s: cell %s, scenario %s, agent %s, model %s\n", verdict, r.Cell, r.ScenarioID, r.AgentID, r.Profile.Model)
	fmt.Fprintf(w, "lane:              %s (provider %s)\n", r.Lane, r.Profile.Provider)
	fmt.Fprintf(w, "cell as expected:  %v\n", r.AsExpected())
	printLedgerSummary(w, r)
	if a := r.Ledger; a != nil {
		t := a.Totals
		var faults []string
		for _, k := range slices.Sorted(maps.Keys(t.FaultCounts)) {
			faults = append(faults, fmt.Sprintf("%s=%d", k, t.FaultCounts[k]))
		}
		if len(faults) > 0 {
			fmt.Fprintf(w, "faults:            %s\n", strings.Join(faults, ", "))
		}
	}
	fmt.Fprintf(w, "budget:            worst case %s USD of cap %s; tokens %d of %d; largest request bound %d of %d\n",
		r.WorstCaseUSD, r.Controls.CostCapUSD, r.TokenWorstCase, r.Controls.TokenHardCap, r.LargestRequestBound, provider.LargestRequestTokenBound)
	fmt.Fprintf(w, "provider requests: %d (loopback, scripted)\n", r.ProviderRequests)
	if !printArtefactSummary(w, r) {
		return
	}
	if r.Replay != nil {
		fmt.Fprintf(w, "replay:            OK by %s, provider calls %d\n", r.Replay.Reproduction, r.ReplayProviderCalls)
	}
}
