package sigverify

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/x509"
	"encoding/asn1"
	"encoding/base64"
	"errors"
	"strings"
	"time"

	"github.com/obaudit/obaudit/artefact/sigstore"
	"github.com/obaudit/obaudit/refusal"
	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/verify"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
	"github.com/sigstore/sigstore/pkg/signature"
)

// Verifier checks Sigstore bundles offline, either against one pinned
// public key or, keyless, against a trusted root and an expected identity.
type Verifier struct {
	trusted  root.TrustedMaterial
	keyless  bool
	identity verify.CertificateIdentity
	sv       *verify.Verifier
}

// NewKeyVerifier returns a verifier that accepts only bundles signed by pub.
// The bundle's key hint is not consulted.
func NewKeyVerifier(pub *ecdsa.PublicKey) (*Verifier, error) {
	if pub == nil {
		return nil, errors.New("sigstore: NewKeyVerifier needs a key")
	}
	sv, err := signature.LoadVerifier(pub, crypto.SHA256)
	if err != nil {
		return nil, refusal.Because(sigstore.ErrKeyUnsupported, err, "public key: not a key Sigstore verification accepts (want ECDSA P-256, as obaudit keygen writes)")
	}
	tm := root.NewTrustedPublicKeyMaterial(func(string) (root.TimeConstrainedVerifier, error) {
		return root.NewExpiringKey(sv, time.Time{}, time.Time{}), nil
	})
	v, err := verify.NewVerifier(tm, verify.WithNoObserverTimestamps())
	if err != nil {
		return nil, err
	}
	return &Verifier{trusted: tm, sv: v}, nil
}

// NewKeylessVerifier returns a verifier for certificate-signed bundles: the
// certificate must chain to a Fulcio authority in trustedRootJSON (a
// Sigstore trusted root, media type
// application/vnd.dev.sigstore.trustedroot+json;version=0.1), the bundle
// must carry a transparency-log entry from a log in the root and an observer
// timestamp, and the certificate must name id. A root that does not parse
// is refused as [sigstore.ErrTrustedRootInvalid].
func NewKeylessVerifier(trustedRootJSON []byte, id sigstore.Identity) (*Verifier, error) {
	if len(trustedRootJSON) > sigstore.MaxTrustedRootBytes {
		return nil, refusal.New(sigstore.ErrTrustedRootInvalid, "trusted root: %d bytes is more than %d", len(trustedRootJSON), sigstore.MaxTrustedRootBytes)
	}
	tr, err := root.NewTrustedRootFromJSON(trustedRootJSON)
	if err != nil {
		return nil, refusal.Because(sigstore.ErrTrustedRootInvalid, err, "trusted root: not a complete Sigstore trusted root (trusted_root.json, media type application/vnd.dev.sigstore.trustedroot+json;version=0.1, as the Sigstore instance that signed publishes it); fetch it again")
	}
	return newKeylessVerifier(tr, id)
}

func newKeylessVerifier(tm root.TrustedMaterial, id sigstore.Identity) (*Verifier, error) {
	if id.Subject == "" || id.Issuer == "" {
		return nil, errors.New("sigstore: keyless verification needs both a certificate identity and an OIDC issuer")
	}
	cid, err := verify.NewShortCertificateIdentity(id.Issuer, "", id.Subject, "")
	if err != nil {
		return nil, err
	}
	v, err := verify.NewVerifier(tm, verify.WithTransparencyLog(1), verify.WithObserverTimestamps(1))
	if err != nil {
		return nil, err
	}
	return &Verifier{trusted: tm, keyless: true, identity: cid, sv: v}, nil
}

// VerifyStatement verifies a Sigstore bundle (JSON) and returns the exact
// bytes of the in-toto Statement its DSSE envelope signs. The caller must
// still check the Statement's subjects against the files it names: this
// method checks who signed, not what.
func (v *Verifier) VerifyStatement(ctx context.Context, bundleJSON []byte) ([]byte, error) {
	if len(bundleJSON) > sigstore.MaxBundleBytes {
		return nil, refusal.New(sigstore.ErrMalformedBundle, "%d bytes is more than %d", len(bundleJSON), sigstore.MaxBundleBytes)
	}
	var b bundle.Bundle
	if err := b.UnmarshalJSON(bundleJSON); err != nil {
		return nil, refusal.Because(sigstore.ErrMalformedBundle, err, "not a complete Sigstore bundle v0.3 (cut short or edited?); get it again from whoever signed (obaudit sign or cosign attest-blob --bundle write it)")
	}
	return v.verifyEntity(&b)
}

// verifyEntity is VerifyStatement for any signed entity (tests pass
// sigstore-go's in-process VirtualSigstore entities directly).
func (v *Verifier) verifyEntity(entity verify.SignedEntity) ([]byte, error) {
	payload, err := envelopePayload(entity)
	if err != nil {
		return nil, err
	}
	vc, err := entity.VerificationContent()
	if err != nil {
		return nil, refusal.Because(sigstore.ErrMalformedBundle, err, "the bundle's verification material (its certificate or key hint) does not decode: the bundle is damaged; get it again from whoever signed")
	}
	var policy verify.PolicyBuilder
	if v.keyless {
		if vc.Certificate() == nil {
			return nil, refusal.New(sigstore.ErrCertificateInvalid, "the bundle carries no certificate (it is key-signed; verify it with --key)")
		}
		policy = verify.NewPolicy(verify.WithoutArtifactUnsafe(), verify.WithCertificateIdentity(v.identity))
	} else {
		if vc.PublicKey() == nil {
			return nil, refusal.New(sigstore.ErrSignatureInvalid, "the bundle carries a certificate, not a key hint (verify it keyless)")
		}
		policy = verify.NewPolicy(verify.WithoutArtifactUnsafe(), verify.WithKey())
	}
	// WithoutArtifactUnsafe: the artefact binding is the caller's, through
	// the Statement's subjects, which this signature covers.
	if _, err := v.sv.Verify(entity, policy); err != nil {
		return nil, v.diagnose(entity, vc, err)
	}
	return payload, nil
}

// envelopePayload returns the DSSE payload after the structural checks: a
// DSSE envelope, the in-toto payload type, exactly one signature.
func envelopePayload(entity verify.SignedEntity) ([]byte, error) {
	sc, err := entity.SignatureContent()
	if err != nil {
		return nil, refusal.Because(sigstore.ErrMalformedBundle, err, "the bundle's signature content does not decode: the bundle is damaged; get it again from whoever signed")
	}
	ec := sc.EnvelopeContent()
	if ec == nil || ec.RawEnvelope() == nil {
		return nil, refusal.New(sigstore.ErrMalformedBundle, "the bundle holds a message signature, not a DSSE envelope")
	}
	env := ec.RawEnvelope()
	if env.PayloadType != sigstore.InTotoPayloadType {
		return nil, refusal.New(sigstore.ErrMalformedBundle, "DSSE payload type %q is not %s", env.PayloadType, sigstore.InTotoPayloadType)
	}
	if len(env.Signatures) != 1 {
		return nil, refusal.New(sigstore.ErrMalformedBundle, "DSSE envelope has %d signatures, want 1", len(env.Signatures))
	}
	payload, err := base64.StdEncoding.DecodeString(env.Payload)
	if err != nil {
		return nil, refusal.Because(sigstore.ErrMalformedBundle, err, "the DSSE payload is not base64: the bundle is damaged; get it again from whoever signed")
	}
	return payload, nil
}

// diagnose names the class of a refusal sigstore-go has already made, by
// re-running its steps in order. It never turns a refusal into acceptance.
func (v *Verifier) diagnose(entity verify.SignedEntity, vc verify.VerificationContent, cause error) error {
	if !v.keyless {
		return refusal.Because(sigstore.ErrSignatureInvalid, cause, "the signature does not verify with this key: the bundle was signed by another key or changed after signing (check that --key is the signer's public key)")
	}
	logTS, err := v.sv.VerifyTransparencyLogInclusion(entity)
	if err != nil {
		// sigstore-go checks the certificate's validity at each entry's
		// integrated time inside this step; name that cause as the
		// certificate's.
		if entries, e := entity.TlogEntries(); e == nil {
			for _, entry := range entries {
				if at := entry.IntegratedTime(); !at.IsZero() && !vc.ValidAtTime(at, v.trusted) {
					return refusal.Because(sigstore.ErrCertificateInvalid, err, "the certificate was not valid at the log's integrated time %s (expired, not yet valid, or not issued by this trusted root's Fulcio authority)", at.UTC().Format(time.RFC3339))
				}
			}
		}
		return refusal.Because(sigstore.ErrTlogInvalid, err, "the bundle's transparency-log entry does not verify against this trusted root: a root of another Sigstore instance, or an edited entry (give --trusted-root the root of the instance that signed)")
	}
	ts, err := v.sv.VerifyObserverTimestamps(entity, logTS)
	if err != nil {
		return refusal.Because(sigstore.ErrTimestampInvalid, err, "the bundle's observer timestamp does not verify against this trusted root (give --trusted-root the root of the instance that signed)")
	}
	leaf := withoutHandledSAN(vc.Certificate())
	for _, t := range ts {
		if _, err := verify.VerifyLeafCertificate(t.Timestamp, leaf, v.trusted); err != nil {
			return refusal.Because(sigstore.ErrCertificateInvalid, err, "the certificate does not chain to this trusted root's Fulcio authority at the %s timestamp %s, or was not valid then (damaged, expired, or of another Sigstore instance)", t.Type, t.Timestamp.UTC().Format(time.RFC3339))
		}
	}
	if _, err := v.sv.Verify(entity, verify.NewPolicy(verify.WithoutArtifactUnsafe(), verify.WithoutIdentitiesUnsafe())); err != nil {
		return refusal.Because(sigstore.ErrSignatureInvalid, err, "the signature does not verify with the certificate's key: the bundle was changed after signing")
	}
	return refusal.Because(sigstore.ErrIdentityMismatch, cause, "the certificate names %s, not the identity and issuer given (--certificate-identity, --certificate-oidc-issuer)", certNames(vc.Certificate()))
}

// withoutHandledSAN returns a copy of c without the critical OtherName SAN
// extension among its unhandled extensions, as sigstore-go's own
// verification does before path validation.
func withoutHandledSAN(c *x509.Certificate) *x509.Certificate {
	cp := *c
	var keep []asn1.ObjectIdentifier
	for _, oid := range c.UnhandledCriticalExtensions {
		if !oid.Equal(cryptoutils.SANOID) {
			keep = append(keep, oid)
		}
	}
	cp.UnhandledCriticalExtensions = keep
	return &cp
}

// certNames lists a certificate's e-mail and URI names, for a refusal.
func certNames(c *x509.Certificate) string {
	var names []string
	for _, u := range c.URIs {
		names = append(names, u.String())
	}
	names = append(names, c.EmailAddresses...)
	if len(names) == 0 {
		return "no e-mail or URI identity"
	}
	return strings.Join(names, ", ")
}
