package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// -o FILE.html writes the HTML report, -o FILE.md and stdout stay
// Markdown, --as picks for stdout, and a wrong --as is a usage error.
func TestReportFormatByExtensionAndAs(t *testing.T) {
	p1, p2 := savedResults(t)
	dir := t.TempDir()
	isHTML := func(s string) bool { return strings.HasPrefix(s, "<!DOCTYPE html>") }
	for _, c := range []struct {
		args []string
		file string // "" = stdout
		html bool
	}{
		{[]string{"-o", filepath.Join(dir, "r.html")}, "r.html", true},
		{[]string{"-o", filepath.Join(dir, "R.HTM")}, "R.HTM", true},
		{[]string{"-o", filepath.Join(dir, "r.md")}, "r.md", false},
		{[]string{"--as", "md", "-o", filepath.Join(dir, "md.html")}, "md.html", false},
		{nil, "", false},
		{[]string{"--as", "html"}, "", true},
	} {
		var stdout, stderr bytes.Buffer
		args := append([]string{"report", "--phase1", p1, "--phase2", p2, "--lang", "en"}, c.args...)
		if code := run(args, &stdout, &stderr); code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, stderr.String())
		}
		got := stdout.String()
		if c.file != "" {
			b, err := os.ReadFile(filepath.Join(dir, c.file))
			if err != nil {
				t.Fatal(err)
			}
			got = string(b)
		}
		if isHTML(got) != c.html || !strings.Contains(got, "Spike root-cause report") {
			t.Errorf("%v: html %v, want %v: %.80q", c.args, isHTML(got), c.html, got)
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"report", "--phase1", p1, "--as", "pdf"}, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "--as must be md or html") {
		t.Errorf("--as pdf: exit %d, stderr %q", code, stderr.String())
	}
}
