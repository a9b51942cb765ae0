//go:build !unix

package campaign

import (
	"context"
	"errors"

	"github.com/transparency-dev/tessera"
)

// posixDriver fails closed: tessera's POSIX storage needs a unix host.
func posixDriver(ctx context.Context, dir string) (tessera.Driver, error) {
	return nil, errors.New("campaign: the campaign log (tessera POSIX storage) needs a unix host")
}
