//go:build unix

package campaign

import (
	"context"
	"path/filepath"

	"github.com/transparency-dev/tessera"
	"github.com/transparency-dev/tessera/storage/posix"
)

// posixDriver is tessera's POSIX driver over dir's log.
func posixDriver(ctx context.Context, dir string) (tessera.Driver, error) {
	return posix.New(ctx, posix.Config{Path: filepath.Join(dir, LogDir)})
}
