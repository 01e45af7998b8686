package report

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// tdCell is one HTML table cell.
var tdCell = regexp.MustCompile(`<td>([^<]*)</td>`)

// No table of any report (every golden, Markdown and HTML, both languages)
// has a cell that is only "-": an empty cell says why ("none", "no spike",
// "unaligned", "no control", "not given"), as the TUI does, so that no
// reader takes it for a number or a minus sign.
func TestNoDashCells(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.golden*")
	if len(files) < 10 {
		t.Fatalf("%d golden files", len(files))
	}
	cells := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for n, line := range strings.Split(string(b), "\n") {
			var cs []string
			switch {
			case strings.HasSuffix(f, ".html"):
				for _, m := range tdCell.FindAllStringSubmatch(line, -1) {
					cs = append(cs, m[1])
				}
			case strings.HasPrefix(line, "|") && strings.Trim(line, "|- ") != "":
				cs = strings.Split(strings.Trim(line, "|"), "|")
			}
			for _, c := range cs {
				cells++
				if strings.TrimSpace(c) == "-" {
					t.Errorf("%s:%d: a cell of \"-\": %s", f, n+1, line)
					break
				}
			}
		}
	}
	if cells < 500 {
		t.Fatalf("only %d table cells read: the check reads nothing", cells)
	}
}

// The Phase 3 layer table says which group a missing value lacks: an
// unaligned layer's A/B cells "unaligned", a run without a control group
// its C/D cells "no control".
func TestMissingCellsSayWhy(t *testing.T) {
	out := Render(noControlInput(), "en")
	if !strings.Contains(out, "| decoder.layers.1 | unaligned | unaligned | no control | no control | unaligned | no control | unaligned |") {
		t.Errorf("no-control report's unaligned layer row:\n%s", out)
	}
	if !strings.Contains(out, "| C | nearby normal | not given |") {
		t.Errorf("no-control report's group table")
	}
}
