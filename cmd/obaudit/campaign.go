package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/rand"
	"fmt"
	"github.com/obaudit/obaudit/provider/lane"
	"github.com/obaudit/obaudit/provider/profile"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/artefact/sigstore"
	"github.com/obaudit/obaudit/bundle"
	"github.com/obaudit/obaudit/campaign"
	"github.com/obaudit/obaudit/checkpoint"
	"github.com/obaudit/obaudit/commitment"
	"github.com/obaudit/obaudit/domains"
	"github.com/obaudit/obaudit/domains/lettings/maintenance/acceptance"
	"github.com/obaudit/obaudit/domains/lettings/maintenance/oracle"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/episode"
	"github.com/obaudit/obaudit/preflight"
	"github.com/obaudit/obaudit/provider"
	"github.com/obaudit/obaudit/refusal"
	"github.com/obaudit/obaudit/schemas"
	"github.com/spf13/cobra"
	"k8s.io/klog/v2"
)

// laneLoopback is the one provider lane this build carries for model
// profiles: the preflight's scripted provider on a loopback listener.
const laneLoopback = "loopback-scripted"

func newCampaignCmd(g *globals) *cobra.Command {
	c := &cobra.Command{
		Use:   "campaign",
		Short: "Preregistered campaigns: plan, run, report and verify a population of episodes",
		Long: `A campaign is a sealed plan of assigned trial identities (scenario → variant →
randomized, counterbalanced subject order within each block → trial), an append-only
transparency log (C2SP tlog-tiles, written by tessera) whose first entry seals the plan and
whose every further entry is one trial's outcome, each scored trial's files and signed run
commitment, and a population report re-derivable from the outcomes.

  obaudit campaign plan FILE --output DIR --key KEY
  obaudit campaign run DIR --key KEY [--parallel N] [--continue]
  obaudit campaign report DIR [--json | --html F]
  obaudit campaign verify DIR [--checkpoint F]
  obaudit campaign run DIR --key KEY --shard K/N|auto   (one shard; then)
  obaudit campaign merge DIR --key KEY`,
	}
	c.AddCommand(newCampaignPlanCmd(g), newCampaignRunCmd(g), newCampaignReportCmd(g), markSigstore(newCampaignVerifyCmd(g)), markSigstore(newCampaignMergeCmd(g)))
	return c
}

// quietTessera routes tessera's klog output nowhere: the CLI's own output
// is its report. klog's settings are process state that tessera's
// goroutines read, so they are set once, before the first log is opened.
var quietTessera = sync.OnceFunc(func() {
	klog.SetLogger(logr.Discard())
	klog.LogToStderr(false)
	klog.SetOutput(io.Discard)
})

// campaignCatalog is what this build carries, for campaign.Expand.
func campaignCatalog(pack *domains.Pack) (campaign.Catalog, error) {
	m, err := oracle.Default(acceptance.Vocabulary())
	if err != nil {
		return campaign.Catalog{}, err
	}
	id := m.Identity()
	return campaign.Catalog{
		Variant: func(v string) (campaign.Variant, bool) {
			dom, err := pack.Operation(nil, "", v)
			if err != nil {
				return campaign.Variant{}, false
			}
			meta := dom.Plan().Meta
			return campaign.Variant{ID: v, SemanticScenario: meta.SemanticScenarioID, SpecDigest: meta.SpecDigest}, true
		},
		Agent:    func(a string) bool { _, ok := pack.Agent(a); return ok },
		Lanes:    []string{laneLoopback},
		Arms:     []string{campaign.ArmFullLifecycle, campaign.ArmNoTime},
		Eligible: campaignEligible(pack),
		Engines:  schemas.Engines(),
		Manifests: map[string]string{
			"oracle":          id.OracleID + "@" + id.OracleVersion + " sha256:" + id.Digest,
			"operation_type":  pack.OperationType,
			"obaudit_version": toolkitVersion,
		},
	}, nil
}

func newCampaignPlanCmd(g *globals) *cobra.Command {
	var output, keyPath, logStorage string
	c := &cobra.Command{
		Use:   "plan FILE --output DIR --key KEY [--log-storage URL]",
		Short: "Seal a campaign file into a new campaign directory (nothing is dispatched)",
		Long: `Reads the campaign file (obaudit-campaign/v1, strict JSON), expands it into every
assigned trial identity with its derived seed, operation instance id and execution run id,
records the identity-manifest digests (engine, oracle, spec per variant, profiles, rates,
bounds) and seals the plan: DIR/plan.json (RFC 8785), whose digest is the first entry of the
campaign log DIR/log, and the log's signed checkpoint over it (C2SP signed note by KEY,
ECDSA P-256 from obaudit keygen), published before any trial starts. That pre-dispatch
checkpoint is printed and kept as DIR/pre-dispatch.checkpoint; hold your own copy: verify
against it proves that no result was added, dropped or replaced afterwards.

--log-storage keeps the log in an object store instead of DIR/log, recorded in
DIR/log-storage.url for every later command: s3://BUCKET[/PREFIX] (tessera's AWS driver; MySQL
DSN in OBAUDIT_LOG_MYSQL_DSN, an S3-compatible endpoint in OBAUDIT_S3_ENDPOINT) or
gs://BUCKET[/PREFIX]?spanner=projects/P/instances/I/databases/D (tessera's GCP driver), each
only in a binary built with its tag (go build -tags obaudit_aws|obaudit_gcp ./cmd/obaudit);
the default binary carries no cloud SDK and refuses them (campaign/log-storage).

DIR must not exist. Exit 0: sealed. Exit 1: refused, by class.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if output == "" || keyPath == "" {
				return usagef("--output and --key are required")
			}
			b, err := readInput(cmd, args[0])
			if err != nil {
				return err
			}
			f, err := campaign.ParseFile(b)
			if err != nil {
				return err
			}
			key, err := readPrivateKey(cmd, keyPath)
			if err != nil {
				return err
			}
			pack := domains.Default()
			cat, err := campaignCatalog(pack)
			if err != nil {
				return err
			}
			if err := checkLoopbackProfiles(f); err != nil {
				return err
			}
			logKey, err := campaign.EncodeLogKey(&key.PublicKey)
			if err != nil {
				return err
			}
			p, err := campaign.Expand(f, cat, logKey)
			if err != nil {
				return err
			}
			signer, err := checkpoint.NewNoteSigner(f.Origin, key, rand.Reader)
			if err != nil {
				return err
			}
			ctx, err := campaignLogContext(cmd, output, logStorage)
			if err != nil {
				return err
			}
			cp, err := campaign.Create(ctx, output, p, signer)
			if err != nil {
				return err
			}
			planFile, err := p.Encode()
			if err != nil {
				return err
			}
			return writeReport(cmd, g, map[string]any{
				"mediaType": "application/vnd.obaudit.campaign-plan+json;version=1",
				"directory": output, "plan_sha256": campaign.PlanDigest(planFile),
				"assigned": int64(len(p.Trials)), "pre_dispatch_checkpoint": string(cp),
				"ineligible": ineligibleTree(p.Ineligible),
			}, func(w io.Writer) {
				fmt.Fprintf(w, "sealed: %s/%s (sha256 %s)\n", output, campaign.PlanFile, campaign.PlanDigest(planFile))
				fmt.Fprintf(w, "assigned: %d trial identities (%d variants × %d subjects × %d arms × %d trials",
					len(p.Trials), len(f.Variants), len(f.Agents)+len(f.ModelProfiles), len(f.Arms), f.Trials)
				if len(p.Ineligible) > 0 {
					fmt.Fprintf(w, ", less %d ineligible variant × arm cells", len(p.Ineligible))
				}
				fmt.Fprintf(w, ")\n")
				for _, x := range p.Ineligible {
					fmt.Fprintf(w, "ineligible (no identity assigned): %s on %s: %s\n", x.Arm, x.Variant, x.Class)
				}
				fmt.Fprintf(w, "pre-dispatch checkpoint (hold a copy):\n%s", cp)
			})
		},
	}
	c.Flags().StringVar(&output, "output", "", "the new campaign directory")
	c.Flags().StringVar(&keyPath, "key", "", "ECDSA P-256 private key (PEM) that signs the log's checkpoints and the trials' commitments")
	c.Flags().StringVar(&logStorage, "log-storage", "posix", "where the campaign log is kept: posix (DIR/log), s3://BUCKET[/PREFIX] or gs://BUCKET[/PREFIX]?spanner=…")
	return c
}

// checkParallel is the usage rule for --parallel of campaign run, merge
// and verify: 1 to 256 trials at once.
func checkParallel(n int) error {
	if n < 1 || n > 256 {
		return usagef("--parallel %d: want 1..256", n)
	}
	return nil
}

// checkKeyParallel is the usage rule for the --key and --parallel of the
// commands that append to a campaign's log (run and merge): a key named,
// and checkParallel's.
func checkKeyParallel(keyPath string, parallel int) error {
	if keyPath == "" {
		return usagef("--key is required")
	}
	return checkParallel(parallel)
}

// readKeyAndPlan reads the plan's private key (--key) and the plan of the
// campaign in dir, for the commands that sign its log (run and merge).
func readKeyAndPlan(cmd *cobra.Command, keyPath, dir string) (*ecdsa.PrivateKey, *campaign.Plan, error) {
	key, err := readPrivateKey(cmd, keyPath)
	if err != nil {
		return nil, nil, err
	}
	_, p, err := campaign.ReadPlan(dir)
	if err != nil {
		return nil, nil, err
	}
	return key, p, nil
}

// loopbackRun is the profile a loopback-scripted trial runs under: the
// preflight's default lane and its embedded example profile.
func loopbackRun() (lane.Profile, error) {
	p, err := profile.ForLane(preflight.DefaultLane)
	if err != nil {
		return lane.Profile{}, err
	}
	return p.Run, nil
}

// checkLoopbackProfiles refuses a profile the loopback lane cannot serve
// (it pins the preflight's model) and per-trial bounds above the build's.
func checkLoopbackProfiles(f *campaign.File) error {
	run, err := loopbackRun()
	if err != nil {
		return err
	}
	for _, m := range f.ModelProfiles {
		if m.Lane == laneLoopback && m.Model != run.Model {
			return refusal.New(campaign.ErrUnknownName, "model profile %q: the %s lane serves model %q only", m.ID, laneLoopback, run.Model)
		}
	}
	if len(f.ModelProfiles) > 0 {
		pt := f.Bounds.PerTrial
		if pt.Calls > provider.MaxProviderCalls || pt.Tokens > provider.TokenHardCap {
			return refusal.New(campaign.ErrBoundsExceeded, "bounds.per_trial: %d calls and %d tokens; this build's ceilings are %d and %d", pt.Calls, pt.Tokens, provider.MaxProviderCalls, provider.TokenHardCap)
		}
	}
	return nil
}

// campaignExecutor runs trials for campaign.Run.
type campaignExecutor struct {
	pack     *domains.Pack
	plan     *campaign.Plan
	doms     map[string]engine.Domain
	profiles map[string]campaign.ModelProfile
	env      func(name string) (string, bool) // liveEnvironment
}

func newCampaignExecutor(p *campaign.Plan) (*campaignExecutor, error) {
	pack := domains.Default()
	e := &campaignExecutor{pack: pack, plan: p, doms: map[string]engine.Domain{}, profiles: map[string]campaign.ModelProfile{}, env: liveEnvironment()}
	for _, v := range p.Variants {
		dom, err := pack.Operation(nil, "", v.ID)
		if err != nil {
			return nil, err
		}
		if meta := dom.Plan().Meta; meta.SpecDigest != v.SpecDigest || meta.SemanticScenarioID != v.SemanticScenario {
			return nil, refusal.New(campaign.ErrPlanInvalid, "variant %s: this build's spec is not the one the plan sealed", v.ID)
		}
		e.doms[v.ID] = dom
	}
	for _, m := range p.File.ModelProfiles {
		e.profiles[m.ID] = m
	}
	return e, nil
}

func (e *campaignExecutor) Execute(ctx context.Context, t campaign.Trial, dir string) (*campaign.Execution, error) {
	dom := e.doms[t.Variant]
	if t.Arm == campaign.ArmNoTime && t.SubjectKind == campaign.KindProfile {
		return e.executeNoTimeModel(dom, t, dir)
	}
	if t.Arm == campaign.ArmNoTime {
		return e.executeNoTime(dom, t)
	}
	if t.SubjectKind == campaign.KindAgent {
		a, ok := e.pack.Agent(t.Subject)
		if !ok {
			return &campaign.Execution{Stage: "dispatched"}, nil
		}
		res, err := episode.Run(episode.Config{Domain: dom, NewAgent: a.New, AgentID: a.ID, AgentKind: a.Kind,
			OperationInstanceID: t.OperationInstanceID, EngineVersion: e.plan.File.EngineVersion})
		if err != nil {
			return endsAt(&campaign.Execution{Stage: "provider_completed"}, err)
		}
		ex := &campaign.Execution{Stage: "runtime_completed"}
		// Encode validates the bytes before returning them; the runner
		// writes them and makes them durable with its group, and the
		// commitment derives from the validated Document.
		doc, b, err := artefact.EncodeDocument(res.Artefact, artefactOptions())
		if err != nil {
			return endsAt(ex, err)
		}
		ex.Stage, ex.Artefact, ex.ArtefactBytes, ex.Document, ex.Evaluation = "artifact_valid", preflight.FileName(t.OperationInstanceID, preflight.ArtefactSuffix), b, doc, &res.Artefact.Evaluation
		if e.plan.RecordsCommon(t.Arm) {
			if ex.Common, err = commonOfArtefact(dom, res.Artefact); err != nil {
				return ex, nil
			}
		}
		if res.Episode.ReplayOK != nil && *res.Episode.ReplayOK {
			ex.Stage = "replay_valid"
		}
		return ex, nil
	}
	m := e.profiles[t.Subject]
	ref, _ := e.pack.Agent("reference")
	r, err := preflight.Run(preflight.Config{
		Domain: dom, Reference: ref.New, EngineVersion: e.plan.File.EngineVersion,
		OutputDir: dir, MaxCalls: e.plan.File.Bounds.PerTrial.Calls, Fault: preflight.FaultNone,
		Latency:    time.Duration(m.LatencyMS) * time.Millisecond,
		CostCapUSD: e.plan.File.Bounds.PerTrial.CostUSD, InputUSDPerMTok: e.plan.File.Rates.InputUSDPerMTok,
		OutputUSDPerMTok: e.plan.File.Rates.OutputUSDPerMTok, PricingPolicyID: e.plan.File.Rates.PricingPolicyID,
		Now: time.Now, ExecutionRunID: t.ExecutionRunID, OperationInstanceID: t.OperationInstanceID,
		Environment:     e.env,
		ArtefactOptions: artefactOptions(), Agents: packAgents(e.pack),
	})
	if err != nil {
		return endsAt(&campaign.Execution{Stage: "dispatched", Ledger: existing(dir, preflight.FileName(t.OperationInstanceID, preflight.LedgerSuffix))}, err)
	}
	ex := &campaign.Execution{Stage: "dispatched", Exclusion: r.ExclusionCode, Ledger: existing(dir, filepath.Base(r.LedgerPath))}
	if !r.OK() {
		if ex.Exclusion != "" && !slices.Contains(campaign.Exclusions(), ex.Exclusion) {
			ex.Exclusion = campaign.ExclusionInfrastructure
		}
		return ex, nil
	}
	b, err := os.ReadFile(r.ArtefactPath)
	if err != nil {
		return nil, err
	}
	doc, err := artefact.Read(b, artefactOptions())
	if err != nil {
		return &campaign.Execution{Stage: "runtime_completed", Ledger: ex.Ledger}, nil
	}
	var common *campaign.CommonOutcome
	if e.plan.RecordsCommon(t.Arm) {
		if common, err = commonOfArtefact(dom, doc.Artefact); err != nil {
			return &campaign.Execution{Stage: "artifact_valid", Ledger: ex.Ledger}, nil
		}
	}
	// The preflight's own checks passed: the ledger read back scored, the
	// pair passed the bundle audit and the artefact replayed at zero calls.
	return &campaign.Execution{Stage: "replay_valid", Artefact: filepath.Base(r.ArtefactPath), Ledger: ex.Ledger, Evaluation: &doc.Artefact.Evaluation, Common: common, Document: doc}, nil
}

// endsAt is a trial's end when a step fails with err: a refusal (the
// trial's own evidence judged) ends it at ex's stage; any other error is a
// failure of the run.
func endsAt(ex *campaign.Execution, err error) (*campaign.Execution, error) {
	if _, ok := refusal.ClassOf(err); ok {
		return ex, nil
	}
	return nil, err
}

func existing(dir, name string) string {
	if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
		return name
	}
	return ""
}

// executedChecks is the commitment check of a file the campaign executor
// already put through it before reporting replay_valid (artefact.Write
// validates the bytes it returns; the determinism self-check re-executed the
// episode; the preflight validated, bundle-audited and replayed its pair).
var executedChecks = commitment.CheckerFunc(func(ctx context.Context, in commitment.Inputs) error { return nil })

func campaignCommit(key *ecdsa.PrivateKey) (func(context.Context, commitment.Inputs) ([]byte, error), error) {
	signer, err := sigstore.NewDeterministicKeySigner(key)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, in commitment.Inputs) ([]byte, error) {
		opts := commitment.Options{Validate: executedChecks, Replay: executedChecks, ObauditVersion: toolkitVersion}
		if in.Ledger != nil {
			opts.Bundle = executedChecks
		}
		b, _, err := commitment.Sign(ctx, in, opts, signer)
		return b, err
	}, nil
}

// campaignCheck re-derives a scored trial for campaign.Verify: the
// artefact validated (as obaudit validate), its identity the plan's, the
// episode replayed (as obaudit replay), and a ledger bundle-audited with
// it (as obaudit bundle).
func campaignCheck(p *campaign.Plan) campaign.TrialChecker {
	ops := &operations{doms: map[[2]string]engine.Domain{}}
	return func(ctx context.Context, t campaign.Trial, art, led []byte) (*artefact.Evaluation, *campaign.CommonOutcome, *artefact.Document, error) {
		if t.Arm == campaign.ArmNoTime {
			c, err := checkNoTime(p, t, art, led)
			return nil, c, nil, err
		}
		doc, err := checkFull(ctx, p, t, art, led, ops)
		if err != nil {
			return nil, nil, nil, err
		}
		if !p.RecordsCommon(t.Arm) {
			return &doc.Artefact.Evaluation, nil, doc, nil
		}
		dom, err := ops.operation(domains.Default(), t.Variant)
		if err != nil {
			return nil, nil, nil, err
		}
		c, err := commonOfArtefact(dom, doc.Artefact)
		return &doc.Artefact.Evaluation, c, doc, err
	}
}

// operations compiles each pack's built-in operation once per variant for
// a verify run (as the run's executor does): the compiled domain is the
// same for every trial of the variant and is only read while trials run.
type operations struct {
	mu   sync.Mutex
	doms map[[2]string]engine.Domain // {operation type, variant}
}

func (o *operations) operation(pack *domains.Pack, variant string) (engine.Domain, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	k := [2]string{pack.OperationType, variant}
	if d, ok := o.doms[k]; ok {
		return d, nil
	}
	d, err := pack.Operation(nil, "", variant)
	if err != nil {
		return nil, err
	}
	o.doms[k] = d
	return d, nil
}

// trialAgentID is the agent id a trial's files name: its subject's, or for
// a model profile the id of the loopback lane's agent.
func trialAgentID(t campaign.Trial) (string, error) {
	if t.SubjectKind != campaign.KindProfile {
		return t.Subject, nil
	}
	run, err := loopbackRun()
	if err != nil {
		return "", err
	}
	return profile.AgentID(run), nil
}

// checkFull reads a Full trial's artefact and checks it: validated, its
// identity the plan's, replayed and bundle-audited.
func checkFull(ctx context.Context, p *campaign.Plan, t campaign.Trial, art, led []byte, ops *operations) (*artefact.Document, error) {
	doc, err := artefact.Read(art, artefactOptions())
	if err != nil {
		return nil, err
	}
	a := doc.Artefact
	agent, err := trialAgentID(t)
	if err != nil {
		return nil, err
	}
	if a.OperationInstanceID != t.OperationInstanceID || a.ScenarioID != t.Variant || a.AgentID != agent ||
		a.EngineVersion != p.File.EngineVersion || a.SemanticScenarioID != t.SemanticScenario {
		return nil, refusal.New(campaign.ErrIdentityMismatch, "%s: the artefact is of another identity (instance %s, scenario %s, agent %s)", t.ID, a.OperationInstanceID, a.ScenarioID, a.AgentID)
	}
	pack, err := replayPack(doc)
	if err != nil {
		return nil, err
	}
	dom, err := ops.operation(pack, a.ScenarioID)
	if err != nil {
		return nil, err
	}
	r, err := episode.Replay(doc, episode.ReplayConfig{Domain: dom, Agents: packAgents(pack), RequestDigests: preflight.RequestDigests})
	if err != nil {
		return nil, err
	}
	if !r.OK() {
		d := r.FirstDivergence
		return nil, refusal.New(commitment.ErrCheckFailed, "replay differs first at %s %s", d.Section, d.Pointer)
	}
	if (t.SubjectKind == campaign.KindProfile) != (led != nil) {
		return nil, refusal.New(campaign.ErrOutcomeMismatch, "%s: a model-backed trial has a ledger, a deterministic one none", t.ID)
	}
	if led != nil {
		if _, err := bundle.AuditReader(doc.Tree, bytes.NewReader(led), "ledger", bundle.Options{}); err != nil {
			return nil, err
		}
	}
	return doc, nil
}
