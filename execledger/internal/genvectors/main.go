// Command genvectors writes the execution-ledger vectors into
// execledger/testdata/vectors/ledger (or -out). Run from the module root:
//
//	go run ./execledger/internal/genvectors
package main

import (
	"flag"
	"log"
	"os"
	"path/filepath"

	"github.com/obaudit/obaudit/execledger/internal/vectors"
)

func main() {
	out := flag.String("out", "execledger/testdata/vectors/ledger", "output directory")
	flag.Parse()
	if err := os.RemoveAll(*out); err != nil {
		log.Fatal(err)
	}
	for _, v := range vectors.Generate() {
		p := filepath.Join(*out, v.Path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			log.Fatal(err)
		}
		if err := os.WriteFile(p, v.File(), 0o644); err != nil {
			log.Fatal(err)
		}
	}
}
