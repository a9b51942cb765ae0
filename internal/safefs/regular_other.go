//go:build !unix

package safefs

import "os"

func openNonBlocking(path string) (*os.File, error) { return os.Open(path) }

func clearNonBlocking(*os.File) error { return nil }
