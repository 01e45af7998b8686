package main

import (
	"bytes"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The layout's import rules (docs/architecture.md, issue 11), from `go
// list` of every package's imports (tests excluded, as in the issue): the pipeline
// is the only package that joins the readers (ingest) and the method
// (analysis), and main imports neither; the TUI reaches both only through the pipeline; and
// nothing outside ui/ depends on the TUI.
func TestImportRules(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}: {{.Imports}}", "./...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	const mod = "spikescope"
	isUI := func(p string) bool { return p == mod+"/ui" || strings.HasPrefix(p, mod+"/ui/") }
	var both []string
	seen := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, rest, ok := strings.Cut(line, ": ")
		if !ok {
			t.Fatalf("go list line %q", line)
		}
		seen++
		imports := strings.Fields(strings.NewReplacer("[", " ", "]", " ").Replace(rest))
		has := func(p string) bool { return slices.Contains(imports, p) }
		if pkg != mod && has(mod+"/ingest") && has(mod+"/analysis") {
			both = append(both, pkg)
		}
		// main holds flags and printing: it calls the pipeline (and
		// outfile for -o, cliflags for the shared flags), nothing else
		if pkg == mod {
			for _, p := range imports {
				if strings.HasPrefix(p, mod+"/") && !slices.Contains(mainMayImport, strings.TrimPrefix(p, mod+"/")) {
					t.Errorf("main imports %s: it calls only %v (a face reaches the rest through the pipeline)", p, mainMayImport)
				}
			}
		}
		// Sentences are made from reasons in words, never by the rules
		// (analysis) or the readers (ingest); words says only model's data.
		if (pkg == mod+"/analysis" || pkg == mod+"/ingest") && has(mod+"/words") {
			t.Errorf("%s imports words: a rule or a reader returns reasons, the faces say them", pkg)
		}
		if pkg == mod+"/words" {
			for _, p := range imports {
				if strings.HasPrefix(p, mod+"/") && p != mod+"/model" {
					t.Errorf("words imports %s: it renders model's reasons only", p)
				}
			}
		}
		if isUI(pkg) && (has(mod+"/ingest") || has(mod+"/analysis")) {
			t.Errorf("%s imports ingest or analysis: the TUI goes through the pipeline", pkg)
		}
		if !isUI(pkg) && pkg != mod {
			for _, p := range imports {
				if isUI(p) {
					t.Errorf("%s imports %s: only main may depend on the TUI", pkg, p)
				}
			}
		}
	}
	if seen < 6 {
		t.Fatalf("go list saw %d packages:\n%s", seen, out)
	}
	if !slices.Equal(both, []string{mod + "/pipeline"}) {
		t.Errorf("packages besides main importing both ingest and analysis: %v, want only %s/pipeline", both, mod)
	}
}

// mainMayImport are the spikescope packages main imports: the pipeline,
// outfile (-o and stdout), cliflags (the flags several commands share) and
// ui, by a blank import only (mainLinksUIOnly).
var mainMayImport = []string{"pipeline", "outfile", "cliflags", "ui"}

// main links the terminal UI in and never calls it: the UI imports the
// pipeline (its backend), so main starts it through pipeline.RunTUI, which
// package ui sets from its init (the blank import is what runs that init).
func TestMainLinksUIOnly(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	blank := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range f.Imports {
			if path, _ := strconv.Unquote(im.Path.Value); path == "spikescope/ui" {
				if im.Name == nil || im.Name.Name != "_" {
					t.Errorf("%s imports spikescope/ui by name: main starts the UI through pipeline.RunTUI", name)
				}
				blank++
			}
		}
	}
	if blank != 1 {
		t.Errorf("main imports spikescope/ui %d times, want one blank import (the UI's init sets pipeline.RunTUI)", blank)
	}
}

// main holds flags and printing (docs/architecture.md): its non-test Go
// files stay within 900 lines; what grows past that is work for pipeline.
func TestMainStaysSmall(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	lines, counted := 0, 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines += bytes.Count(b, []byte("\n"))
		counted++
	}
	if counted < 3 || lines > 900 {
		t.Errorf("package main: %d lines in %d non-test files, want at most 900", lines, counted)
	}
}
