package campaign

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/obaudit/obaudit/internal/safefs"
	"github.com/obaudit/obaudit/refusal"
	"github.com/transparency-dev/tessera"
	"github.com/transparency-dev/tessera/api/layout"
	"github.com/transparency-dev/tessera/client"
	"golang.org/x/mod/sumdb/note"
)

// StorageFile, inside a campaign directory, names the object store that
// holds the campaign's log when it is not beneath the directory: one line,
// the storage URL (never a credential). A directory without it keeps its
// log in LogDir (tessera's POSIX driver).
const StorageFile = "log-storage.url"

// LogStore is an object store that holds a campaign's log: tessera's GCP
// driver (GCS and Spanner) or its AWS driver (S3 and MySQL). The default
// binary links neither; cmd/obaudit opens one from the URL that
// StorageFile records, in a build with the driver's tag.
type LogStore interface {
	// URL is the store's URL as StorageFile records it.
	URL() string
	// Driver is the tessera driver the campaign's appender writes through.
	Driver(ctx context.Context) (tessera.Driver, error)
	// ReadCheckpoint, ReadTile and ReadEntryBundle read the published log
	// back (tlog-tiles paths beneath the store's prefix).
	ReadCheckpoint(ctx context.Context) ([]byte, error)
	ReadTile(ctx context.Context, level, index uint64, p uint8) ([]byte, error)
	ReadEntryBundle(ctx context.Context, index uint64, p uint8) ([]byte, error)
}

type storeKey struct{ dir string }

// WithLogStore returns ctx carrying s as the log store of the campaign
// directory dir (and of no other directory: a shard's own log stays beneath
// the shard's directory).
func WithLogStore(ctx context.Context, dir string, s LogStore) context.Context {
	return context.WithValue(ctx, storeKey{filepath.Clean(dir)}, s)
}

// StorageOf is the storage URL dir's StorageFile records, or "" for a log
// kept beneath the directory.
func StorageOf(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, StorageFile))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	u := strings.TrimSuffix(string(b), "\n")
	if u == "" || strings.ContainsAny(u, "\n\r") {
		return "", refusal.New(ErrLogStorage, "%s is not one storage URL", StorageFile)
	}
	return u, nil
}

// storeFor is the log store of dir: the one ctx carries for it, held to the
// URL the directory records (nil for a log beneath the directory).
func storeFor(ctx context.Context, dir string) (LogStore, error) {
	s, _ := ctx.Value(storeKey{filepath.Clean(dir)}).(LogStore)
	rec, err := StorageOf(dir)
	if err != nil {
		return nil, err
	}
	switch {
	case s == nil && rec == "":
		return nil, nil
	case s == nil:
		return nil, refusal.New(ErrLogStorage, "this campaign's log is kept in %s, which was not opened (a build with that driver opens it from %s)", rec, StorageFile)
	case rec != s.URL():
		return nil, refusal.New(ErrLogStorage, "the log store opened is %s, the campaign records %q", s.URL(), rec)
	}
	return s, nil
}

// recordStore writes dir's StorageFile when ctx carries a store for it.
func recordStore(ctx context.Context, dir string) error {
	s, _ := ctx.Value(storeKey{filepath.Clean(dir)}).(LogStore)
	if s == nil {
		return nil
	}
	return safefs.WriteFile(filepath.Join(dir, StorageFile), []byte(s.URL()+"\n"), 0o644)
}

// fetcher reads a published log back.
type fetcher interface {
	ReadCheckpoint(ctx context.Context) ([]byte, error)
	ReadTile(ctx context.Context, level, index uint64, p uint8) ([]byte, error)
	ReadEntryBundle(ctx context.Context, index uint64, p uint8) ([]byte, error)
}

// logFetcher reads dir's log: from its store, or beneath the directory.
func logFetcher(ctx context.Context, dir string) (fetcher, error) {
	s, err := storeFor(ctx, dir)
	if err != nil || s != nil {
		return s, err
	}
	return client.FileFetcher{Root: filepath.Join(dir, LogDir)}, nil
}

// openAppender opens the appender of dir's log: through its object store
// when the directory records one, else tessera's POSIX driver beneath it.
func openAppender(ctx context.Context, dir string, signer note.Signer) (*appender, error) {
	ctx, cancel := context.WithCancel(ctx)
	s, err := storeFor(ctx, dir)
	var driver tessera.Driver
	switch {
	case err != nil:
	case s != nil:
		driver, err = s.Driver(ctx)
		if err != nil {
			err = refusal.Wrap(ErrLogStorage, err, "%s", s.URL())
		}
	default:
		driver, err = posixDriver(ctx, dir)
	}
	if err != nil {
		cancel()
		return nil, err
	}
	// tessera's object-store drivers publish at most once a second.
	interval := 100 * time.Millisecond
	if s != nil {
		interval = time.Second
	}
	opts := tessera.NewAppendOptions().
		WithCheckpointSigner(signer).
		WithBatching(64, 10*time.Millisecond).
		WithCheckpointInterval(interval).
		WithCheckpointRepublishInterval(0)
	a, shutdown, reader, err := tessera.NewAppender(ctx, driver, opts)
	if err != nil {
		cancel()
		if s != nil {
			err = refusal.Wrap(ErrLogStorage, err, "%s", s.URL())
		}
		return nil, err
	}
	return &appender{add: a.Add, shutdown: shutdown, reader: reader, ctx: ctx, stop: cancel}, nil
}

// MaxLogObject bounds one object read back from a log store: a full tile or
// entry bundle of a campaign's entries is far below it.
const MaxLogObject = 64 << 20

// ObjectLog reads a published log back from an object store through get,
// which returns one object's bytes by its tlog-tiles path beneath the
// store's prefix (wrapping fs.ErrNotExist for a missing one). The object
// stores' LogStore implementations embed it.
type ObjectLog struct {
	Get func(ctx context.Context, name string) ([]byte, error)
}

// ReadCheckpoint reads the published checkpoint.
func (o ObjectLog) ReadCheckpoint(ctx context.Context) ([]byte, error) {
	return o.Get(ctx, layout.CheckpointPath)
}

// ReadTile reads one hash tile.
func (o ObjectLog) ReadTile(ctx context.Context, level, index uint64, p uint8) ([]byte, error) {
	return o.Get(ctx, layout.TilePath(level, index, p))
}

// ReadEntryBundle reads one entry bundle.
func (o ObjectLog) ReadEntryBundle(ctx context.Context, index uint64, p uint8) ([]byte, error) {
	return o.Get(ctx, layout.EntriesPath(index, p))
}

// ReadObject reads r whole, refusing more than MaxLogObject bytes.
func ReadObject(r io.Reader, where string) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxLogObject+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxLogObject {
		return nil, fmt.Errorf("%s is larger than %d bytes", where, MaxLogObject)
	}
	return b, nil
}
