//go:build !unix

package campaign

import "errors"

// syncFS fails closed where syncfs(2) does not exist: a campaign's outcome
// is logged only after its files are durable.
func syncFS(dir string) error {
	return errors.New("campaign: grouped durability (syncfs) is unix-only")
}
