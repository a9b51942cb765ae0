package campaign

import (
	"cmp"
	"context"
	"crypto/ecdsa"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/commitment"
	"github.com/obaudit/obaudit/internal/safefs"
	"github.com/obaudit/obaudit/refusal"
	"github.com/transparency-dev/tessera"
	"golang.org/x/mod/sumdb/note"
)

// Files of a campaign directory.
const (
	PlanFile        = "plan.json"
	PreDispatchFile = "pre-dispatch.checkpoint"
	TrialsDir       = "trials"
	ReportFile      = "report.json"
	StartedFile     = "started.json"
	CommitmentFile  = "commitment.sigstore.json"
)

// EncodeLogKey is the plan's log_key for pub.
func EncodeLogKey(pub *ecdsa.PublicKey) (string, error) {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(der), nil
}

// PublicKey decodes the plan's log key.
func (p *Plan) PublicKey() (*ecdsa.PublicKey, error) {
	der, err := base64.StdEncoding.Strict().DecodeString(p.LogKey)
	if err != nil {
		return nil, refusal.Wrap(ErrPlanInvalid, err, "log_key")
	}
	k, err := x509.ParsePKIXPublicKey(der)
	pub, ok := k.(*ecdsa.PublicKey)
	if err != nil || !ok {
		return nil, refusal.New(ErrPlanInvalid, "log_key is not an ECDSA public key")
	}
	return pub, nil
}

// Create makes a new campaign directory dir (it must not exist): the
// sealed plan file, the campaign log with the plan's seal as its first
// entry, and the signed checkpoint over it, published before any trial can
// start and returned (the pre-dispatch checkpoint; also kept as
// pre-dispatch.checkpoint, but a verifier should hold its own copy).
func Create(ctx context.Context, dir string, p *Plan, signer note.Signer) ([]byte, error) {
	planFile, err := p.Encode()
	if err != nil {
		return nil, err
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		return nil, err
	}
	if err := syncDir(filepath.Dir(filepath.Clean(dir))); err != nil {
		return nil, err
	}
	if err := safefs.WriteFile(filepath.Join(dir, PlanFile), planFile, 0o644); err != nil {
		return nil, err
	}
	if err := recordStore(ctx, dir); err != nil {
		return nil, err
	}
	a, err := openAppender(ctx, dir, signer)
	if err != nil {
		return nil, err
	}
	f := a.add(ctx, tessera.NewEntry(PlanLeaf(planFile)))
	if _, err := f(); err != nil {
		a.close(ctx)
		return nil, err
	}
	cp, err := a.close(ctx)
	if err != nil {
		return nil, err
	}
	if n, _ := checkpointSize(cp); n != 1 {
		return nil, errNoCheckpoint
	}
	if err := safefs.WriteFile(filepath.Join(dir, PreDispatchFile), cp, 0o644); err != nil {
		return nil, err
	}
	if err := os.Mkdir(filepath.Join(dir, TrialsDir), 0o700); err != nil {
		return nil, err
	}
	return cp, syncDir(dir)
}

func syncDir(path string) error {
	d, err := os.Open(path)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// Executor runs one trial. cmd wires it (deterministic agents through
// package episode, model profiles through a provider lane).
type Executor interface {
	// Execute runs t, writing its files beneath dir (an existing empty
	// directory of mode 0700), and reports how far it got. An error is an
	// infrastructure failure; a refused or excluded run is an Execution
	// with its stage and exclusion.
	Execute(ctx context.Context, t Trial, dir string) (*Execution, error)
}

// Execution is what an executor reports.
type Execution struct {
	// Stage is the furthest funnel state reached, at most replay_valid.
	Stage string
	// Exclusion is a reason from [Exclusions], or "".
	Exclusion string
	// Artefact and Ledger are the file names written in the trial
	// directory ("" for none).
	Artefact, Ledger string
	// Evaluation is the written artefact's evaluation (nil: none; always
	// nil on stateful_time_removed, whose Artefact is the No-Time record).
	Evaluation *artefact.Evaluation
	// Common is the CommonOutcomeV1 object of the written artefact or
	// record (nil: none).
	Common *CommonOutcome
	// ArtefactBytes, if set, are the artefact file's bytes for the runner
	// to write as Artefact, made durable with the batch's other files
	// before its outcome is logged (an executor that writes its own files
	// leaves it nil).
	ArtefactBytes []byte
	// Document, if set, is the artefact as its encoder validated it
	// (artefact.EncodeDocument); the run commitment derives its facts from
	// it instead of parsing the file again, and only when it is of exactly
	// the bytes read back (commitment.Inputs.Document).
	Document *artefact.Document
}

// RunOptions configure [Run].
type RunOptions struct {
	// Parallel is the number of trials executing at once (0 means 1).
	Parallel int
	// Continue finishes an interrupted campaign: identities that started
	// and never ended are recorded ERROR (interrupted), those that never
	// started are executed. Without it a campaign that has begun is
	// refused (ErrAlreadyStarted).
	Continue bool
	Executor Executor
	// Commit signs a scored trial's run commitment (a Sigstore bundle) with
	// the log key.
	Commit func(ctx context.Context, in commitment.Inputs) ([]byte, error)
	// Signer signs the log's checkpoints; its key must be the plan's.
	Signer note.Signer
	Key    *ecdsa.PublicKey
	// Now is the wall clock for the aggregate wall-time bound (nil: that
	// bound is not enforced; cmd passes time.Now).
	Now func() time.Time
	// Progress, if set, is called after each outcome (serialised).
	Progress func(done, total int)
	// Only, if not nil, are the trial indices this run executes (a shard,
	// [RunShard]); the others are left alone.
	Only []int
}

// RunResult summarises a run.
type RunResult struct {
	Total, Executed, Interrupted, AlreadyEnded int
	// Checkpoint is the final signed checkpoint.
	Checkpoint []byte
	// Complete reports whether every assigned identity has an outcome
	// (and the report was written).
	Complete bool
}

// Run executes the campaign in dir: every assigned identity ends with
// exactly one outcome appended to the log, with no retries and no
// replacements.
func Run(ctx context.Context, dir string, opts RunOptions) (*RunResult, error) {
	planFile, p, err := readPlan(dir, opts.Key)
	if err != nil {
		return nil, err
	}
	a, _, outcomes, err := reopen(ctx, dir, opts.Signer, opts.Key, p, planFile)
	if err != nil {
		return nil, err
	}
	defer a.cancel()
	started := map[int]bool{}
	ents, err := os.ReadDir(filepath.Join(dir, TrialsDir))
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		if i, ok := p.trialOf(e.Name()); ok {
			started[i] = true
		}
	}
	res := &RunResult{Total: len(p.Trials), AlreadyEnded: len(outcomes)}
	if !opts.Continue && (len(outcomes) > 0 || len(started) > 0) {
		a.close(ctx)
		return nil, refusal.New(ErrAlreadyStarted, "%d identities have started and %d ended; finish with --continue", len(started), len(outcomes))
	}
	r := &runner{plan: p, planDigest: PlanDigest(planFile), dir: dir, opts: opts, app: a}
	if opts.Now != nil {
		r.began = opts.Now()
	}
	futures := make(chan func() (tessera.Index, error), 1024)
	var futErr error
	var futWG sync.WaitGroup
	futWG.Go(func() {
		for f := range futures {
			if _, err := f(); err != nil && futErr == nil {
				futErr = err
			}
		}
	})
	done := len(outcomes)
	var mu sync.Mutex
	emit := func(o *Outcome) error {
		e, err := o.Entry()
		if err != nil {
			return err
		}
		futures <- a.add(ctx, tessera.NewEntry(e))
		mu.Lock()
		done++
		if opts.Progress != nil {
			opts.Progress(done, len(p.Trials))
		}
		mu.Unlock()
		return nil
	}
	var only map[int]bool
	if opts.Only != nil {
		only = map[int]bool{}
		for _, i := range opts.Only {
			only[i] = true
		}
	}
	var queue []Trial
	for _, t := range p.Trials {
		switch {
		case only != nil && !only[t.Index]:
		case outcomes[t.Index] != nil:
		case started[t.Index]:
			r.pending = append(r.pending, r.interrupted(t))
			res.Interrupted++
		default:
			queue = append(queue, t)
		}
	}
	// Outcomes are logged in groups, each after one syncfs has made its
	// trials' files durable.
	results := make(chan *Outcome, 256)
	var commitErr error
	var commitWG sync.WaitGroup
	commitWG.Go(func() {
		batch := r.pending
		for {
			o, ok := <-results
			if ok {
				batch = append(batch, o)
			drain:
				for len(batch) < 256 {
					select {
					case o2, ok2 := <-results:
						if !ok2 {
							ok = false
							break drain
						}
						batch = append(batch, o2)
					default:
						break drain
					}
				}
			}
			if len(batch) > 0 && commitErr == nil {
				if err := syncFS(dir); err != nil {
					commitErr = err
				}
				for _, o := range batch {
					if commitErr == nil {
						commitErr = emit(o)
					}
				}
			}
			batch = nil
			if !ok {
				return
			}
		}
	})
	n := max(opts.Parallel, 1)
	work := make(chan Trial, 8*n)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			for t := range work {
				results <- r.trial(ctx, t)
			}
		})
	}
	var runErr error
	// Dispatch in groups: each group's started markers are made durable by
	// one syncfs before any of its trials is executed.
	for len(queue) > 0 && runErr == nil {
		group := queue[:min(len(queue), 8*n)]
		queue = queue[len(group):]
		var ready []Trial
		for _, t := range group {
			if o := r.start(t); o != nil {
				results <- o
				continue
			}
			ready = append(ready, t)
		}
		if err := syncFS(dir); err != nil {
			runErr = err
			break
		}
		for _, t := range ready {
			if ctx.Err() != nil {
				runErr = ctx.Err()
				break
			}
			work <- t
			res.Executed++
		}
	}
	close(work)
	wg.Wait()
	close(results)
	commitWG.Wait()
	close(futures)
	futWG.Wait()
	if res.Checkpoint, res.Complete, err = closeLog(ctx, a, cmp.Or(runErr, commitErr, futErr), dir, opts.Key, p, planFile); err != nil {
		return nil, err
	}
	return res, nil
}

// outcomesOf checks the log's first entry seals this plan and reads every
// outcome, each naming one assigned identity exactly once.
func outcomesOf(p *Plan, planFile []byte, st *LogState) (map[int]*Outcome, error) {
	if len(st.Entries) == 0 || string(st.Entries[0]) != string(PlanLeaf(planFile)) {
		return nil, refusal.New(ErrPlanInvalid, "the log's first entry does not seal this plan.json")
	}
	digest := PlanDigest(planFile)
	out := map[int]*Outcome{}
	for i, e := range st.Entries[1:] {
		o, err := ParseOutcome(e)
		if err != nil {
			return nil, err
		}
		if o.PlanSHA256 != digest || o.Trial < 0 || o.Trial >= len(p.Trials) || !o.matches(p.Trials[o.Trial]) {
			return nil, refusal.New(ErrIdentityMismatch, "log entry %d: outcome %s is not an identity this plan assigns", i+1, o.TrialID)
		}
		if o.Common != nil && !p.RecordsCommon(o.Arm) {
			return nil, refusal.New(ErrIdentityMismatch, "log entry %d: outcome %s carries a CommonOutcomeV1 object this plan does not record", i+1, o.TrialID)
		}
		if out[o.Trial] != nil {
			return nil, refusal.New(ErrIdentityMismatch, "log entry %d: a second outcome for %s", i+1, o.TrialID)
		}
		out[o.Trial] = o
	}
	return out, nil
}

type runner struct {
	plan       *Plan
	planDigest string
	dir        string
	opts       RunOptions
	app        *appender
	began      time.Time
	pending    []*Outcome
}

func (r *runner) outcome(t Trial) *Outcome {
	return &Outcome{Format: OutcomeFormat, PlanSHA256: r.planDigest, Trial: t.Index, TrialID: t.ID,
		Subject: t.Subject, Variant: t.Variant, Arm: t.Arm, Seed: t.Seed, Stage: "assigned", Files: []TrialFile{}}
}

func (r *runner) finish(o *Outcome) *Outcome {
	o.Status = OutcomeStatus(o.Arm, o.Stage, o.Vector, o.Common)
	return o
}

// interrupted records an identity that started and never ended: ERROR,
// its partial files kept and digested.
func (r *runner) interrupted(t Trial) *Outcome {
	o := r.outcome(t)
	o.Stage = "dispatched"
	o.Exclusion = ExclusionInterrupted
	o.Files = partialFiles(filepath.Join(r.dir, TrialsDir, t.ID))
	return r.finish(o)
}

func partialFiles(dir string) []TrialFile {
	out := []TrialFile{}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		out = append(out, TrialFile{Role: "partial", Name: e.Name(), SHA256: canon.SHA256Hex(b)})
	}
	return out
}

// noSync writes a file with safefs's checks but without its fsyncs: the
// group's syncfs makes it durable before anything refers to it.
var noSync = safefs.Ops{Fsync: func(int) error { return nil }}

// start authorizes t and writes its started marker (made durable with its
// group's), or returns the outcome of an identity that cannot start.
func (r *runner) start(t Trial) *Outcome {
	o := r.outcome(t)
	if w := r.plan.File.Bounds.Aggregate.WallSeconds; w > 0 && r.opts.Now != nil && r.opts.Now().Sub(r.began) > time.Duration(w)*time.Second {
		o.Exclusion = ExclusionBudget
		return r.finish(o)
	}
	o.Stage = "authorized"
	dir := filepath.Join(r.dir, TrialsDir, t.ID)
	marker := fmt.Sprintf("{\"plan_sha256\":%q,\"trial_id\":%q}\n", r.planDigest, t.ID)
	if err := os.Mkdir(dir, 0o700); err != nil {
		o.Exclusion = ExclusionInfrastructure
		return r.finish(o)
	}
	if err := safefs.WriteFileOps(filepath.Join(dir, StartedFile), []byte(marker), 0o644, noSync); err != nil {
		o.Exclusion = ExclusionInfrastructure
		o.Files = partialFiles(dir)
		return r.finish(o)
	}
	return nil
}

func (r *runner) trial(ctx context.Context, t Trial) *Outcome {
	o := r.outcome(t)
	dir := filepath.Join(r.dir, TrialsDir, t.ID)
	infra := func() *Outcome {
		o.Exclusion = ExclusionInfrastructure
		o.Files = partialFiles(dir)
		o.Vector, o.Common = nil, nil
		return r.finish(o)
	}
	o.Stage = "dispatched"
	ex, err := r.opts.Executor.Execute(ctx, t, dir)
	if err != nil {
		return infra()
	}
	if stageIndex(ex.Stage) < stageIndex("dispatched") || stageIndex(ex.Stage) > stageIndex("replay_valid") {
		return infra()
	}
	o.Stage, o.Exclusion = ex.Stage, ex.Exclusion
	if ex.ArtefactBytes != nil {
		if ex.Artefact == "" || safefs.WriteFileOps(filepath.Join(dir, ex.Artefact), ex.ArtefactBytes, 0o644, noSync) != nil {
			return infra()
		}
	}
	in := commitment.Inputs{Document: ex.Document}
	for _, f := range []struct{ role, name string }{{"artefact", ex.Artefact}, {"ledger", ex.Ledger}} {
		if f.name == "" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, f.name))
		if err != nil {
			return infra()
		}
		o.Files = append(o.Files, TrialFile{Role: f.role, Name: f.name, SHA256: canon.SHA256Hex(b)})
		if f.role == "artefact" {
			in.ArtefactName, in.Artefact = f.name, b
		} else {
			in.LedgerName, in.Ledger = f.name, b
		}
	}
	if ex.Stage == "replay_valid" && in.Artefact != nil && t.Arm != ArmFullLifecycle && ex.Common != nil && ex.Evaluation == nil && (in.Ledger != nil) == (t.SubjectKind == KindProfile) {
		// A No-Time record (and a model profile's execution ledger): no
		// contract-8 run commitment (its predicate derives contract-8
		// facts); the outcome's digests in the signed log cover them.
		o.Stage = "scored"
		o.Common = ex.Common
	}
	if ex.Stage == "replay_valid" && ex.Evaluation != nil && in.Artefact != nil && t.Arm == ArmFullLifecycle {
		b, err := r.opts.Commit(ctx, in)
		if err != nil {
			return infra()
		}
		if err := safefs.WriteFileOps(filepath.Join(dir, CommitmentFile), b, 0o644, noSync); err != nil {
			return infra()
		}
		o.Files = append(o.Files, TrialFile{Role: "commitment", Name: CommitmentFile, SHA256: canon.SHA256Hex(b)})
		o.Stage = "scored"
		o.Vector = VectorOf(ex.Evaluation)
		if r.plan.RecordsCommon(t.Arm) {
			o.Common = ex.Common
		}
	}
	slices.SortFunc(o.Files, func(a, b TrialFile) int { return strings.Compare(a.Role, b.Role) })
	return r.finish(o)
}

// ReadPlan reads and decodes dir's sealed plan; it returns the plan file's
// bytes (what the log's first entry seals) with the plan.
func ReadPlan(dir string) ([]byte, *Plan, error) {
	planFile, err := os.ReadFile(filepath.Join(dir, PlanFile))
	if err != nil {
		return nil, nil, err
	}
	p, err := DecodePlan(planFile)
	if err != nil {
		return nil, nil, err
	}
	return planFile, p, nil
}

// readPlan reads dir's sealed plan and holds it to the log key given.
func readPlan(dir string, key *ecdsa.PublicKey) ([]byte, *Plan, error) {
	planFile, p, err := ReadPlan(dir)
	if err != nil {
		return nil, nil, err
	}
	want, err := EncodeLogKey(key)
	if err != nil {
		return nil, nil, err
	}
	if want != p.LogKey {
		return nil, nil, refusal.New(ErrPlanInvalid, "the plan's log key is not the key given")
	}
	return planFile, p, nil
}

// reopen opens dir's log for appending, waits until nothing is in flight,
// and reads back the log and the outcomes it already holds. The caller
// cancels the appender it returns.
func reopen(ctx context.Context, dir string, signer note.Signer, key *ecdsa.PublicKey, p *Plan, planFile []byte) (*appender, *LogState, map[int]*Outcome, error) {
	a, err := openAppender(ctx, dir, signer)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := a.quiesce(ctx); err != nil {
		a.cancel()
		return nil, nil, nil, err
	}
	st, outcomes, err := logOutcomes(ctx, dir, key, p, planFile)
	if err != nil {
		a.cancel()
		return nil, nil, nil, err
	}
	return a, st, outcomes, nil
}

// readCampaign reads dir's plan and its log, the log verified under the
// plan's own log key.
func readCampaign(ctx context.Context, dir string) ([]byte, *Plan, *ecdsa.PublicKey, *LogState, error) {
	planFile, p, err := ReadPlan(dir)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	pub, err := p.PublicKey()
	if err != nil {
		return nil, nil, nil, nil, err
	}
	st, err := ReadLog(ctx, dir, pub, p.File.Origin)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	return planFile, p, pub, st, nil
}

// logOutcomes reads dir's log back and the outcomes it holds.
func logOutcomes(ctx context.Context, dir string, key *ecdsa.PublicKey, p *Plan, planFile []byte) (*LogState, map[int]*Outcome, error) {
	st, err := ReadLog(ctx, dir, key, p.File.Origin)
	if err != nil {
		return nil, nil, err
	}
	outcomes, err := outcomesOf(p, planFile, st)
	if err != nil {
		return nil, nil, err
	}
	return st, outcomes, nil
}

// closeLog ends a run or a merge: it closes the log's appender a and, when
// neither failed (failed is the run's first error, if any), writes the
// campaign's report once every assigned identity has its outcome in the
// log (report.json, unless it exists). It returns the final signed
// checkpoint and whether the campaign is complete.
func closeLog(ctx context.Context, a *appender, failed error, dir string, key *ecdsa.PublicKey, p *Plan, planFile []byte) ([]byte, bool, error) {
	cp, err := a.close(ctx)
	if err = cmp.Or(failed, err); err != nil {
		return nil, false, err
	}
	st, outcomes, err := logOutcomes(ctx, dir, key, p, planFile)
	if err != nil || len(outcomes) != len(p.Trials) {
		return cp, false, err
	}
	if _, err := os.Stat(filepath.Join(dir, ReportFile)); !errors.Is(err, os.ErrNotExist) {
		return cp, true, err
	}
	b, err := BuildReport(p, PlanDigest(planFile), outcomes, st.Checkpoint).Encode()
	if err != nil {
		return cp, true, err
	}
	return cp, true, safefs.WriteFile(filepath.Join(dir, ReportFile), b, 0o644)
}
