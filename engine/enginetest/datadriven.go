// Package enginetest is test support for the engine and its packs: a small
// data-driven script runner in the style of cockroachdb/datadriven (command
// / "----" / expected output, rewritten with -rewrite) and [TestDomain], the
// conformance suite every pack passes.
//
// It is imported only by tests.
package enginetest

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the expected output of data-driven scripts")

// TestData is one directive of a script:
//
//	cmd key=value key=value
//	optional input lines
//	----
//	expected output
//
// Expected output that contains a blank line is written between two "----"
// lines above and below it, as datadriven does.
type TestData struct {
	Pos      string // file:line
	Cmd      string
	Args     map[string]string
	Input    string
	Expected string
}

// Arg returns an argument or def.
func (d *TestData) Arg(key, def string) string {
	if v, ok := d.Args[key]; ok {
		return v
	}
	return def
}

// RunFile runs every directive of the script at path through f and compares
// the output with the expected section. With -rewrite it rewrites the file
// instead. Every script is run twice and the two outputs must be byte
// identical (a determinism check).
func RunFile(t *testing.T, path string, f func(t *testing.T, d *TestData) string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	directives, err := parse(path, string(b))
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for _, d := range directives {
		got := f(t, d)
		if again := f(t, d); again != got {
			t.Errorf("%s: %s gave different output on a second run", d.Pos, d.Cmd)
		}
		if !strings.HasSuffix(got, "\n") && got != "" {
			got += "\n"
		}
		if !*rewrite && got != d.Expected {
			t.Errorf("%s: %s output differs (rerun with -rewrite and review the diff)\n--- got\n%s--- want\n%s", d.Pos, d.Cmd, got, d.Expected)
		}
		writeDirective(&out, d, got)
	}
	if *rewrite {
		if err := os.WriteFile(path, []byte(strings.TrimSuffix(out.String(), "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func writeDirective(w *strings.Builder, d *TestData, got string) {
	w.WriteString(d.Cmd)
	keys := make([]string, 0, len(d.Args))
	for k := range d.Args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, " %s=%s", k, d.Args[k])
	}
	w.WriteString("\n")
	w.WriteString(d.Input)
	if strings.Contains(got, "\n\n") {
		w.WriteString("----\n----\n" + got + "----\n----\n\n")
		return
	}
	w.WriteString("----\n" + got + "\n")
}

func parse(path, src string) ([]*TestData, error) {
	lines := strings.Split(src, "\n")
	var out []*TestData
	for i := 0; i < len(lines); {
		line := strings.TrimSpace(lines[i])
		if line == "" || strings.HasPrefix(line, "#") {
			i++
			continue
		}
		d := &TestData{Pos: fmt.Sprintf("%s:%d", path, i+1), Args: map[string]string{}}
		fields := strings.Fields(line)
		d.Cmd = fields[0]
		for _, f := range fields[1:] {
			k, v, _ := strings.Cut(f, "=")
			d.Args[k] = v
		}
		i++
		var input bytes.Buffer
		for i < len(lines) && lines[i] != "----" {
			input.WriteString(lines[i] + "\n")
			i++
		}
		if i >= len(lines) {
			return nil, fmt.Errorf("%s: directive without ----", d.Pos)
		}
		d.Input = input.String()
		i++
		var exp bytes.Buffer
		if i < len(lines) && lines[i] == "----" { // blank-line-tolerant block
			i++
			for i < len(lines) && !(lines[i] == "----" && i+1 < len(lines) && lines[i+1] == "----") {
				exp.WriteString(lines[i] + "\n")
				i++
			}
			i += 2
		} else {
			for i < len(lines) && lines[i] != "" {
				exp.WriteString(lines[i] + "\n")
				i++
			}
		}
		d.Expected = exp.String()
		out = append(out, d)
	}
	return out, nil
}
