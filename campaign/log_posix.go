//go:build unix

package campaign

import (
	"context"
	"path/filepath"
	"time"

	"github.com/transparency-dev/tessera"
	"github.com/transparency-dev/tessera/storage/posix"
	"golang.org/x/mod/sumdb/note"
)

func openAppender(ctx context.Context, dir string, signer note.Signer) (*appender, error) {
	ctx, cancel := context.WithCancel(ctx)
	driver, err := posix.New(ctx, posix.Config{Path: filepath.Join(dir, LogDir)})
	if err != nil {
		cancel()
		return nil, err
	}
	opts := tessera.NewAppendOptions().
		WithCheckpointSigner(signer).
		WithBatching(64, 10*time.Millisecond).
		WithCheckpointInterval(100 * time.Millisecond).
		WithCheckpointRepublishInterval(0)
	a, shutdown, reader, err := tessera.NewAppender(ctx, driver, opts)
	if err != nil {
		cancel()
		return nil, err
	}
	return &appender{add: a.Add, shutdown: shutdown, reader: reader,
		awaiter: tessera.NewPublicationAwaiter(ctx, reader.ReadCheckpoint, 10*time.Millisecond), cancel: cancel}, nil
}
