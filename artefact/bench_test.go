package artefact_test

import (
	"testing"

	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/artefact/schema"
	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/internal/cputime"
	"github.com/obaudit/obaudit/internal/upstreamtest"
)

// BenchmarkRead measures obaudit validate's library work on the 220 KB V1
// reference artefact (and the 229 KB model one): strict parse, every named
// check, the three content digests recomputed and the canonical-form check.
// cmd/obaudit's BenchmarkValidate times the whole command, with the
// maintenance pack's final-state validator and the re-grade.
func BenchmarkRead(b *testing.B) {
	for _, name := range []string{fixtureDet, fixtureModel} {
		b.Run(name, func(b *testing.B) {
			data := upstreamtest.Read(b, name)
			opts := testOptions()
			if _, err := artefact.Read(data, opts); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			cputime.Report(b, func() {
				if _, err := artefact.Read(data, opts); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// BenchmarkReadParts splits Read into its stages on the V1 reference, with
// the published JSON Schema (validate --schema's second verdict) beside them.
func BenchmarkReadParts(b *testing.B) {
	data := upstreamtest.Read(b, fixtureDet)
	tree, err := canon.Parse(data)
	if err != nil {
		b.Fatal(err)
	}
	noSchema := testOptions()
	b.Run("parse", func(b *testing.B) {
		for b.Loop() {
			canon.Parse(data)
		}
	})
	b.Run("named-checks-and-digests", func(b *testing.B) {
		for b.Loop() {
			if _, err := artefact.Validate(tree, noSchema); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("schema", func(b *testing.B) {
		for b.Loop() {
			if err := schema.Check(tree); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encode", func(b *testing.B) {
		for b.Loop() {
			canon.Upstream(tree)
		}
	})
}
