package vectors

import "github.com/obaudit/obaudit/canon"

func plainDigest(v any) string {
	d, err := canon.UpstreamDigest(v)
	if err != nil {
		panic(err)
	}
	return d
}
