// Package obaudit_test holds repository-wide checks: the dependency rules
// of the house style, the refusal-class catalogue, and the determinism
// source scan. It has no non-test code.
package obaudit_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/obaudit/obaudit/domains"
)

var update = flag.Bool("update", false, "rewrite golden files (testdata/refusal-classes.txt, cmd/obaudit/deps.txt)")

const module = "github.com/obaudit/obaudit"

// goFiles returns the repository's .go files (relative paths), skipping
// testdata directories.
func goFiles(t *testing.T, tests bool) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") != tests {
			return nil
		}
		out = append(out, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

var (
	sentinelRE = regexp.MustCompile(`(\w+)\s*=\s*refusal\.Sentinel\("([^"]+)"\)`)
	canonRE    = regexp.MustCompile(`(Err\w+)\s*=\s*&Error\{Class:\s*"(canon/[^"]+)"`)
)

type class struct{ name, sentinel, file string }

// declaredClasses scans non-test sources for refusal sentinels (and canon's
// own classed errors, which cannot import refusal).
func declaredClasses(t *testing.T) []class {
	t.Helper()
	var out []class
	for _, f := range goFiles(t, false) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range bytes.Split(b, []byte("\n")) {
			if bytes.HasPrefix(bytes.TrimSpace(line), []byte("//")) {
				continue // doc examples
			}
			for _, re := range []*regexp.Regexp{sentinelRE, canonRE} {
				for _, m := range re.FindAllSubmatch(line, -1) {
					out = append(out, class{name: string(m[2]), sentinel: string(m[1]), file: f})
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b class) int { return strings.Compare(a.name, b.name) })
	return out
}

// TestRefusalClasses keeps testdata/refusal-classes.txt, the committed
// catalogue of every refusal class, in step with the code.
func TestRefusalClasses(t *testing.T) {
	classes := declaredClasses(t)
	var b bytes.Buffer
	b.WriteString("# Every refusal class obaudit can raise (generated: go test . -run TestRefusalClasses -update).\n")
	seen := map[string]string{}
	for _, c := range classes {
		if prev, dup := seen[c.name]; dup {
			t.Errorf("class %s declared twice (%s and %s)", c.name, prev, c.file)
		}
		seen[c.name] = c.file
		if !regexp.MustCompile(`^[a-z][a-z0-9]*/[a-z0-9]+(-[a-z0-9]+)*$`).MatchString(c.name) {
			t.Errorf("class %q (%s) is not area/kebab-name", c.name, c.file)
		}
		b.WriteString(c.name + "\n")
	}
	checkGolden(t, "testdata/refusal-classes.txt", b.Bytes(), "TestRefusalClasses")
}

// checkGolden holds got to the committed file path (rewriting the file
// first under -update); test names the test that regenerates it.
func checkGolden(t *testing.T, path string, got []byte, test string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s is stale; regenerate with: go test . -run %s -update\ngot:\n%s", path, test, got)
	}
}

// TestSecurityListsEveryClass: SECURITY.md's refusal tables name exactly
// the declared classes.
func TestSecurityListsEveryClass(t *testing.T) {
	b, err := os.ReadFile("SECURITY.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\|\\s*`([a-z][a-z0-9]*/[a-z0-9-]+)`\\s*\\|")
	documented := map[string]bool{}
	for _, m := range row.FindAllSubmatch(b, -1) {
		documented[string(m[1])] = true
	}
	declared := map[string]bool{}
	for _, c := range declaredClasses(t) {
		declared[c.name] = true
		if !documented[c.name] {
			t.Errorf("SECURITY.md has no refusal-table row for %s (declared in %s)", c.name, c.file)
		}
	}
	for c := range documented {
		if !declared[c] {
			t.Errorf("SECURITY.md documents %s, which no code declares", c)
		}
	}
}

// TestEveryClassIsExercised: every declared class is ASSERTED somewhere,
// exactly, by one of:
//
//  1. a Go test that compares it with a raised error's class. The class is
//     named as S.Class or p.S.Class (S its sentinel, p an import of the
//     declaring package), as the string literal "area/name", as a string
//     literal containing "refused: area/name:" (a CLI stderr check), or S
//     itself as a composite-literal element (a table's want field) or as an
//     argument to a class-asserting helper; and it is named inside a
//     class-asserting function: a _test.go function whose body calls
//     refusal.ClassOf (or a function of the same directory's tests that
//     does, transitively, or refusaltest.Want, which does) or holds a
//     string literal starting "refused: ".
//  2. a testscript line `stderr '...refused: area/name: ...'` (not negated)
//     in cmd/obaudit/testdata/script/*.txtar, or a wrapped cause the same
//     pattern spells out after it (`refused: a/x: detail: area/name: `);
//  3. a vector that states it, read by a test that compares it with the
//     class raised: a header line `expect: refused area/name` (soundness
//     and ledger vectors) or a "refusal"/"run_refusal" field of the No-Time
//     fixture matrix (the list below names each source's test).
//
// Nothing else counts: not the catalogue (testdata/refusal-classes.txt),
// SECURITY.md, comments, errors.Is, or a mention outside a class-asserting
// function. A class added to the catalogue that no test raises and
// compares fails here.
func TestEveryClassIsExercised(t *testing.T) {
	asserted := map[string]bool{} // class name, or "dir\x00sentinel"
	classesAssertedInGo(t, asserted)
	scripts, _ := filepath.Glob("cmd/obaudit/testdata/script/*.txtar")
	causeRE := regexp.MustCompile(`: ([a-z][a-z0-9]*/[a-z0-9-]+): `)
	stderrRefused := regexp.MustCompile(`^\s*(?:\[[^\]]*\]\s*)*stderr\s.*refused: ([a-z][a-z0-9]*/[a-z0-9-]+):`)
	for _, f := range scripts {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			if m := stderrRefused.FindStringSubmatch(line); m != nil {
				asserted[m[1]] = true
				for _, c := range causeRE.FindAllStringSubmatch(line[strings.Index(line, m[1]):], -1) {
					asserted[c[1]] = true // a wrapped cause the pattern spells out
				}
			}
		}
	}
	// Vectors: files whose stated refusal class a test compares with the
	// class the reader raises.
	expect := regexp.MustCompile(`(?m)^expect: refused ([a-z][a-z0-9]*/[a-z0-9-]+)$`)
	for _, v := range []struct {
		path, test string // the files (a directory or a file) and the test reading them
		re         *regexp.Regexp
	}{
		{"testdata/soundness", "cmd/obaudit TestSoundnessCorpus", expect},
		{"execledger/testdata/vectors", "execledger TestVectors", expect},
		{"arm/notime/testdata/fixtures.json", "arm/notime TestFixtureMatrix", regexp.MustCompile(`"(?:run_)?refusal": "([a-z][a-z0-9]*/[a-z0-9-]+)"`)},
	} {
		filepath.WalkDir(v.path, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				b, _ := os.ReadFile(p)
				head, _, _ := bytes.Cut(b, []byte("\n-- ")) // a txtar's header, not its files
				for _, m := range v.re.FindAllSubmatch(head, -1) {
					asserted[string(m[1])] = true
				}
			}
			return nil
		})
	}
	for _, c := range declaredClasses(t) {
		dir := filepath.ToSlash(filepath.Dir(c.file))
		if !asserted[c.name] && !asserted[dir+"\x00"+c.sentinel] {
			t.Errorf("no test asserts %s (%s in %s): raise it and compare refusal.Of(err) with %s.Class", c.name, c.sentinel, c.file, c.sentinel)
		}
	}
}

// classesAssertedInGo records in asserted the classes (by name, or by
// "dir\x00sentinel") that a Go test asserts, as TestEveryClassIsExercised
// defines it.
func classesAssertedInGo(t *testing.T, asserted map[string]bool) {
	t.Helper()
	byDir := map[string][]testFile{}
	fset := token.NewFileSet()
	for _, p := range goFiles(t, true) {
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.ToSlash(filepath.Dir(p))
		imports := map[string]string{}
		for _, im := range f.Imports {
			path, _ := strconv.Unquote(im.Path.Value)
			if !strings.HasPrefix(path, module+"/") {
				continue
			}
			name := path[strings.LastIndex(path, "/")+1:]
			if im.Name != nil {
				name = im.Name.Name
			}
			imports[name] = rel(path)
		}
		byDir[dir] = append(byDir[dir], testFile{dir, f, imports})
	}
	calledName := func(call *ast.CallExpr) string {
		switch fn := call.Fun.(type) {
		case *ast.Ident:
			return fn.Name
		case *ast.SelectorExpr:
			if x, ok := fn.X.(*ast.Ident); ok && (x.Name == "refusal" || x.Name == "refusaltest") {
				return x.Name + "." + fn.Sel.Name
			}
		}
		return ""
	}
	// refusaltest.Want, the shared class assertion, counts as one only while
	// its body compares refusal.ClassOf's class.
	wantAsserts := false
	if f, err := parser.ParseFile(fset, "internal/refusaltest/refusaltest.go", nil, parser.SkipObjectResolution); err != nil {
		t.Fatal(err)
	} else {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Name.Name == "Want" && fd.Body != nil {
				ast.Inspect(fd.Body, func(n ast.Node) bool {
					if call, ok := n.(*ast.CallExpr); ok && calledName(call) == "refusal.ClassOf" {
						wantAsserts = true
					}
					return !wantAsserts
				})
			}
		}
	}
	for _, files := range byDir {
		// Class-asserting functions of this directory's tests, to a fixpoint.
		asserting := map[string]bool{"refusal.ClassOf": true, "refusal.Of": true, "refusaltest.Want": wantAsserts}
		isAsserting := func(body ast.Node) bool {
			found := false
			ast.Inspect(body, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.CallExpr:
					found = found || asserting[calledName(n)]
				case *ast.BasicLit:
					found = found || n.Kind == token.STRING && strings.HasPrefix(strings.Trim(n.Value, "\"`"), "refused: ")
				}
				return !found
			})
			return found
		}
		wantFields := map[string]bool{} // table fields compared as classes
		for changed := true; changed; {
			changed = false
			for _, fl := range files {
				for _, d := range fl.f.Decls {
					if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil && fd.Recv == nil && !asserting[fd.Name.Name] && isAsserting(fd.Body) {
						asserting[fd.Name.Name], changed = true, true
					}
				}
			}
		}
		for _, fl := range files {
			sentinel := fl.sentinel
			for _, d := range fl.f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Body == nil || !isAsserting(fd.Body) {
					continue
				}
				ast.Inspect(fd.Body, func(n ast.Node) bool {
					switch n := n.(type) {
					case *ast.SelectorExpr:
						if n.Sel.Name == "Class" {
							asserted[sentinel(n.X)] = true
						}
					case *ast.BasicLit:
						if s, err := strconv.Unquote(n.Value); err == nil && n.Kind == token.STRING {
							asserted[s] = true
							if _, after, ok := strings.Cut(s, "refused: "); ok {
								c, _, _ := strings.Cut(after, ":")
								asserted[c] = true
							}
						}
					case *ast.CompositeLit:
						for _, el := range n.Elts {
							if kv, ok := el.(*ast.KeyValueExpr); ok {
								el = kv.Value
							}
							asserted[sentinel(el)] = true
						}
					case *ast.CallExpr:
						if asserting[calledName(n)] {
							for _, a := range n.Args {
								asserted[sentinel(a)] = true
								if sel, ok := a.(*ast.SelectorExpr); ok {
									wantFields[sel.Sel.Name] = true
								}
							}
						}
					}
					if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "Class" {
						if field, ok := sel.X.(*ast.SelectorExpr); ok {
							wantFields[field.Sel.Name] = true
						}
					}
					return true
				})
			}
		}
		// Tables: an element want: S (keyed, or in want's position), whose
		// field want is compared above.
		structs := map[string][]string{} // test-declared struct type -> field names
		for _, fl := range files {
			ast.Inspect(fl.f, func(n ast.Node) bool {
				if ts, ok := n.(*ast.TypeSpec); ok {
					if st, ok := ts.Type.(*ast.StructType); ok {
						structs[ts.Name.Name] = fieldNames(st)
					}
				}
				return true
			})
		}
		for _, fl := range files {
			ast.Inspect(fl.f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.KeyValueExpr:
					if k, ok := n.Key.(*ast.Ident); ok && wantFields[k.Name] {
						asserted[fl.sentinel(n.Value)] = true
					}
				case *ast.CompositeLit:
					var fields []string
					switch elt := n.Type.(type) {
					case *ast.ArrayType:
						switch et := elt.Elt.(type) {
						case *ast.StructType:
							fields = fieldNames(et)
						case *ast.Ident:
							fields = structs[et.Name]
						}
					}
					for _, row := range n.Elts {
						if row, ok := row.(*ast.CompositeLit); ok && row.Type == nil {
							for i, el := range row.Elts {
								if i < len(fields) && wantFields[fields[i]] {
									asserted[fl.sentinel(el)] = true
								}
							}
						}
					}
				}
				return true
			})
		}
	}
}

// fieldNames lists a struct type's fields in order.
func fieldNames(st *ast.StructType) []string {
	var out []string
	for _, f := range st.Fields.List {
		for _, n := range f.Names {
			out = append(out, n.Name)
		}
		if len(f.Names) == 0 {
			out = append(out, "")
		}
	}
	return out
}

type testFile struct {
	dir     string
	f       *ast.File
	imports map[string]string // local name -> directory relative to the module
}

// sentinel names the class of S or p.S as "dir\x00S" ("" for other
// expressions).
func (fl testFile) sentinel(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return fl.dir + "\x00" + e.Name
	case *ast.SelectorExpr:
		if x, ok := e.X.(*ast.Ident); ok && fl.imports[x.Name] != "" {
			return fl.imports[x.Name] + "\x00" + e.Sel.Name
		}
	}
	return ""
}

// TestScriptsAssertExitCodes: in every testscript, each `! exec obaudit`
// is followed (comments and blank lines aside) by `exitcode N`, since `!`
// alone cannot tell a refusal (1) from an answer-no (2), a usage error (64)
// or an I/O failure (70).
func TestScriptsAssertExitCodes(t *testing.T) {
	scripts, _ := filepath.Glob("cmd/obaudit/testdata/script/*.txtar")
	if len(scripts) == 0 {
		t.Fatal("no testscripts found")
	}
	neg := regexp.MustCompile(`^\s*(?:\[[^\]]*\]\s*)*! exec obaudit\b`)
	code := regexp.MustCompile(`^\s*(?:\[[^\]]*\]\s*)*exitcode [0-9]+$`)
	for _, f := range scripts {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		script, _, _ := strings.Cut(string(b), "\n-- ") // the script, not the archive's files
		lines := strings.Split(script, "\n")
		for i, l := range lines {
			if !neg.MatchString(l) {
				continue
			}
			j := i + 1
			for j < len(lines) && (strings.TrimSpace(lines[j]) == "" || strings.HasPrefix(strings.TrimSpace(lines[j]), "#")) {
				j++
			}
			if j == len(lines) || !code.MatchString(lines[j]) {
				t.Errorf("%s:%d: `! exec obaudit` is not followed by `exitcode N`", f, i+1)
			}
		}
	}
}

// TestNoAmbientNondeterminism: no wall clock, global randomness or
// environment reads below cmd/ (house style S6).
func TestNoAmbientNondeterminism(t *testing.T) {
	bad := regexp.MustCompile(`\btime\.(Now|Since|Until)\(|\brand\.(Int|Intn|Int63|Int31|Uint32|Uint64|Float64|Float32|Perm|Shuffle|Seed|N|IntN)\(|\bos\.(Getenv|LookupEnv|Environ)\(`)
	exempt := map[string]string{
		"internal/upstreamtest/upstreamtest.go": "test-only helper: reads OBAUDIT_REQUIRE_UPSTREAM for tests",
	}
	for _, f := range goFiles(t, false) {
		if strings.HasPrefix(filepath.ToSlash(f), "cmd/") || exempt[filepath.ToSlash(f)] != "" {
			continue
		}
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for n := 1; sc.Scan(); n++ {
			line := sc.Text()
			if trimmed := strings.TrimSpace(line); strings.HasPrefix(trimmed, "//") {
				continue
			}
			if bad.MatchString(line) {
				t.Errorf("%s:%d: ambient nondeterminism below cmd/: %s", f, n, strings.TrimSpace(line))
			}
		}
		fh.Close()
	}
}

type pkgInfo struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

func listPackages(t *testing.T) []pkgInfo {
	t.Helper()
	cmd := exec.Command("go", "list", "-e", "-json", "./...")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkgInfo
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p pkgInfo
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

func rel(p string) string {
	if p == module {
		return "."
	}
	return strings.TrimPrefix(p, module+"/")
}

// TestDependencyRules enforces the house style's layering (section 5): which
// project packages each package may import, and that sigstore-go is
// quarantined in artefact/sigstore (and its test-support subpackage
// sigstoretest, which only tests import).
func TestDependencyRules(t *testing.T) {
	leaves := []string{"canon", "refusal", "schemas", "arm/notimewire", "format/provexec", "format/decision", "format/fieldkind"}
	type rule struct {
		pkg    string   // package (prefix match when ending in "/")
		forbid []string // project packages (prefix match) it must not depend on
		why    string
	}
	rules := []rule{
		{"engine", []string{"domains", "evaluator", "execledger", "artefact", "bundle", "episode", "cmd"}, "the engine knows no domain and no storage"},
		{"evaluator", []string{"domains", "execledger", "artefact", "bundle", "episode", "cmd"}, "scores depend on records, never on pack internals"},
		{"execledger", []string{"engine", "domains", "evaluator", "artefact", "bundle", "episode", "cmd"}, "the ledger is content-agnostic"},
		{"artefact", []string{"engine", "domains", "evaluator", "execledger", "bundle", "episode", "cmd"}, "a format package"},
		{"bundle", []string{"engine", "domains", "evaluator", "episode", "cmd"}, "the verifier side never imports the writer side"},
		{"episode", []string{"domains", "cmd"}, "packs are passed in"},
		// stateful_time_removed: the compiler/runtime and the independent
		// verifier never import each other, nor the oracle or the evaluator.
		{"arm/notime", []string{"arm/notimeverify", "arm/pair", "commonoutcome", "evaluator", "domains", "cmd"}, "the compiler shares nothing with its verifier"},
		{"arm/notimeverify", []string{"arm/notime", "arm/pair", "commonoutcome", "evaluator", "domains", "cmd"}, "the verifier shares nothing with the compiler"},
		{"commonoutcome", []string{"arm/notime", "arm/notimeverify", "arm/pair", "evaluator", "engine", "domains", "cmd"}, "the oracle is independent of compiler and evaluator"},
	}
	// testSupport are the packages only tests import: sigstoretest (an
	// offline Sigstore), artefacttest (checked artefacts and the default
	// pack's cells), refusaltest (the class assertion) and schemaoracle
	// (the schema oracles' machinery, which links the JSON Schema library).
	testSupport := []string{"artefact/sigstore/sigstoretest", "internal/artefacttest", "internal/refusaltest", "internal/schemaoracle"}
	// Packages both arm/notime and arm/notimeverify depend on must be the
	// wire types or the engine core they both drive (and its own deps): no
	// third package may carry a derived partition, key, closure or
	// projection rule to both.
	notimeShared := []string{"arm/notimewire", "engine"}
	armDeps := map[string][]string{}
	for _, p := range listPackages(t) {
		r := rel(p.ImportPath)
		quarantine := r == "artefact/sigstore" || strings.HasPrefix(r, "artefact/sigstore/")
		var projectDeps []string
		sigstore := false
		for _, d := range p.Deps {
			if strings.HasPrefix(d, module+"/") {
				projectDeps = append(projectDeps, rel(d))
			}
			if strings.HasPrefix(d, "github.com/sigstore/sigstore-go") {
				sigstore = true
			}
		}
		if r == "arm/notime" || r == "arm/notimeverify" {
			armDeps[r] = projectDeps
		}
		if r == "engine" {
			notimeShared = append(notimeShared, projectDeps...)
		}
		for _, leaf := range leaves {
			if r == leaf {
				for _, d := range projectDeps {
					t.Errorf("%s is a standard-library-only leaf but depends on %s", r, d)
				}
			}
		}
		if r == "internal/limits" {
			for _, d := range projectDeps {
				if d != "refusal" {
					t.Errorf("internal/limits may import only refusal, not %s", d)
				}
			}
		}
		if r == "internal/jsonfield" {
			for _, d := range projectDeps {
				if d != "refusal" && d != "internal/instant" {
					t.Errorf("internal/jsonfield may import only refusal and internal/instant, not %s", d)
				}
			}
		}
		for _, ru := range rules {
			if r != ru.pkg && !strings.HasPrefix(r, ru.pkg+"/") {
				continue
			}
			if quarantine {
				continue // the quarantine: checked below
			}
			for _, d := range projectDeps {
				for _, f := range ru.forbid {
					if d == f || strings.HasPrefix(d, f+"/") {
						t.Errorf("%s must not depend on %s (%s)", r, d, ru.why)
					}
				}
			}
		}
		// sigstore-go: imported directly by the quarantine (artefact/sigstore
		// and its subpackages) only; only cmd and the quarantine itself may
		// link it. The test-support packages are imported by no non-test
		// code at all.
		for _, imp := range p.Imports {
			if strings.HasPrefix(imp, "github.com/sigstore/sigstore-go") && !quarantine {
				t.Errorf("%s imports %s; only artefact/sigstore may import sigstore-go", r, imp)
			}
			if slices.Contains(testSupport, rel(imp)) {
				t.Errorf("%s imports %s, a test-support package; only tests may", r, imp)
			}
		}
		if sigstore && !quarantine && !strings.HasPrefix(r, "cmd/") {
			t.Errorf("%s links sigstore-go transitively; keep it behind artefact/sigstore, wired only in cmd", r)
		}
	}
	for _, d := range armDeps["arm/notime"] {
		if slices.Contains(armDeps["arm/notimeverify"], d) && !slices.Contains(notimeShared, d) {
			t.Errorf("arm/notime and arm/notimeverify both depend on %s; only %v may be shared", d, notimeShared)
		}
	}
}

// TestPackBoundary keeps domain knowledge in its pack: no non-test package
// outside domains/ and cmd/ depends on a pack (or on the registry that
// names them), and no non-test Go file outside a pack spells one of the
// pack's own words (domains.Pack.Vocabulary: its operation type, its record
// types, its roles) as a string literal. The engine, the evaluator, the
// gate and the artefact reader are handed what they need through the
// registry.
func TestPackBoundary(t *testing.T) {
	// packBound are packages bound to one pack's operation by design. They
	// import no pack (the dependency half holds for them) but spell its
	// words, and say why.
	packBound := map[string]string{
		"arm/notime": "the stateful_time_removed arm is a second, timeless execution of the maintenance operation " +
			"(its compiler maps the operation's timer events and the engine's ask/escalate decisions to the operation's own types); " +
			"it is fed the spec by cmd and held to the full-lifecycle run by arm/pair and commonoutcome",
	}
	for _, p := range listPackages(t) {
		r := rel(p.ImportPath)
		// internal/artefacttest is test support (only _test files import it:
		// TestDependencyRules): it reads artefacts as cmd does, with
		// the registry cmd wires.
		if r == "domains" || strings.HasPrefix(r, "domains/") || strings.HasPrefix(r, "cmd/") || r == "internal/artefacttest" {
			continue
		}
		for _, d := range p.Deps {
			if d == module+"/domains" || strings.HasPrefix(d, module+"/domains/") {
				t.Errorf("%s depends on %s: a pack reaches the core only through the registry, wired in cmd", r, rel(d))
			}
		}
	}
	for _, pack := range domains.Packs() {
		dir := "domains/" + pack.Name + "/"
		words := map[string]bool{}
		for _, w := range pack.Vocabulary() {
			words[w] = true
		}
		if len(words) == 0 {
			t.Fatalf("pack %s publishes no vocabulary", pack.Name)
		}
		for _, f := range goFiles(t, false) {
			f = filepath.ToSlash(f)
			if strings.HasPrefix(f, dir) || packBound[filepath.Dir(f)] != "" {
				continue
			}
			fset := token.NewFileSet()
			file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(file, func(n ast.Node) bool {
				if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					if s, err := strconv.Unquote(lit.Value); err == nil && words[s] {
						t.Errorf("%s: %q is the %s pack's word; hand it over through the registry (domains.Pack)", fset.Position(lit.Pos()), s, pack.Name)
					}
				}
				return true
			})
		}
	}
}

// TestBinaryDeps keeps cmd/obaudit/deps.txt and deps-sigstore.txt, the
// lists of every package the two builds link (obaudit, and obaudit-sigstore:
// the obaudit_sigstore tag), in step (house style S2): adding a module is a
// visible diff. And it holds the line that keeps obaudit's start-up small:
// the default build links no sigstore-go, protobuf or gRPC package (they
// come with bundle verification, artefact/sigstore/sigverify) and no JSON
// Schema library (whose package init compiles its draft metaschemas: the
// published schemas run in obaudit-sigstore, and are the named checks'
// oracles in the tests).
func TestBinaryDeps(t *testing.T) {
	for _, build := range []struct{ tags, golden, name string }{
		{"", "cmd/obaudit/deps.txt", "obaudit"},
		{"obaudit_sigstore", "cmd/obaudit/deps-sigstore.txt", "obaudit-sigstore"},
	} {
		out, err := exec.Command("go", "list", "-tags", build.tags, "-deps", "./cmd/obaudit").Output()
		if err != nil {
			t.Fatalf("go list -deps: %v", err)
		}
		var b bytes.Buffer
		fmt.Fprintf(&b, "# Packages linked into %s (generated: go test . -run TestBinaryDeps -update).\n", build.name)
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		slices.Sort(lines)
		for _, l := range lines {
			if first, _, _ := strings.Cut(l, "/"); strings.Contains(first, ".") { // non-standard-library packages
				b.WriteString(l + "\n")
			}
			if build.tags == "" && (strings.HasPrefix(l, "github.com/sigstore/sigstore-go/") || strings.HasPrefix(l, "google.golang.org/protobuf/") ||
				strings.HasPrefix(l, "google.golang.org/grpc") || l == "github.com/obaudit/obaudit/artefact/sigstore/sigverify") {
				t.Errorf("the default build links %s: Sigstore bundle verification belongs to obaudit-sigstore (-tags obaudit_sigstore)", l)
			}
			if build.tags == "" && (strings.HasPrefix(l, "github.com/santhosh-tekuri/jsonschema") || l == "github.com/obaudit/obaudit/internal/offlineschema") {
				t.Errorf("the default build links %s: the published JSON Schemas run in obaudit-sigstore (-tags obaudit_sigstore); the named checks are the validator", l)
			}
		}
		checkGolden(t, build.golden, b.Bytes(), "TestBinaryDeps")
	}
}

// TestReadmeCommands: the README opens with exactly two commands for a fresh
// machine (the main job, then the tests), and .ci/run calls the README's
// test command verbatim.
func TestReadmeCommands(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	open := strings.Index(s, "```sh\n")
	if open < 0 || strings.TrimSpace(s[:open]) != "# obaudit" {
		t.Fatalf("README.md must open with its title and then a sh block")
	}
	body, _, ok := strings.Cut(s[open+len("```sh\n"):], "```")
	if !ok {
		t.Fatal("README.md's first sh block is not closed")
	}
	lines := strings.Split(strings.TrimSpace(body), "\n")
	want := []string{"go run ./cmd/obaudit check", "go test ./..."}
	if !slices.Equal(lines, want) {
		t.Fatalf("README.md opens with %q, want %q", lines, want)
	}
	ci, err := os.ReadFile(".ci/run")
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, l := range strings.Split(string(ci), "\n") {
		if strings.TrimSpace(l) == want[1] {
			found = true
		}
	}
	if !found {
		t.Fatalf(".ci/run does not run the README's test command %q on a line of its own", want[1])
	}
}
