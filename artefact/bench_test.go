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
// check, the three content digests recomputed and the canonical-form check,
// and the published JSON Schema pass (artefact/schema.Check) run beside the
// named checks, as obaudit validate always does. The "-named-only" case
// leaves the schema pass out (what validate did by default before the
// schema became part of it). cmd/obaudit's BenchmarkValidate times the whole
// command, with the maintenance pack's final-state validator.
func BenchmarkRead(b *testing.B) {
	for _, tc := range []struct {
		name   string
		schema bool
	}{{fixtureDet, true}, {fixtureModel, true}, {fixtureDet, false}} {
		label := tc.name
		if !tc.schema {
			label += "-named-only"
		}
		b.Run(label, func(b *testing.B) {
			name := tc.name
			data := upstreamtest.Read(b, name)
			opts := testOptions()
			if tc.schema {
				opts.JSONSchema = schema.Check
			}
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

// BenchmarkReadParts splits Read into its stages on the V1 reference.
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
