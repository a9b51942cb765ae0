package sigstore

// MaxBundleBytes bounds a bundle file; MaxTrustedRootBytes a trusted root.
const (
	MaxBundleBytes      = 4 << 20
	MaxTrustedRootBytes = 4 << 20
)

// Identity is the signer a keyless bundle must name. Both fields are matched
// exactly; neither may be empty.
type Identity struct {
	// Subject is the certificate's subject alternative name: an email
	// address or URI (cosign's --certificate-identity).
	Subject string
	// Issuer is the OIDC issuer recorded in the certificate's Fulcio
	// extension (cosign's --certificate-oidc-issuer).
	Issuer string
}
