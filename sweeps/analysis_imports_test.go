package sweeps

import (
	"os/exec"
	"strings"
	"testing"
)

// analysis' own tests stay pure and fast: a test that needs a reader
// (ingest) lives here. imports_test.go checks the packages; this checks the
// tests, which go list reports apart.
func TestAnalysisTestsImportNoReader(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.TestImports}} {{.XTestImports}}", "spikescope/analysis").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, p := range strings.Fields(strings.NewReplacer("[", " ", "]", " ").Replace(string(out))) {
		if p == "spikescope/ingest" || strings.HasPrefix(p, "spikescope/ingest/") {
			t.Errorf("analysis tests import %s: move the test to sweeps/", p)
		}
	}
	if !strings.Contains(string(out), "spikescope/testdata/synth") {
		t.Errorf("go list gave %q: the analysis tests' imports were not read", out)
	}
}
