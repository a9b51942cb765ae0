//go:build !unix

package campaign

import "errors"

// lockDir fails closed off unix (the campaign log is unix-only too).
func lockDir(dir string) (func(), error) {
	return nil, errors.New("campaign: merge needs a unix host")
}
