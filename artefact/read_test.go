package artefact_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"testing"

	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/internal/upstreamtest"
)

// Every upstream artefact validates, under its own contract, and the
// contract-8 ones are in the canonical file form.
func TestReadUpstreamFixtures(t *testing.T) {
	for _, tc := range []struct {
		name      string
		version   int
		sha256    string
		canonical bool
		source    string
	}{
		{fixtureDet, 8, "45f2f3bec377230a0fc464c5ea1b64798a053beeb588c3ec4bdb477eaf7cfab5", true, artefact.SourceDeterministic},
		{fixtureModel, 8, "115bd5c058f4b4057cf7b4cd18d7cf0b367c0234b4367fbac92396aa26a24b3f", true, artefact.SourceModel},
		{fixtureV1, 1, "fb79884fb499043ff13d4cbd0ed2022f38a154565e156cbe0c874cfd7531af36", true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := upstreamtest.Read(t, tc.name)
			doc, err := artefact.Read(b, testOptions())
			if err != nil {
				t.Fatalf("Read(%s) = %v, want nil", tc.name, err)
			}
			if doc.Version() != tc.version {
				t.Errorf("Version() = %d, want %d", doc.Version(), tc.version)
			}
			if doc.FileSHA256 != tc.sha256 {
				t.Errorf("FileSHA256 = %s, want %s", doc.FileSHA256, tc.sha256)
			}
			if doc.Canonical != tc.canonical {
				t.Errorf("Canonical = %v, want %v", doc.Canonical, tc.canonical)
			}
			if got := slices.Sorted(mapsKeys(doc.Tree)); !slices.Equal(got, slices.Sorted(slices.Values(artefact.Fields(tc.version)))) {
				t.Errorf("key set %v is not contract %d's", got, tc.version)
			}
			if tc.source == "" {
				if doc.Artefact.Execution != nil || doc.Artefact.Decisions != nil {
					t.Errorf("contract-1 document decoded with an execution record or tape")
				}
			} else if doc.Artefact.Execution.OutcomeSource != tc.source {
				t.Errorf("outcome_source = %q, want %q", doc.Artefact.Execution.OutcomeSource, tc.source)
			}
		})
	}
}

func mapsKeys(m map[string]any) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// The writer reproduces upstream's contract-8 artefacts byte for byte from
// the typed model: decode, rebuild the tree, encode.
func TestEncodeReproducesUpstreamBytes(t *testing.T) {
	for _, name := range []string{fixtureDet, fixtureModel} {
		t.Run(name, func(t *testing.T) {
			b := upstreamtest.Read(t, name)
			doc, err := artefact.Read(b, testOptions())
			if err != nil {
				t.Fatal(err)
			}
			out, err := artefact.Encode(doc.Artefact, testOptions())
			if err != nil {
				t.Fatalf("Encode = %v", err)
			}
			if !bytes.Equal(out, b) {
				t.Fatalf("Encode produced %d bytes that differ from upstream's %d", len(out), len(b))
			}
			sum := sha256.Sum256(out)
			if hex.EncodeToString(sum[:]) != doc.FileSHA256 {
				t.Fatalf("digest drift")
			}
		})
	}
}

// Seal recomputes the three content digests upstream recorded.
func TestSealRecomputesUpstreamDigests(t *testing.T) {
	doc, err := artefact.Read(upstreamtest.Read(t, fixtureDet), testOptions())
	if err != nil {
		t.Fatal(err)
	}
	a := doc.Artefact
	want := [3]string{a.TrajectoryDigest, a.FinalStateDigest, a.DecisionsDigest}
	a.TrajectoryDigest, a.FinalStateDigest, a.DecisionsDigest = "", "", ""
	if err := a.Seal(); err != nil {
		t.Fatal(err)
	}
	if got := [3]string{a.TrajectoryDigest, a.FinalStateDigest, a.DecisionsDigest}; got != want {
		t.Fatalf("Seal() digests = %v, want %v", got, want)
	}
	if want[0] != "16dd2845143fea411282753df6832cc51eccdad76f4d37feb77bc98ca1469439" ||
		want[1] != "adbeb19aff4469810e2acd8cd5adcbe89179ce8b192f2f890bb4884baec6a1f1" ||
		want[2] != "9f068523e478f9577d9f4b6510bb74b0637edd30ee1f5d3de9016784b4d27c19" {
		t.Fatalf("fixture digests %v are not the published ones", want)
	}
}

// Writing refuses an artefact this build would refuse to read: a model run
// without its provider execution binding never reaches a file.
func TestEncodeRefusesUnwitnessedModelRun(t *testing.T) {
	doc, err := artefact.Read(upstreamtest.Read(t, fixtureModel), testOptions())
	if err != nil {
		t.Fatal(err)
	}
	doc.Artefact.ProviderExecution = nil
	if _, err := artefact.Encode(doc.Artefact, testOptions()); !isClass(err, artefact.ErrBindingMissing) {
		t.Fatalf("Encode(model run without binding) = %v, want %s", err, artefact.ErrBindingMissing.Class)
	}
}

// The binding the model fixture carries, and the digests a bundle audit
// compares call by call, are readable from the typed model.
func TestModelBindingAndDecisionDigests(t *testing.T) {
	doc, err := artefact.Read(upstreamtest.Read(t, fixtureModel), testOptions())
	if err != nil {
		t.Fatal(err)
	}
	b := doc.Artefact.ProviderExecution
	if b == nil || b.ExecutionLedgerDigest != "73f0c6b77ff6e774ded0c325ee007fe62f62999627ffcd8ae915474809f41b2f" ||
		b.ProviderCalls != 46 || b.InputTokens != 193706 || b.OutputTokens != 5428 ||
		b.MeasuredCostUSD != "0.2964125" || b.ForfeitedReservationUSD != "0" || b.ExecutionLedgerVersion != 2 {
		t.Fatalf("binding = %+v, not the B3 fixture's", b)
	}
	got := map[string]bool{}
	for i := range doc.Artefact.Decisions {
		d, err := doc.Artefact.DecisionDigest(i)
		if err != nil {
			t.Fatal(err)
		}
		got[d] = true
	}
	for _, want := range []string{
		"81ca37eea4d9a6504e93c0ba43a759628f21ab8e97458a4ea8254ca75e6f0e77", // RETRIEVE of 7 tools
		"5e80a1edc3b764930a1c4cdf05bf5e29a8a7802896674a6157eb1d0e68bba30e", // ACT request_supplier_visit
	} {
		if !got[want] {
			t.Errorf("decision digest %s (pinned by upstream) not produced", want)
		}
	}
}

// Every contract's replay sections partition its top-level fields.
func TestSectionsPartitionFields(t *testing.T) {
	for v := artefact.OldestVersion; v <= artefact.Version; v++ {
		seen := map[string]int{}
		for _, s := range artefact.Sections(v) {
			for _, f := range s.Fields {
				seen[f]++
			}
		}
		fields := artefact.Fields(v)
		if len(seen) != len(fields) {
			t.Errorf("v%d: sections cover %d fields, contract has %d", v, len(seen), len(fields))
		}
		for _, f := range fields {
			if seen[f] != 1 {
				t.Errorf("v%d: field %q is in %d sections, want 1", v, f, seen[f])
			}
		}
	}
}

// Each contract's result vector extends the previous one at the end.
func TestDimensionVectorsArePrefixes(t *testing.T) {
	for v := 2; v <= artefact.Version; v++ {
		before, after := artefact.Dimensions(v-1), artefact.Dimensions(v)
		if len(after) < len(before) || !slices.Equal(after[:len(before)], before) {
			t.Errorf("contract %d vector %v does not extend contract %d's %v", v, after, v-1, before)
		}
	}
	if n := len(artefact.Dimensions(8)); n != 11 {
		t.Errorf("contract 8 grades %d dimensions, want 11", n)
	}
}

// The row-shape history (upstream C10): v4->v5 adds the three retrieval
// record types and changes nothing else; every other step changes no type set.
func TestRecordTypeHistory(t *testing.T) {
	v4, v5 := artefact.RecordTypes(4), artefact.RecordTypes(5)
	var added []string
	for _, r := range v5 {
		if !slices.Contains(v4, r) {
			added = append(added, r)
		}
	}
	if want := []string{"derived_context_invalidated", "retrieval_refused", "retrieval_served"}; !slices.Equal(added, want) {
		t.Errorf("v5 adds %v, want %v", added, want)
	}
	for _, pair := range [][2]int{{1, 2}, {2, 3}, {3, 4}, {5, 6}, {6, 7}, {7, 8}} {
		if !slices.Equal(artefact.RecordTypes(pair[0]), artefact.RecordTypes(pair[1])) {
			t.Errorf("record types change between v%d and v%d", pair[0], pair[1])
		}
	}
}
