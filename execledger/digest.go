package execledger

import "github.com/obaudit/obaudit/canon"

// digester computes row digests: SHA-256 over the upstream canonical JSON of
// the row without its row_digest_sha256 key.
type digester struct {
	buf []byte
}

// rowDigest returns the digest of the parsed row m.
func (d *digester) rowDigest(m map[string]any) (string, error) {
	stated, had := m["row_digest_sha256"]
	delete(m, "row_digest_sha256")
	b, err := canon.Append(d.buf[:0], m, canon.UpstreamForm)
	if had {
		m["row_digest_sha256"] = stated
	}
	if err != nil {
		return "", err
	}
	d.buf = b
	return canon.SHA256Hex(b), nil
}
