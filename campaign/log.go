package campaign

import (
	"bytes"
	"cmp"
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"time"

	"github.com/obaudit/obaudit/checkpoint"
	"github.com/obaudit/obaudit/refusal"
	"github.com/transparency-dev/merkle/compact"
	"github.com/transparency-dev/merkle/proof"
	"github.com/transparency-dev/merkle/rfc6962"
	"github.com/transparency-dev/tessera"
	"github.com/transparency-dev/tessera/api"
	"github.com/transparency-dev/tessera/api/layout"
	"github.com/transparency-dev/tessera/client"
)

// LogDir is the campaign log beneath a campaign directory: a C2SP
// tlog-tiles tree written by tessera's POSIX driver (checkpoint, tile/…),
// unless the directory's StorageFile names an object store.
const LogDir = "log"

// Leaf tags: entry 0 seals the plan; every other entry is one outcome.
const (
	PlanLeafTag    = "obaudit-campaign/v1 plan\n"
	OutcomeLeafTag = "obaudit-campaign/v1 outcome\n"
)

// PlanLeaf is the log's first entry for a plan file.
func PlanLeaf(planFile []byte) []byte {
	return []byte(PlanLeafTag + PlanDigest(planFile) + "\n")
}

// appender is a tessera appender over the campaign's log.
type appender struct {
	add      tessera.AddFn
	shutdown func(context.Context) error
	reader   tessera.LogReader
	ctx      context.Context // the appender's own; stop cancels it
	stop     context.CancelFunc
	closed   bool
}

// addAll adds entries to the log and waits until each is sequenced, in
// order from index first. On a failure it closes the appender and returns
// the error (outOfOrder for an entry sequenced elsewhere).
func (a *appender) addAll(ctx context.Context, entries [][]byte, first uint64, outOfOrder error) error {
	futures := make([]tessera.IndexFuture, len(entries))
	for i, e := range entries {
		futures[i] = a.add(ctx, tessera.NewEntry(e))
	}
	for i, f := range futures {
		idx, err := f()
		if err == nil && idx.Index != first+uint64(i) {
			err = outOfOrder
		}
		if err != nil {
			a.close(ctx)
			return err
		}
	}
	return nil
}

// close publishes a checkpoint committing to every entry added and
// returns it.
func (a *appender) close(ctx context.Context) ([]byte, error) {
	a.closed = true
	defer a.stop()
	if err := a.shutdown(ctx); err != nil {
		return nil, err
	}
	return a.reader.ReadCheckpoint(ctx)
}

// cancel releases an appender that is not closed (a refusal, an error):
// tessera's driver is first let finish what it is integrating, so no
// write of its lands after the caller returns (a process exiting then
// would leave a temporary file in the log), unless the run was already
// cancelled, when its goroutines are stopping anyway.
func (a *appender) cancel() {
	if !a.closed && a.ctx.Err() == nil {
		a.closed = true
		sctx, done := context.WithTimeout(context.WithoutCancel(a.ctx), 5*time.Second)
		a.shutdown(sctx)
		done()
	}
	a.stop()
}

// quiesce waits until a published checkpoint covers every entry the log
// has sequenced (entries a killed run sequenced are integrated by the
// appender that reopens the log).
func (a *appender) quiesce(ctx context.Context) error {
	for {
		next, err := a.reader.NextIndex(ctx)
		if err != nil {
			return err
		}
		cp, err := a.reader.ReadCheckpoint(ctx)
		if err == nil {
			if size, ok := checkpointSize(cp); ok && size >= next {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func checkpointSize(signed []byte) (uint64, bool) {
	lines := bytes.SplitN(signed, []byte("\n"), 3)
	if len(lines) < 3 {
		return 0, false
	}
	var n uint64
	_, err := fmt.Sscanf(string(lines[1]), "%d", &n)
	return n, err == nil
}

// LogState is the campaign log as a reader verified it.
type LogState struct {
	Checkpoint checkpoint.Checkpoint
	Signed     []byte   // the checkpoint note, verbatim
	Entries    [][]byte // every entry the checkpoint covers, in order
}

// ReadLog reads the campaign log beneath dir: its checkpoint, verified
// under pub and origin; every entry the checkpoint covers, fetched from the
// entry bundles; and the root recomputed from those entries (RFC 6962),
// which must be the checkpoint's root.
func ReadLog(ctx context.Context, dir string, pub *ecdsa.PublicKey, origin string) (*LogState, error) {
	ff, err := logFetcher(ctx, dir)
	if err != nil {
		return nil, err
	}
	signed, err := ff.ReadCheckpoint(ctx)
	if err != nil {
		return nil, refusal.Because(ErrLogInvalid, err, "log/checkpoint is missing or unreadable: this is not a complete campaign directory")
	}
	cp, err := checkpoint.OpenCheckpoint(signed, pub, origin)
	if err != nil {
		return nil, err
	}
	if cp.Size > MaxTrials+1 {
		return nil, refusal.New(ErrLogInvalid, "checkpoint size %d is beyond any plan", cp.Size)
	}
	st := &LogState{Checkpoint: cp, Signed: signed}
	for i := uint64(0); i*uint64(layout.EntryBundleWidth) < cp.Size; i++ {
		p := layout.PartialTileSize(0, i, cp.Size)
		raw, err := ff.ReadEntryBundle(ctx, i, p)
		if err != nil {
			return nil, refusal.Because(ErrLogInvalid, err, "entry bundle %d is missing or shorter than the checkpoint says: the log's files were changed, cut short or copied incompletely; restore the campaign directory from a complete copy", i)
		}
		var eb api.EntryBundle
		if err := eb.UnmarshalText(raw); err != nil {
			return nil, refusal.Because(ErrLogInvalid, err, "entry bundle %d is not a C2SP tlog-tiles entry bundle: the log's files were changed, cut short or copied incompletely; restore the campaign directory from a complete copy", i)
		}
		if want := cmp.Or(uint64(p), uint64(layout.EntryBundleWidth)); uint64(len(eb.Entries)) != want {
			return nil, refusal.New(ErrLogInvalid, "entry bundle %d holds %d entries, want %d", i, len(eb.Entries), want)
		}
		st.Entries = append(st.Entries, eb.Entries...)
	}
	root, err := rootOf(st.Entries)
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(root, cp.Root) {
		return nil, refusal.New(ErrLogInvalid, "the %d entries hash to root %x, the checkpoint says %x", cp.Size, root, cp.Root)
	}
	return st, nil
}

// rootOf is the RFC 6962 root over entries (the empty tree's root for none).
func rootOf(entries [][]byte) ([]byte, error) {
	rf := compact.RangeFactory{Hash: rfc6962.DefaultHasher.HashChildren}
	r := rf.NewEmptyRange(0)
	for _, e := range entries {
		if err := r.Append(rfc6962.DefaultHasher.HashLeaf(e), nil); err != nil {
			return nil, err
		}
	}
	if len(entries) == 0 {
		return rfc6962.DefaultHasher.EmptyRoot(), nil
	}
	return r.GetRootHash(nil)
}

// CheckConsistency checks that held (a checkpoint the verifier kept, for
// example the pre-dispatch one) is a prefix of the log: signed by the same
// key under the same origin, no larger, and proven consistent with the
// log's checkpoint by a consistency proof built from the log's tiles; the
// entries' own recomputed prefix root must agree too.
func CheckConsistency(ctx context.Context, dir string, st *LogState, held []byte, pub *ecdsa.PublicKey) (checkpoint.Checkpoint, error) {
	h, err := checkpoint.OpenCheckpoint(held, pub, st.Checkpoint.Origin)
	if err != nil {
		return h, refusal.Wrap(ErrCheckpointMismatch, err, "the held checkpoint")
	}
	if h.Size > st.Checkpoint.Size {
		return h, refusal.New(ErrCheckpointMismatch, "the held checkpoint has size %d, the log only %d (entries dropped)", h.Size, st.Checkpoint.Size)
	}
	prefix, err := rootOf(st.Entries[:h.Size])
	if err != nil {
		return h, err
	}
	if !bytes.Equal(prefix, h.Root) {
		return h, refusal.New(ErrCheckpointMismatch, "the log's first %d entries hash to %x, the held checkpoint says %x (entries replaced)", h.Size, prefix, h.Root)
	}
	if h.Size == 0 || h.Size == st.Checkpoint.Size {
		return h, nil
	}
	ff, err := logFetcher(ctx, dir)
	if err != nil {
		return h, err
	}
	pb, err := client.NewProofBuilder(ctx, st.Checkpoint.Size, ff.ReadTile)
	if err != nil {
		return h, refusal.Because(ErrLogInvalid, err, "the log's hash tiles do not read: the log's files were changed, cut short or copied incompletely; restore the campaign directory from a complete copy")
	}
	cons, err := pb.ConsistencyProof(ctx, h.Size, st.Checkpoint.Size)
	if err != nil {
		return h, refusal.Because(ErrLogInvalid, err, "no consistency proof %d → %d from the log's hash tiles (a tile missing or damaged): the log's files were changed, cut short or copied incompletely; restore the campaign directory from a complete copy", h.Size, st.Checkpoint.Size)
	}
	if err := proof.VerifyConsistency(rfc6962.DefaultHasher, h.Size, st.Checkpoint.Size, cons, h.Root, st.Checkpoint.Root); err != nil {
		return h, refusal.Wrap(ErrCheckpointMismatch, err, "consistency proof %d → %d", h.Size, st.Checkpoint.Size)
	}
	return h, nil
}

var errNoCheckpoint = errors.New("campaign: the log published no checkpoint")
