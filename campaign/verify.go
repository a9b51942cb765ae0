package campaign

import (
	"bytes"
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/checkpoint"
	"github.com/obaudit/obaudit/commitment"
	"github.com/obaudit/obaudit/internal/workpool"
	"github.com/obaudit/obaudit/refusal"
)

// TrialChecker re-derives a scored trial from its files: on
// full_lifecycle the artefact validated and replayed, the ledger (when
// there is one) bundle-audited against it, returning the artefact's
// evaluation; on stateful_time_removed the No-Time record validated and
// replayed, returning a nil evaluation. Either way it returns the
// CommonOutcomeV1 object it re-grades (nil: no outcome card), and the
// full_lifecycle artefact as it read and validated it (nil: none), which
// the run commitment's check derives its facts from when it is of exactly
// artefactFile (commitment.Inputs.Document). cmd wires it with the
// registered packs.
type TrialChecker func(ctx context.Context, t Trial, artefactFile, ledgerFile []byte) (*artefact.Evaluation, *CommonOutcome, *artefact.Document, error)

// PairChecker is the independent matching proof of a scored
// stateful_time_removed trial against its scored full_lifecycle twin (the
// Full artefact and the No-Time record).
type PairChecker func(ctx context.Context, full, notime Trial, fullArtefact, notimeRecord []byte) error

// VerifyOptions configure [Verify].
type VerifyOptions struct {
	// Held is the checkpoint the verifier holds (nil: the directory's own
	// pre-dispatch copy, which proves nothing against a rewrite of the
	// whole directory and is reported as carried).
	Held []byte
	// Check re-derives each scored trial; Commitments verifies its run
	// commitment's signature (the plan's log key).
	Check       TrialChecker
	Commitments commitment.Verifier
	// Parallel is the number of trials checked at once (0 means 1).
	Parallel int
	// Pair proves each matched pair (nil: a plan with a treatment arm is
	// refused). Eligible re-derives the plan's ineligible cells (as
	// [Catalog].Eligible; nil: a plan that records any is refused).
	Pair     PairChecker
	Eligible func(variant, arm string) string
}

// Verification is what [Verify] established.
type Verification struct {
	PlanSHA256  string
	Log         checkpoint.Checkpoint
	Held        checkpoint.Checkpoint
	HeldCarried bool
	Assigned    int
	// Accounted identities have a verified outcome; Started ones a trial
	// directory but no outcome; NotStarted neither.
	Accounted, Started, NotStarted int
	// Checked counts scored trials re-derived; Carried lists files named by
	// unscored outcomes, digested but not vouched for.
	Checked int
	Carried []string
	Report  bool // report.json re-derived byte for byte
	// Matched counts treatment-arm trials proven against their Full twin;
	// Unmatched lists those with no scored twin to prove against (named,
	// not vouched for as matched).
	Matched   int
	Unmatched []string
	// Complete: every identity accounted for and the report verified.
	Complete bool
}

// Verify recomputes a campaign from its directory and a held checkpoint:
// the plan and its seal, the log's checkpoint signature and root, its
// consistency with the held checkpoint, every identity accounted for at
// most once, every scored trial's files (validated, replayed,
// bundle-audited, commitment signature and predicate), every outcome's
// digests and vector, and report.json. A campaign that is merely
// incomplete verifies with Complete false; anything that does not hold
// together is refused.
func Verify(ctx context.Context, dir string, opts VerifyOptions) (*Verification, error) {
	planFile, p, pub, st, err := readCampaign(ctx, dir)
	if err != nil {
		return nil, err
	}
	v := &Verification{PlanSHA256: PlanDigest(planFile), Log: st.Checkpoint, Assigned: len(p.Trials)}
	held := opts.Held
	if held == nil {
		v.HeldCarried = true
		if held, err = os.ReadFile(filepath.Join(dir, PreDispatchFile)); err != nil {
			return nil, err
		}
	}
	if v.Held, err = CheckConsistency(ctx, dir, st, held, pub); err != nil {
		return nil, err
	}
	if v.Held.Size < 1 {
		return nil, refusal.New(ErrCheckpointMismatch, "the held checkpoint is of an empty log: it commits to no plan")
	}
	outcomes, err := outcomesOf(p, planFile, st)
	if err != nil {
		return nil, err
	}
	if err := checkEligibility(p, opts); err != nil {
		return nil, err
	}
	v.Accounted = len(outcomes)
	for _, t := range p.Trials {
		if outcomes[t.Index] != nil {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, TrialsDir, t.ID)); err == nil {
			v.Started++
		} else {
			v.NotStarted++
		}
	}
	// Every trial directory belongs to an assigned identity.
	ents, err := os.ReadDir(filepath.Join(dir, TrialsDir))
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		if !slices.ContainsFunc(p.Trials, func(t Trial) bool { return t.ID == e.Name() }) {
			return nil, refusal.New(ErrIdentityMismatch, "trials/%s is not an identity this plan assigns", e.Name())
		}
	}
	if err := verifyTrials(ctx, dir, p, outcomes, opts, func(i int, carried []string) {
		if outcomes[i].Stage == "scored" {
			v.Checked++
		}
		v.Carried = append(v.Carried, carried...)
	}); err != nil {
		return nil, err
	}
	if err := verifyPairs(ctx, dir, p, outcomes, opts, v); err != nil {
		return nil, err
	}
	slices.Sort(v.Carried)
	rep, err := os.ReadFile(filepath.Join(dir, ReportFile))
	switch {
	case err == nil:
		want, err := BuildReport(p, v.PlanSHA256, outcomes, st.Checkpoint).Encode()
		if err != nil {
			return nil, err
		}
		if v.Accounted != v.Assigned || !bytes.Equal(rep, want) {
			return nil, refusal.New(ErrReportMismatch, "report.json is not the report the verified outcomes give")
		}
		v.Report = true
	case !os.IsNotExist(err):
		return nil, err
	}
	v.Complete = v.Accounted == v.Assigned && v.Report
	return v, nil
}

// verifyTrials checks every outcome against its trial's files
// (verifyTrial), opts.Parallel at a time, and returns the first
// disagreement in plan order. When every trial verifies, each is passed to
// verified (when not nil) with the files it carries, in plan order.
func verifyTrials(ctx context.Context, dir string, p *Plan, outcomes map[int]*Outcome, opts VerifyOptions, verified func(i int, carried []string)) error {
	idx := slices.Sorted(maps.Keys(outcomes))
	carried := make([][]string, len(idx))
	errs := make([]error, len(idx))
	workpool.ForEach(opts.Parallel, len(idx), func(k int) {
		carried[k], errs[k] = verifyTrial(ctx, dir, p, p.Trials[idx[k]], outcomes[idx[k]], opts)
	})
	for k, i := range idx {
		if errs[k] != nil {
			return errs[k]
		}
		if verified != nil {
			verified(i, carried[k])
		}
	}
	return nil
}

// verifyTrial checks one outcome against the trial's files.
func verifyTrial(ctx context.Context, dir string, p *Plan, t Trial, o *Outcome, opts VerifyOptions) ([]string, error) {
	tdir := filepath.Join(dir, TrialsDir, t.ID)
	files := map[string][]byte{}
	roles := map[string]string{}
	var carried []string
	for _, f := range o.Files {
		b, err := os.ReadFile(filepath.Join(tdir, f.Name))
		if err != nil || canon.SHA256Hex(b) != f.SHA256 || f.Name != filepath.Base(f.Name) {
			return nil, refusal.New(ErrOutcomeMismatch, "%s: %s %s is missing or not the file the outcome digests", t.ID, f.Role, f.Name)
		}
		if roles[f.Role] != "" && f.Role != "partial" {
			return nil, refusal.New(ErrOutcomeMismatch, "%s: two %s files", t.ID, f.Role)
		}
		files[f.Role], roles[f.Role] = b, f.Name
		if o.Stage != "scored" {
			carried = append(carried, t.ID+"/"+f.Name)
		}
	}
	if o.Stage != "scored" {
		return carried, nil
	}
	// A scored trial's directory holds exactly its files and the marker.
	ents, _ := os.ReadDir(tdir)
	for _, e := range ents {
		if e.Name() != StartedFile && !slices.ContainsFunc(o.Files, func(f TrialFile) bool { return f.Name == e.Name() }) {
			return nil, refusal.New(ErrOutcomeMismatch, "%s: %s is a file the outcome does not name", t.ID, e.Name())
		}
	}
	if t.Arm != ArmFullLifecycle {
		if files["artefact"] == nil || files["commitment"] != nil || (files["ledger"] != nil) != (t.SubjectKind == KindProfile) {
			return nil, refusal.New(ErrOutcomeMismatch, "%s: a scored %s outcome names exactly its record (and a model profile's ledger)", t.ID, t.Arm)
		}
		ev, c, _, err := opts.Check(ctx, t, files["artefact"], files["ledger"])
		if err != nil {
			return nil, refusal.Wrap(ErrOutcomeMismatch, err, "%s", t.ID)
		}
		if ev != nil || c == nil || !sameCommon(c, o.Common) {
			return nil, refusal.New(ErrOutcomeMismatch, "%s: the outcome's CommonOutcomeV1 is not the record's", t.ID)
		}
		return nil, nil
	}
	if files["artefact"] == nil || files["commitment"] == nil {
		return nil, refusal.New(ErrOutcomeMismatch, "%s: a scored outcome names no artefact or commitment", t.ID)
	}
	ev, c, doc, err := opts.Check(ctx, t, files["artefact"], files["ledger"])
	if err != nil {
		return nil, refusal.Wrap(ErrOutcomeMismatch, err, "%s", t.ID)
	}
	if !p.RecordsCommon(t.Arm) {
		c = nil
	}
	if !sameCommon(c, o.Common) {
		return nil, refusal.New(ErrOutcomeMismatch, "%s: the outcome's CommonOutcomeV1 is not the artefact's", t.ID)
	}
	in := commitment.Inputs{ArtefactName: roles["artefact"], Artefact: files["artefact"], LedgerName: roles["ledger"], Ledger: files["ledger"], Document: doc}
	if _, err := commitment.Verify(ctx, files["commitment"], in, opts.Commitments); err != nil {
		return nil, refusal.Wrap(ErrOutcomeMismatch, err, "%s: commitment", t.ID)
	}
	a, b := VectorOf(ev), o.Vector
	if a.Reliable != b.Reliable || a.LegitimateCompletion != b.LegitimateCompletion ||
		!slices.Equal(a.FailedDimensions, b.FailedDimensions) || !slices.Equal(a.FindingCodes, b.FindingCodes) {
		return nil, refusal.New(ErrOutcomeMismatch, "%s: the outcome's vector is not the artefact's", t.ID)
	}
	return nil, nil
}

// checkEligibility re-derives the plan's ineligible cells: exactly the
// variant × arm cells the arm's protocol refuses, each by the class the
// plan names.
func checkEligibility(p *Plan, opts VerifyOptions) error {
	if opts.Eligible == nil {
		if len(p.Ineligible) > 0 {
			return refusal.New(ErrPlanInvalid, "the plan records ineligible cells and no eligibility check was given")
		}
		return nil
	}
	if want := ineligibleCells(&p.File, opts.Eligible); !slices.Equal(want, p.Ineligible) {
		return refusal.New(ErrPlanInvalid, "the plan's ineligible cells %v are not the protocol's %v", p.Ineligible, want)
	}
	return nil
}

// verifyPairs runs the matching proof of every scored treatment-arm trial
// whose full_lifecycle twin is scored (opts.Parallel at once); one without
// such a twin is listed as unmatched. The first refusal in plan order wins.
func verifyPairs(ctx context.Context, dir string, p *Plan, outcomes map[int]*Outcome, opts VerifyOptions, v *Verification) error {
	v.Unmatched = []string{}
	var pending []twin
	for _, pr := range matchPairs(p) {
		on := outcomes[pr.notime.Index]
		if on == nil || on.Stage != "scored" {
			continue
		}
		if pr.full == nil || outcomes[pr.full.Index] == nil || outcomes[pr.full.Index].Stage != "scored" {
			v.Unmatched = append(v.Unmatched, pr.notime.ID)
			continue
		}
		pending = append(pending, pr)
	}
	if len(pending) > 0 && opts.Pair == nil {
		return refusal.New(ErrOutcomeMismatch, "%s: no matching proof was given for a treatment-arm trial", pending[0].notime.ID)
	}
	read := func(t Trial, o *Outcome) ([]byte, error) {
		for _, f := range o.Files {
			if f.Role == "artefact" {
				b, err := os.ReadFile(filepath.Join(dir, TrialsDir, t.ID, f.Name))
				// verifyTrial checked the file against its digest first.
				if err != nil || canon.SHA256Hex(b) != f.SHA256 {
					return nil, refusal.New(ErrOutcomeMismatch, "%s: %s changed during verification", t.ID, f.Name)
				}
				return b, nil
			}
		}
		return nil, refusal.New(ErrOutcomeMismatch, "%s: no artefact", t.ID)
	}
	errs := make([]error, len(pending))
	workpool.ForEach(opts.Parallel, len(pending), func(i int) {
		pr := pending[i]
		full := *pr.full
		fb, err := read(full, outcomes[full.Index])
		if err != nil {
			errs[i] = err
			return
		}
		nb, err := read(pr.notime, outcomes[pr.notime.Index])
		if err != nil {
			errs[i] = err
			return
		}
		if err := opts.Pair(ctx, full, pr.notime, fb, nb); err != nil {
			errs[i] = refusal.Wrap(ErrOutcomeMismatch, err, "%s against its twin %s", pr.notime.ID, full.ID)
		}
	})
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	v.Matched = len(pending)
	return nil
}
