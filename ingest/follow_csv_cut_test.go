package ingest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"spikescope/model"
)

// A job's write may stop anywhere: inside the header of a new file, inside
// a multi-byte character of a name, between the "\r" and "\n" of a CRLF
// line. Each poll reads the complete lines only: no row is lost, none is
// read twice, nothing is reported as a bad line, and the names come out
// whole; with a byte-order mark before the header too.
func TestFollowCSVCutAnywhere(t *testing.T) {
	for _, bom := range []string{"", "\ufeff"} { // Excel's byte-order mark at the file start
		followCutAnywhere(t, bom+strings.ReplaceAll(followHeader, "\n", "\r\n"))
	}
}

func followCutAnywhere(t *testing.T, header string) {
	body := header + "0,层.w,0,0,0,0,0,1\r\n0,层.w,1,0,0,0,0,2\r\n0,层.v,1,0,0,0,0,3\r\n"
	for cut := 1; cut < len(body); cut++ {
		root := t.TempDir()
		r0 := filepath.Join(root, "rank_0")
		os.MkdirAll(r0, 0o755)
		appendFile(t, filepath.Join(r0, "grad_unreduced_0-0.csv"), header+"0,w,0,0,0,0,0,9\r\n")
		f, err := FollowMonitor(context.Background(), root, model.FormatCSV, nil)
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(r0, "grad_unreduced_1-1.csv")
		appendFile(t, file, body[:cut])
		p1 := poll(t, f)
		appendFile(t, file, body[cut:])
		p2 := poll(t, f)
		if w := append(said(p1.Warnings), said(p2.Warnings)...); len(w) > 0 {
			t.Fatalf("cut at byte %d (%q|%q): warnings %q", cut, body[max(0, cut-3):cut], body[cut:min(len(body), cut+3)], w)
		}
		d := f.Data()
		if got := norms(d); len(got) != 4 || got[1] != 1 || got[2] != 2 || got[3] != 3 {
			t.Fatalf("cut at byte %d: norms %v, want [9 1 2 3]", cut, got)
		}
		var names []string
		for _, g := range d.Targets {
			names = append(names, g.Name)
		}
		if strings.Join(names, " ") != "w 层.w 层.v" {
			t.Fatalf("cut at byte %d: targets %q", cut, names)
		}
	}
}
