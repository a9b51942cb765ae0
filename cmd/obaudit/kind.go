package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/obaudit/obaudit/refusal"
	"github.com/spf13/cobra"
)

// errWrongKind is returned when an input is recognisably another kind of
// file than the one the command reads (a ledger given as an artefact, an
// artefact given as a bundle, a key, an oracle...): the detail says what the
// file looks like and which command reads it, instead of a parser's offset
// or a library's message.
var errWrongKind = refusal.Sentinel("input/wrong-kind")

// fileKind is a kind of file obaudit reads (or writes).
type fileKind struct {
	name   string // "an execution ledger"
	readBy string // which commands read it, after "read by"
}

var (
	kindArtefact    = &fileKind{"an episode artefact", "obaudit validate, report, replay, sign, export agent-run and arms verify as its first argument"}
	kindNoTime      = &fileKind{"a stateful_time_removed (No-Time) run record", "obaudit arms validate and arms replay, and arms verify as its second argument"}
	kindLedger      = &fileKind{"an execution ledger", "obaudit ledger verify, and by bundle and sign as their second argument"}
	kindBundle      = &fileKind{"a Sigstore bundle (a signed run commitment)", "obaudit verify --bundle, commit and verify-inclusion"}
	kindTrustedRoot = &fileKind{"a Sigstore trusted root", "obaudit verify --trusted-root"}
	kindPrivateKey  = &fileKind{"a PEM private key", "obaudit sign --key and commit --key"}
	kindPublicKey   = &fileKind{"a PEM public key", "obaudit verify --key, verify-inclusion --key and commit --bundle-key"}
	kindCertificate = &fileKind{"a PEM certificate", "no obaudit command: keyless bundles carry their certificate"}
	kindProof       = &fileKind{"a tlog inclusion proof", "obaudit verify-inclusion --proof"}
	kindCheckpoint  = &fileKind{"a signed checkpoint", "obaudit verify-inclusion --checkpoint"}
	kindSpec        = &fileKind{"an operation spec (YAML)", "obaudit run, check and replay with --spec"}
	kindOracle      = &fileKind{"a negative-control oracle (YAML)", "obaudit check --oracle"}
	kindReport      = &fileKind{"an obaudit --json report", "no obaudit command: it is what a command printed"}
)

// sniffLimit bounds how much of a file sniffKind looks at.
const sniffLimit = 64 << 10

// sniffKind says what b (a file, or its first sniffLimit bytes) looks
// like, or nil when it is none of the kinds obaudit knows (the command's
// own reader then judges it).
func sniffKind(b []byte) *fileKind {
	b = bytes.TrimLeft(bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")), " \t\r\n")
	switch {
	case bytes.HasPrefix(b, []byte("-----BEGIN ")):
		line, _, _ := bytes.Cut(b, []byte("\n"))
		switch {
		case bytes.Contains(line, []byte("PRIVATE KEY")):
			return kindPrivateKey
		case bytes.Contains(line, []byte("PUBLIC KEY")):
			return kindPublicKey
		case bytes.Contains(line, []byte("CERTIFICATE")):
			return kindCertificate
		}
		return nil
	case bytes.HasPrefix(b, []byte("c2sp.org/tlog-proof@")):
		return kindProof
	case len(b) > 0 && b[0] == '{':
		return sniffJSON(b)
	}
	if looksLikeCheckpoint(b) {
		return kindCheckpoint
	}
	return sniffYAML(b)
}

// sniffJSON judges a JSON object by its first line (a ledger's header row)
// and its top-level keys, read as far as b goes.
func sniffJSON(b []byte) *fileKind {
	first, rest, multiline := bytes.Cut(b, []byte("\n"))
	if multiline && len(bytes.TrimSpace(rest)) > 0 {
		var row map[string]json.RawMessage
		if json.Unmarshal(first, &row) == nil {
			if _, ok := row["header"]; ok {
				return kindLedger
			}
		}
	}
	keys, mediaType := topLevelKeys(b)
	switch {
	case strings.HasPrefix(mediaType, "application/vnd.dev.sigstore.bundle"):
		return kindBundle
	case strings.HasPrefix(mediaType, "application/vnd.dev.sigstore.trustedroot"):
		return kindTrustedRoot
	case strings.HasPrefix(mediaType, "application/vnd.obaudit."):
		return kindReport
	case keys["header"] && !keys["artifact_version"]:
		return kindLedger
	case keys["artifact_version"] && (keys["trajectory"] || keys["evaluation"]):
		return kindArtefact
	case keys["contract"] && keys["arm"] && keys["protocol"]:
		return kindNoTime
	}
	return nil
}

// otherKindKeys are the top-level keys sniffJSON reads as a mark of a
// kind other than an artefact (a "mediaType", a ledger's "header", a No-Time
// record's "contract", "arm" and "protocol"); a kind added to sniffJSON
// adds its keys here. An object holding none of them is, to sniffJSON, an
// artefact or of no known kind, however much of it is looked at.
var otherKindKeys = []string{"mediaType", "header", "contract", "arm", "protocol"}

// checkArtefactKind is checkKind(name, b, kindArtefact) for a reader that
// parses the whole input first (readArtefactInput): tree is what it parsed
// (nil when the parse or the checks after it refused). A parsed object with
// none of otherKindKeys needs no sniff: its first line cannot be a ledger's
// header row (an object complete on its first line with more after it does
// not parse), and the keys topLevelKeys reads from the first sniffLimit
// bytes are some of tree's, so checkKind would find an artefact or nothing
// and accept. Any other input is sniffed as readInputAs sniffs it, and its
// refusal comes before the reader's, so every input is refused by the class
// readInputAs gives it.
func checkArtefactKind(name string, b []byte, tree map[string]any) error {
	marked := slices.ContainsFunc(otherKindKeys, func(k string) bool {
		_, ok := tree[k]
		return ok
	})
	if tree != nil && !marked {
		return nil
	}
	return checkKind(name, b, kindArtefact)
}

// topLevelKeys lists the keys of the JSON object b begins with, as far as b
// can be decoded, and its "mediaType" string if one is seen.
func topLevelKeys(b []byte) (map[string]bool, string) {
	keys := map[string]bool{}
	mediaType := ""
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return keys, ""
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			break
		}
		k, ok := t.(string)
		if !ok {
			break
		}
		keys[k] = true
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			break
		}
		if k == "mediaType" {
			json.Unmarshal(v, &mediaType)
		}
	}
	return keys, mediaType
}

// looksLikeCheckpoint: a C2SP tlog-checkpoint note: an origin line, a
// decimal tree size, a base64 root hash.
func looksLikeCheckpoint(b []byte) bool {
	lines := strings.SplitN(string(b), "\n", 4)
	if len(lines) < 4 || lines[0] == "" || strings.ContainsAny(lines[0], " \t") {
		return false
	}
	if _, err := strconv.ParseUint(lines[1], 10, 64); err != nil {
		return false
	}
	return len(lines[2]) == 44 && strings.HasSuffix(lines[2], "=")
}

// sniffYAML recognises the two YAML inputs by their top-level keys.
func sniffYAML(b []byte) *fileKind {
	top := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		if k, _, ok := strings.Cut(line, ":"); ok && k != "" && !strings.ContainsAny(k[:1], " \t#-") {
			top[k] = true
		}
	}
	switch {
	case top["oracle_id"] && top["oracle_version"]:
		return kindOracle
	case top["operation_id"] && top["operation_type"] && top["scenarios"]:
		return kindSpec
	}
	return nil
}

// signatures are what a file of a kind always begins with or declares,
// for the kinds that have one: a file of no known kind lacking it is not
// that kind, and is refused by name before a library's parser (protobuf,
// PEM, note) reports it in its own terms.
var signatures = map[*fileKind]string{
	kindBundle:      `a "mediaType" of application/vnd.dev.sigstore.bundle.v0.3+json (what obaudit sign and cosign attest-blob write)`,
	kindTrustedRoot: `a "mediaType" of application/vnd.dev.sigstore.trustedroot+json (a Sigstore trusted_root.json)`,
	kindPrivateKey:  `a "-----BEGIN PRIVATE KEY-----" PEM block (what obaudit keygen writes as PREFIX.key)`,
	kindPublicKey:   `a "-----BEGIN PUBLIC KEY-----" PEM block (what obaudit keygen writes as PREFIX.pub)`,
	kindProof:       `a first line "c2sp.org/tlog-proof@v1" (what obaudit commit writes as NAME.tlog-proof)`,
}

// checkKind refuses b (the input name) as input/wrong-kind when it is
// recognisably another kind than want (any of want, when several are
// read), or, wanting one kind that has a signature, is of no known kind
// and lacks it.
func checkKind(name string, b []byte, want ...*fileKind) error {
	shown := name
	if name == "-" {
		shown = "stdin"
	}
	got := sniffKind(b[:min(len(b), sniffLimit)])
	if got == nil {
		if len(want) == 1 && signatures[want[0]] != "" {
			return refusal.New(errWrongKind, "%s is not %s: it lacks %s", shown, want[0].name, signatures[want[0]])
		}
		return nil
	}
	if slices.Contains(want, got) {
		return nil
	}
	names := make([]string, len(want))
	for i, w := range want {
		names[i] = w.name
	}
	return refusal.New(errWrongKind, "%s looks like %s (read by %s), not %s", shown, got.name, got.readBy, strings.Join(names, " or "))
}

// readInputAs is readInput for an input of a known kind: what is
// recognisably another kind is refused (input/wrong-kind) before any parser
// sees it.
func readInputAs(cmd *cobra.Command, name string, want ...*fileKind) ([]byte, error) {
	b, err := readInput(cmd, name)
	if err != nil {
		return nil, err
	}
	if err := checkKind(name, b, want...); err != nil {
		return nil, err
	}
	return b, nil
}

// checkFileKind is checkKind on the first sniffLimit bytes of the file
// name, for inputs a reader streams (a ledger may be large). Errors opening
// the file are left to that reader.
func checkFileKind(name string, want ...*fileKind) error {
	f, err := os.Open(name)
	if err != nil {
		return nil
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, sniffLimit))
	return checkKind(name, b, want...)
}

// peekKind is checkKind on what a buffered stream begins with; the stream
// is left unconsumed.
func peekKind(name string, r *bufio.Reader, want ...*fileKind) error {
	b, _ := r.Peek(sniffLimit)
	return checkKind(name, b, want...)
}
