//go:build !unix

package campaign

import (
	"context"
	"errors"

	"golang.org/x/mod/sumdb/note"
)

// openAppender fails closed: tessera's POSIX storage needs a unix host.
func openAppender(ctx context.Context, dir string, signer note.Signer) (*appender, error) {
	return nil, errors.New("campaign: the campaign log (tessera POSIX storage) needs a unix host")
}
