package campaign

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/obaudit/obaudit/commitment"
	"github.com/obaudit/obaudit/internal/safefs"
	"github.com/obaudit/obaudit/refusal"
	"golang.org/x/mod/sumdb/note"
)

// Refusal classes of shards and their merge.
var (
	// ErrShardMissing is returned by [Merge] when a shard of the partition
	// is not among those given (or none is): a merge never completes a
	// campaign with a shard's identities silently absent.
	ErrShardMissing = refusal.Sentinel("campaign/shard-missing")
	// ErrShardDuplicate is returned by [Merge] when one shard is given
	// twice, an identity ends in a shard the partition does not give it
	// (so two shards could end it), or the campaign already holds another
	// outcome or other files for an identity a shard ended.
	ErrShardDuplicate = refusal.Sentinel("campaign/shard-duplicate")
	// ErrShardForeign is returned by [RunShard] and [Merge] when a shard
	// directory holds another plan than the campaign's (its plan.json
	// bytes or its manifest's plan digest differ).
	ErrShardForeign = refusal.Sentinel("campaign/shard-foreign")
	// ErrShardInvalid is returned by [RunShard] and [Merge] when a shard's
	// shard.json is missing, not a canonical obaudit-campaign-shard/v1
	// manifest, of another partition size than the other shards', or lists
	// trials other than the partition gives its shard; or when a shard's
	// trial directory holds anything but regular files.
	ErrShardInvalid = refusal.Sentinel("campaign/shard-invalid")
)

// MergeStagingDir is where [Merge] assembles trial directories before
// renaming each into trials/ (removed when it is done).
const MergeStagingDir = "merge-staging"

// MergeOptions configure [Merge].
type MergeOptions struct {
	// Signer signs the campaign log's checkpoints; Key is the plan's key.
	Signer note.Signer
	Key    *ecdsa.PublicKey
	// Check and Commitments re-derive each scored trial of a shard, as
	// [Verify] does.
	Check       TrialChecker
	Commitments commitment.Verifier
	// Parallel is the number of trials checked at once (0 means 1).
	Parallel int
}

// MergeResult summarises a merge.
type MergeResult struct {
	Shards int
	// Appended outcomes are new in the campaign log; AlreadyMerged ones
	// were there, byte for byte (a merge run again); Interrupted counts the
	// appended outcomes that record a shard's started, never ended identity
	// ERROR (interrupted); NotStarted the shards' identities that never
	// started, left without an outcome.
	Appended, AlreadyMerged, Interrupted, NotStarted int
	Checkpoint                                       []byte
	// Complete: every assigned identity has its outcome (report.json
	// written).
	Complete bool
}

// Merge combines the shards' directories (nil: every directory beneath
// dir/shards) into the campaign directory dir. It checks everything before
// it writes anything: every shard holds the campaign's plan.json and a
// manifest of the same N-way partition, no shard is given twice and none
// is missing, each shard's log verifies under the plan's key, every
// outcome and trial directory is of an identity the partition gives that
// shard, and every scored outcome agrees with its own files (artefact
// validated and replayed, ledger bundle-audited, commitment verified, as
// [Verify] checks). A shard identity that started and never ended (a shard
// killed mid-run) is recorded ERROR (interrupted) with its partial files;
// one that never started stays without an outcome (verify counts it; run
// --continue on the campaign, or on the shard and a new merge, finishes
// it). Then each trial directory is copied whole into trials/ (staged,
// made durable, renamed) and the outcomes are appended to the campaign log
// in plan order.
//
// Merge holds an exclusive flock(2) on dir while it runs (a second merge
// at once fails). Merge is idempotent: an outcome already in the log byte for byte, over
// the same files, is not appended again; another one is refused. A merge
// interrupted between its steps is finished by running it again.
func Merge(ctx context.Context, dir string, shardDirs []string, opts MergeOptions) (*MergeResult, error) {
	planFile, p, err := readPlan(dir, opts.Key)
	if err != nil {
		return nil, err
	}
	if shardDirs == nil {
		ents, err := os.ReadDir(filepath.Join(dir, ShardsDir))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		for _, e := range ents {
			if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
				shardDirs = append(shardDirs, filepath.Join(dir, ShardsDir, e.Name()))
			}
		}
	}
	if len(shardDirs) == 0 {
		return nil, refusal.New(ErrShardMissing, "no shard directory given or beneath %s", filepath.Join(dir, ShardsDir))
	}
	digest := PlanDigest(planFile)
	// One merge at a time: two would append the same outcomes twice.
	unlock, err := lockDir(dir)
	if err != nil {
		return nil, err
	}
	defer unlock()
	a, st, have, err := reopen(ctx, dir, opts.Signer, opts.Key, p, planFile)
	if err != nil {
		return nil, err
	}
	defer a.cancel()

	// Check every shard.
	type incoming struct {
		o     *Outcome
		entry []byte
		src   string // the shard's trial directory
	}
	next := map[int]*incoming{}
	byK := map[int]string{}
	n := -1
	var part [][]int
	res := &MergeResult{Shards: len(shardDirs)}
	for _, sd := range shardDirs {
		pb, err := os.ReadFile(filepath.Join(sd, PlanFile))
		if err != nil {
			return nil, refusal.Wrap(ErrShardInvalid, err, "%s: no plan.json", sd)
		}
		if !bytes.Equal(pb, planFile) {
			return nil, refusal.New(ErrShardForeign, "%s holds another plan than %s", sd, dir)
		}
		mb, err := os.ReadFile(filepath.Join(sd, ShardManifestFile))
		if err != nil {
			return nil, refusal.Wrap(ErrShardInvalid, err, "%s: no shard.json", sd)
		}
		m, err := DecodeManifest(mb)
		if err != nil {
			return nil, err
		}
		if m.PlanSHA256 != digest {
			return nil, refusal.New(ErrShardForeign, "%s: shard.json names plan %s, the campaign's is %s", sd, m.PlanSHA256, digest)
		}
		if n < 0 {
			n, part = m.Shards, Partition(p, m.Shards)
		} else if m.Shards != n {
			return nil, refusal.New(ErrShardInvalid, "%s is a shard of %d, the others of %d", sd, m.Shards, n)
		}
		if prev, dup := byK[m.Shard]; dup {
			return nil, refusal.New(ErrShardDuplicate, "shard %d/%d given twice (%s and %s)", m.Shard, n, prev, sd)
		}
		byK[m.Shard] = sd
		mine := part[m.Shard]
		if !slices.Equal(mine, m.Trials) {
			return nil, refusal.New(ErrShardInvalid, "%s: shard.json lists trials the %d-way partition does not give shard %d", sd, n, m.Shard)
		}
		inPart := make(map[int]bool, len(mine))
		for _, i := range mine {
			inPart[i] = true
		}
		_, so, err := logOutcomes(ctx, sd, opts.Key, p, planFile)
		if err != nil {
			return nil, err
		}
		for i := range so {
			if !inPart[i] {
				return nil, refusal.New(ErrShardDuplicate, "%s: an outcome for %s, an identity of another shard", sd, p.Trials[i].ID)
			}
		}
		started := map[int]bool{}
		ents, err := os.ReadDir(filepath.Join(sd, TrialsDir))
		if err != nil {
			return nil, refusal.Wrap(ErrShardInvalid, err, "%s: no trials directory", sd)
		}
		for _, e := range ents {
			i, ok := p.trialOf(e.Name())
			if !ok {
				return nil, refusal.New(ErrIdentityMismatch, "%s: trials/%s is not an identity this plan assigns", sd, e.Name())
			}
			if !inPart[i] {
				return nil, refusal.New(ErrShardDuplicate, "%s: trials/%s is an identity of another shard", sd, e.Name())
			}
			if err := plainTrialDir(filepath.Join(sd, TrialsDir, e.Name())); err != nil {
				return nil, err
			}
			started[i] = true
		}
		// Every outcome agrees with the shard's own files, as [Verify]
		// checks; the first disagreement in plan order is returned.
		vo := VerifyOptions{Check: opts.Check, Commitments: opts.Commitments, Parallel: opts.Parallel}
		if err := verifyTrials(ctx, sd, p, so, vo, nil); err != nil {
			return nil, err
		}
		r := &runner{plan: p, planDigest: digest, dir: sd}
		for _, i := range mine {
			t := p.Trials[i]
			o := so[i]
			switch {
			case o != nil:
			case started[i]:
				o = r.interrupted(t)
				res.Interrupted++
			default:
				res.NotStarted++
				continue
			}
			e, err := o.Entry()
			if err != nil {
				return nil, err
			}
			next[i] = &incoming{o: o, entry: e, src: filepath.Join(sd, TrialsDir, t.ID)}
		}
	}
	for k := range n {
		if byK[k] == "" {
			return nil, refusal.New(ErrShardMissing, "shard %d/%d is not given", k, n)
		}
	}

	// Check against the campaign as it stands.
	var entries [][]byte // the outcomes to append, in plan order
	var copyIdx []int
	for _, i := range slices.Sorted(maps.Keys(next)) {
		in, t := next[i], p.Trials[i]
		if h := have[i]; h != nil {
			he, err := h.Entry()
			if err != nil {
				return nil, err
			}
			if !bytes.Equal(he, in.entry) {
				return nil, refusal.New(ErrShardDuplicate, "the campaign already holds another outcome for %s", t.ID)
			}
			res.AlreadyMerged++
		} else {
			entries = append(entries, in.entry)
		}
		dst := filepath.Join(dir, TrialsDir, t.ID)
		switch _, err := os.Lstat(dst); {
		case errors.Is(err, os.ErrNotExist):
			copyIdx = append(copyIdx, i)
		case err != nil:
			return nil, err
		default:
			same, err := sameFiles(in.src, dst)
			if err != nil {
				return nil, err
			}
			if !same {
				return nil, refusal.New(ErrShardDuplicate, "the campaign's trials/%s holds other files than the shard's", t.ID)
			}
		}
	}
	// Write: trial directories first, whole, durable; then the outcomes.
	if len(copyIdx) > 0 {
		staging := filepath.Join(dir, MergeStagingDir)
		if err := os.RemoveAll(staging); err != nil {
			return nil, err
		}
		if err := os.Mkdir(staging, 0o700); err != nil {
			return nil, err
		}
		for _, i := range copyIdx {
			if err := copyTrial(next[i].src, filepath.Join(staging, p.Trials[i].ID)); err != nil {
				return nil, err
			}
		}
		if err := syncFS(dir); err != nil {
			return nil, err
		}
		for _, i := range copyIdx {
			id := p.Trials[i].ID
			if err := os.Rename(filepath.Join(staging, id), filepath.Join(dir, TrialsDir, id)); err != nil {
				return nil, err
			}
		}
		if err := syncFS(dir); err != nil {
			return nil, err
		}
		if err := os.Remove(staging); err != nil {
			return nil, err
		}
	}
	if err := a.addAll(ctx, entries, uint64(len(st.Entries)), errors.New("campaign: the log sequenced a merged outcome out of plan order")); err != nil {
		return nil, err
	}
	res.Appended = len(entries)
	if res.Checkpoint, res.Complete, err = closeLog(ctx, a, nil, dir, opts.Key, p, planFile); err != nil {
		return nil, err
	}
	return res, nil
}

// plainTrialDir refuses a shard's trial directory that is not a directory
// of regular files only (a symlink or subdirectory would be read by the
// checks but not copied).
func plainTrialDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return refusal.New(ErrShardInvalid, "%s is not a directory", dir)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if !e.Type().IsRegular() {
			return refusal.New(ErrShardInvalid, "%s/%s is not a regular file", dir, e.Name())
		}
	}
	return nil
}

// regularFiles lists a trial directory's regular files, sorted.
func regularFiles(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if e.Type().IsRegular() {
			out = append(out, e.Name())
		}
	}
	return out, nil
}

// copyTrial copies a trial directory's regular files into the new
// directory dst (made durable by the caller's syncfs).
func copyTrial(src, dst string) error {
	names, err := regularFiles(src)
	if err != nil {
		return err
	}
	if err := os.Mkdir(dst, 0o700); err != nil {
		return err
	}
	for _, name := range names {
		b, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			return err
		}
		if err := safefs.WriteFileOps(filepath.Join(dst, name), b, 0o644, noSync); err != nil {
			return err
		}
	}
	return nil
}

// sameFiles reports whether two trial directories hold the same regular
// files, byte for byte.
func sameFiles(a, b string) (bool, error) {
	na, err := regularFiles(a)
	if err != nil {
		return false, err
	}
	nb, err := regularFiles(b)
	if err != nil {
		return false, err
	}
	if !slices.Equal(na, nb) {
		return false, nil
	}
	for _, name := range na {
		x, err := os.ReadFile(filepath.Join(a, name))
		if err != nil {
			return false, err
		}
		y, err := os.ReadFile(filepath.Join(b, name))
		if err != nil {
			return false, err
		}
		if !bytes.Equal(x, y) {
			return false, nil
		}
	}
	return true, nil
}
