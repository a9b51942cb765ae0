package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/obaudit/obaudit/artefact/sigstore"
	"github.com/obaudit/obaudit/artefact/sigstore/sigstoretest"
	"github.com/obaudit/obaudit/commitment"
	"github.com/obaudit/obaudit/internal/upstreamtest"
	"github.com/obaudit/obaudit/refusal"
)

const (
	keylessIdentity = "release@obaudit.example"
	keylessIssuer   = "https://issuer.obaudit.example"
)

// writeTemp writes b to name in dir and returns the path.
func writeTemp(t *testing.T, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// keylessSign builds the run commitment for in exactly as obaudit sign does
// (its checks and options) and signs it keylessly with s as identity and
// issuer, logged at at.
func keylessSign(t *testing.T, s *sigstoretest.Sigstore, in commitment.Inputs, identity, issuer string, at time.Time) []byte {
	t.Helper()
	f := newCommitmentFiles(in.ArtefactName, parseArtefact(in.Artefact, true))
	f.in.LedgerName, f.in.Ledger = in.LedgerName, in.Ledger
	b, _, err := commitment.Sign(context.Background(), f.in, f.options(true), sigstoretest.Signer{S: s, Subject: identity, Issuer: issuer, At: at})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestVerifyKeyless drives `obaudit verify --trusted-root` end to end,
// offline: run commitments over upstream's V1 artefact (and over the model
// run's artefact and ledger) signed at test time by an in-process Sigstore,
// whose trusted root is written beside them. The command verifies them (exit
// 0, the certified identity reported) and refuses, by class, a wrong
// identity, a wrong issuer, a certificate expired when the log integrated
// the entry, a trusted root of another Sigstore, and a file that is not the
// signed subject.
func TestVerifyKeyless(t *testing.T) {
	dir := t.TempDir()
	det := commitment.Inputs{ArtefactName: "det.json", Artefact: upstreamtest.Read(t, "artifact8-deterministic-reference-v1.json")}
	model := commitment.Inputs{
		ArtefactName: "model.json", Artefact: upstreamtest.Read(t, "artifact8-fake-openai-reference-v1.json"),
		LedgerName: "model.ndjson", Ledger: upstreamtest.Read(t, "artifact8-fake-openai-reference-v1.execution-ledger-v2.ndjson"),
	}
	detPath := writeTemp(t, dir, det.ArtefactName, det.Artefact)
	modelPath := writeTemp(t, dir, model.ArtefactName, model.Artefact)
	ledgerPath := writeTemp(t, dir, model.LedgerName, model.Ledger)

	s := sigstoretest.New(t)
	now := time.Now()
	rootPath := writeTemp(t, dir, "trusted_root.json", s.TrustedRoot(t))
	good := writeTemp(t, dir, "det.sigstore.json", keylessSign(t, s, det, keylessIdentity, keylessIssuer, now.Add(5*time.Minute)))
	pair := writeTemp(t, dir, "model.sigstore.json", keylessSign(t, s, model, keylessIdentity, keylessIssuer, now.Add(5*time.Minute)))
	// The log integrated the entry 30 minutes from now, when the ten-minute
	// certificate had expired.
	expired := writeTemp(t, dir, "expired.sigstore.json", keylessSign(t, s, det, keylessIdentity, keylessIssuer, now.Add(30*time.Minute)))
	otherRoot := writeTemp(t, dir, "other_root.json", sigstoretest.New(t).TrustedRoot(t))
	// The certificate's DER damaged in place (one byte of its signature):
	// the log entry, which covers it, no longer verifies.
	var bt map[string]any
	gb, _ := os.ReadFile(good)
	if err := json.Unmarshal(gb, &bt); err != nil {
		t.Fatal(err)
	}
	cert := bt["verificationMaterial"].(map[string]any)["certificate"].(map[string]any)
	der, _ := base64.StdEncoding.DecodeString(cert["rawBytes"].(string))
	der[len(der)-3] ^= 0xff
	cert["rawBytes"] = base64.StdEncoding.EncodeToString(der)
	gb, _ = json.Marshal(bt)
	brokenCert := writeTemp(t, dir, "broken-cert.sigstore.json", gb)
	cut := writeTemp(t, dir, "cut.sigstore.json", gb[:len(gb)-40])

	verify := func(bundle, root, identity, issuer string, files ...string) []string {
		return append([]string{"verify", "--bundle", bundle, "--trusted-root", root,
			"--certificate-identity", identity, "--certificate-oidc-issuer", issuer}, files...)
	}

	t.Run("verified", func(t *testing.T) {
		code, stdout, stderr := obaudit(verify(good, rootPath, keylessIdentity, keylessIssuer, detPath)...)
		if code != exitOK {
			t.Fatalf("exit %d, stderr %q", code, stderr)
		}
		for _, want := range []string{
			"verified: " + good + "\n",
			"subject: det.json sha256:" + commitment.SHA256Hex(det.Artefact) + "\n",
			"signed by: " + keylessIdentity + " (issuer " + keylessIssuer + ")\n",
			"checks the signer reports: validate=true replay=true bundle=false\n",
		} {
			if !strings.Contains(stdout, want) {
				t.Errorf("stdout lacks %q:\n%s", want, stdout)
			}
		}
	})
	t.Run("verified pair, json", func(t *testing.T) {
		code, stdout, stderr := obaudit(append([]string{"--json"}, verify(pair, rootPath, keylessIdentity, keylessIssuer, modelPath, ledgerPath)...)...)
		if code != exitOK {
			t.Fatalf("exit %d, stderr %q", code, stderr)
		}
		var rep struct {
			OK       bool              `json:"ok"`
			Signer   map[string]string `json:"signer"`
			Subjects []struct{ Name, SHA256 string }
		}
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatal(err)
		}
		if !rep.OK || rep.Signer["certificate_identity"] != keylessIdentity || rep.Signer["certificate_oidc_issuer"] != keylessIssuer ||
			len(rep.Subjects) != 2 || rep.Subjects[1].SHA256 != commitment.SHA256Hex(model.Ledger) {
			t.Fatalf("report %+v", rep)
		}
	})

	for _, tc := range []struct {
		name string
		args []string
		want *refusal.Refusal
	}{
		{"wrong identity", verify(good, rootPath, "mallory@obaudit.example", keylessIssuer, detPath), sigstore.ErrIdentityMismatch},
		{"wrong issuer", verify(good, rootPath, keylessIdentity, "https://accounts.other.example", detPath), sigstore.ErrIdentityMismatch},
		{"expired certificate", verify(expired, rootPath, keylessIdentity, keylessIssuer, detPath), sigstore.ErrCertificateInvalid},
		{"another Sigstore's root", verify(good, otherRoot, keylessIdentity, keylessIssuer, detPath), sigstore.ErrTlogInvalid},
		{"broken certificate", verify(brokenCert, rootPath, keylessIdentity, keylessIssuer, detPath), sigstore.ErrTlogInvalid},
		{"cut short", verify(cut, rootPath, keylessIdentity, keylessIssuer, detPath), sigstore.ErrMalformedBundle},
		{"another artefact", verify(good, rootPath, keylessIdentity, keylessIssuer, modelPath), commitment.ErrSubjectMismatch},
		{"root an artefact", verify(good, detPath, keylessIdentity, keylessIssuer, detPath), errWrongKind},
		{"root not a trusted root", verify(good, writeTemp(t, dir, "junk.json", []byte(`{"mediaType":"application/vnd.dev.sigstore.trustedroot+json;version=0.1","x":1}`)), keylessIdentity, keylessIssuer, detPath), sigstore.ErrTrustedRootInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := obaudit(tc.args...)
			if code != exitRefused || stdout != "" || !strings.HasPrefix(stderr, "refused: "+string(tc.want.Class)+": ") {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit %d refused as %s", code, stdout, stderr, exitRefused, tc.want.Class)
			}
			// Issue 17, point 5: a sentence, not the library's text.
			if raw := regexp.MustCompile(`x509:|asn1:|proto:|[^.]json: |crypto/|tlog entry|failed to`).FindString(stderr); raw != "" {
				t.Errorf("stderr carries library text %q: %s", raw, stderr)
			}
		})
	}
}
