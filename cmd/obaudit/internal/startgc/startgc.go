// Package startgc keeps the garbage collector off while the packages the
// obaudit binary links initialise, and [Resume] turns it back on before a
// command runs.
//
// Package initialisation allocates about 3 MB, nearly all of it kept for
// the life of the process (santhosh-tekuri/jsonschema/v5 compiles its
// metaschemas, asaskevich/govalidator and go-openapi/strfmt their
// patterns). The collector's first cycle starts at about 3.5 MB of heap, so
// without this it ran in the middle of start-up, marking memory that is all
// still live: a quarter of `obaudit version`'s instructions (BENCHMARKS.md,
// "Start-up").
//
// The main package imports this package first; Go initialises a package as
// soon as its imports are (the language's order: by import path, among the
// packages whose imports are ready), and this one needs only runtime/debug
// and os, so it runs before the large initialisers
// (TestStartGCRunsFirst in cmd/obaudit holds it there). A GOGC or
// GOMEMLIMIT in the environment is the operator's choice and is left alone.
package startgc

import (
	"os"
	"runtime/debug"
)

// resume is the collector target to restore, or -2 when there is none.
var resume = -2

func init() {
	_, gogc := os.LookupEnv("GOGC")
	_, limit := os.LookupEnv("GOMEMLIMIT")
	if !gogc && !limit {
		resume = debug.SetGCPercent(-1)
	}
}

// Resume restores the collector target start-up replaced (GOGC's default);
// it does nothing after the first call or when the environment set one.
func Resume() {
	if resume != -2 {
		debug.SetGCPercent(resume)
		resume = -2
	}
}
