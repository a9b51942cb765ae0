package main

import (
	"crypto/x509"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/obaudit/obaudit/domains"
	"github.com/obaudit/obaudit/preflight"
	"github.com/obaudit/obaudit/provider"
	"github.com/obaudit/obaudit/provider/profile"
	"github.com/obaudit/obaudit/refusal"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// lookupEnv is the one place a live run's credential is read from (tests
// replace it). Only the profile's credential variable is ever looked up.
var lookupEnv = os.LookupEnv

// modelFlags are `obaudit run`'s model-run flags (--model and what a live
// run needs).
type modelFlags struct {
	model, baseURL, caFile, outputDir, runID, costCap, inRate, outRate, policyID string
	live                                                                         bool
	maxCalls                                                                     int64
}

func (m *modelFlags) register(f *pflag.FlagSet) {
	f.StringVar(&m.model, "model", "", "run a model: an embedded profile name ("+strings.Join(profile.Names(), ", ")+") or a profile file (.json)")
	f.BoolVar(&m.live, "live", false, "authorise real provider calls (required with --model)")
	f.StringVar(&m.baseURL, "base-url", "", "API root, https only (default: the profile's default_base_url)")
	f.StringVar(&m.caFile, "ca-file", "", "PEM roots the client trusts instead of the system's (a self-hosted or test server)")
	f.StringVar(&m.outputDir, "output-dir", "", "existing 0700 directory for ID.execution_ledger.ndjson and ID.episode_artifact.json, ID the operation instance id (model runs)")
	f.StringVar(&m.runID, "execution-run-id", "", "exec_ + 32 lower-case hex (model runs; default: random)")
	f.StringVar(&m.costCap, "cost-cap-usd", "", "operator cost cap, an exact decimal (required for a live run)")
	f.StringVar(&m.inRate, "input-usd-per-mtok", "", "operator's pinned input rate per million tokens (required for a live run; no default)")
	f.StringVar(&m.outRate, "output-usd-per-mtok", "", "operator's pinned output rate per million tokens (required for a live run; no default)")
	f.StringVar(&m.policyID, "pricing-policy-id", preflight.LivePricingPolicyID, "identity of the operator's rate table")
	f.Int64Var(&m.maxCalls, "max-calls", provider.MaxProviderCalls, "provider calls this run may make (1 to 60; fixed ceiling 60)")
}

// modelOnly are the flags that mean something only with --model.
var modelOnly = []string{"live", "base-url", "ca-file", "output-dir", "execution-run-id", "cost-cap-usd", "input-usd-per-mtok", "output-usd-per-mtok", "pricing-policy-id", "max-calls"}

// strayFlags is a usage error for a model-run flag given without --model
// (a deterministic run would silently ignore it).
func (m *modelFlags) strayFlags(cmd *cobra.Command) error {
	for _, f := range modelOnly {
		if cmd.Flags().Changed(f) {
			return usagef("--%s applies to model runs only (with --model)", f)
		}
	}
	return nil
}

// runModel is `obaudit run --model`. Without --live it refuses before
// anything is read, built, dialled or opened.
func runModel(cmd *cobra.Command, g *globals, m *modelFlags, scenario, instanceID, engineVersion string) error {
	if cmd.Flags().Changed("agent") || cmd.Flags().Changed("output") || cmd.Flags().Changed("spec") {
		return usagef("--agent, --output and --spec apply to deterministic runs; a model run decides with its profile and writes into --output-dir")
	}
	if !m.live {
		return refusal.New(preflight.ErrLiveRequired, "--model makes real provider calls, which cost money: add --live to authorise them (or run `obaudit preflight --lane LANE` to spend nothing)")
	}
	if err := preflight.CheckArguments(m.maxCalls); err != nil {
		return err
	}
	if scenario == "" {
		return usagef("--scenario is required")
	}
	if m.outputDir == "" {
		return usagef("--output-dir is required with --model")
	}
	if err := knownEngine(engineVersion); err != nil {
		return err
	}
	p, err := readProfile(cmd, m.model)
	if err != nil {
		return err
	}
	var roots *x509.CertPool
	if m.caFile != "" {
		pemBytes, err := readInput(cmd, m.caFile)
		if err != nil {
			return err
		}
		roots = x509.NewCertPool()
		if !roots.AppendCertsFromPEM(pemBytes) {
			return refusal.New(preflight.ErrTrustRoots, "%s holds no PEM certificate", m.caFile)
		}
	}
	if err := modelRunIDs(&m.runID, &instanceID); err != nil {
		return err
	}
	pack := domains.Default()
	dom, err := pack.Operation(nil, "", scenario)
	if err != nil {
		return err
	}
	// The credential: the profile's one variable, read here and handed
	// on; it is written nowhere and named (never quoted) in refusals.
	credential, _ := lookupEnv(p.CredentialEnv)
	r, err := preflight.Live(preflight.LiveConfig{
		Profile: p, BaseURL: m.baseURL, RootCAs: roots, Credential: credential,
		Domain: dom, EngineVersion: engineVersion, OutputDir: m.outputDir, MaxCalls: m.maxCalls,
		CostCapUSD: m.costCap, InputUSDPerMTok: m.inRate, OutputUSDPerMTok: m.outRate, PricingPolicyID: m.policyID,
		Now: time.Now, ExecutionRunID: m.runID, OperationInstanceID: instanceID,
		ArtefactOptions: artefactOptions(), Agents: packAgents(pack), Context: cmd.Context(),
	})
	if err != nil {
		return err
	}
	if err := reportModelRun(cmd, g, r, printModelRun); err != nil {
		return err
	}
	return answerNoUnless(r.OK(), "the model run ended %s (%s); no artefact was written", r.Status, r.ExclusionCode)
}

// readProfile reads an embedded profile by name, or a profile file (a
// name with a path separator or a .json suffix).
func readProfile(cmd *cobra.Command, name string) (*profile.Profile, error) {
	if !strings.ContainsRune(name, filepath.Separator) && !strings.HasSuffix(name, ".json") {
		return profile.Embedded(name)
	}
	b, err := readInput(cmd, name)
	if err != nil {
		return nil, err
	}
	return profile.Parse(b, name)
}

func printModelRun(w io.Writer, r *preflight.Result) {
	verdict := "OK"
	if !r.OK() {
		verdict = "NO"
	}
	fmt.Fprintf(w, "model run %s: lane %s, provider %s, model %s, scenario %s, agent %s\n", verdict, r.Lane, r.Profile.Provider, r.Profile.Model, r.ScenarioID, r.AgentID)
	printLedgerSummary(w, r)
	fmt.Fprintf(w, "budget:            worst case %s USD of cap %s (the most the guard admits)\n", r.WorstCaseUSD, r.Controls.CostCapUSD)
	if !printArtefactSummary(w, r) {
		return
	}
	if r.Replay != nil {
		fmt.Fprintf(w, "replay:            OK by %s, provider calls %d, request digests %d rebuilt\n", r.Replay.Reproduction, r.ReplayProviderCalls, r.Replay.RequestDigestsRebuilt)
	}
}

// reportModelRun writes a preflight or live run's summary (--json) or its
// text, and returns the interruption when the run was interrupted: its one
// outcome is then the interruption (exit 130), its ledger, excluded with
// operator_interrupted, saying where it stopped.
func reportModelRun(cmd *cobra.Command, g *globals, r *preflight.Result, text func(io.Writer, *preflight.Result)) error {
	if g.json {
		// An interrupted run's one JSON document is the interruption's.
		if interrupted(cmd.Context()) == nil {
			if err := writeJSON(cmd, r.Summary()); err != nil {
				return err
			}
		}
	} else {
		text(cmd.OutOrStdout(), r)
	}
	return interrupted(cmd.Context())
}
