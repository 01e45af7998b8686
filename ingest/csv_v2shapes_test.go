package ingest

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"spikescope/model"
	"spikescope/testdata/synth"
)

// monitorRowSet lists every row of d as text (rank, step, micro, target,
// vpp, metric, the four statistics), sorted: two loads read the same data
// when their sets are equal.
func monitorRowSet(d *model.MonitorData) []string {
	out := make([]string, 0, d.Rows.Len())
	for i := range d.Rows.Len() {
		tg := d.Targets[d.Rows.TargetOf(i)]
		s := fmt.Sprintf("%d/%d/%d/%s/%d/%s", d.Rows.RankOf(i), d.Rows.Step[i], d.Rows.MicroOf(i), tg.Name, tg.VPPStage, d.Metrics[d.Rows.MetricOf(i)])
		for st := model.Stat(0); st < model.NumStats; st++ {
			v := d.Rows.Value(st, i)
			if math.IsNaN(v) {
				s += "/nan"
			} else {
				s += fmt.Sprintf("/%g", v)
			}
		}
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// msprobe's monitor v2 writer (core/monitor_v2/writer.py) fixes a slug's
// header when its first file is created and widens the header of the next
// new file when rows bring new keys; a step that is not an integer puts the
// rows in "<slug>.csv". Both trees read exactly the rows of the plain
// one-file-per-step tree, in memory and out of core, with no warning, and
// the format is found from the folder.
func TestCSVv2WriterShapes(t *testing.T) {
	cfg := synth.DefaultConfig()
	run := synth.Generate(cfg)
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain")
	if err := run.WriteCSVTreeV2For(plain, synth.Anomalous); err != nil {
		t.Fatal(err)
	}
	ref, err := LoadMonitor(context.Background(), plain, model.FormatAuto, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := monitorRowSet(ref)
	if len(want) == 0 {
		t.Fatal("plain tree: no rows")
	}
	for _, c := range []struct {
		name string
		f    synth.V2Files
	}{{"wider", synth.V2Files{ExtraFrom: 3}}, {"onefile", synth.V2Files{OneFile: true}}} {
		p := filepath.Join(dir, c.name)
		if err := run.WriteCSVTreeV2Files(p, synth.Anomalous, c.f); err != nil {
			t.Fatal(err)
		}
		if c.name == "wider" { // the shape the case is about is on disk
			h0 := firstLine(t, filepath.Join(p, "rank_0", fmt.Sprintf("weight_grad_step%d-%d.csv", cfg.FirstStep, cfg.FirstStep)))
			h3 := firstLine(t, filepath.Join(p, "rank_0", fmt.Sprintf("weight_grad_step%d-%d.csv", cfg.FirstStep+3, cfg.FirstStep+3)))
			if h0 == h3 || !strings.HasPrefix(h3, h0+",") {
				t.Fatalf("headers %q / %q: the later file should be the earlier one widened", h0, h3)
			}
		} else if _, err := os.Stat(filepath.Join(p, "rank_0", "weight_grad.csv")); err != nil {
			t.Fatal(err)
		}
		if f, err := DetectFormat(p); err != nil || f != model.FormatCSV {
			t.Fatalf("%s: format %q, %v", c.name, f, err)
		}
		for _, oc := range []bool{false, true} {
			var d *model.MonitorData
			if oc {
				d, err = LoadMonitorOutOfCore(context.Background(), p, model.FormatAuto, nil, OutOfCore{Dir: t.TempDir(), ChunkRows: 500, BucketRows: 3000})
			} else {
				d, err = LoadMonitor(context.Background(), p, model.FormatAuto, nil)
			}
			if err != nil {
				t.Fatalf("%s (out of core %v): %v", c.name, oc, err)
			}
			if len(said(d.WarningsReasons)) > 0 {
				t.Errorf("%s (out of core %v): warnings %q", c.name, oc, said(d.WarningsReasons))
			}
			got := monitorRowSet(d)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				n := 0
				for n < len(got) && n < len(want) && got[n] == want[n] {
					n++
				}
				t.Errorf("%s (out of core %v): %d rows, want %d; first difference at %d", c.name, oc, len(got), len(want), n)
			}
			if d.MicroBase(d.MetricIndex("grad_unreduced")) != 1 {
				t.Errorf("%s: grad_unreduced micro steps should stay 1-based as written", c.name)
			}
		}
	}
}

func firstLine(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	return line
}

// CSVWriterV2 writes a row through a csv.DictWriter whose header is the
// slug's: a row without a key of the header gets an empty cell (restval),
// and a key the header lacks is dropped. A module file whose header has
// micro_step (the first rows had it) and rows without one reads those rows
// without a micro step, not as bad lines; a "<slug>.csv" given as a file
// reads as v2 without a name warning; a "<slug>.csv" in a v1 or dump rank
// folder is not taken for a monitor file.
func TestCSVv2EmptyCellsAndSlugFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "rank_2", "module.csv")
	writeMonFile(t, p, "vpp_stage,step,module_name,scope,micro_step,min,max,mean,norm\n"+
		"0,7,0:module.decoder.layers.0.mlp,forward,0,-1.0,1.0,0.0,3.5\n"+
		"0,7,0:module.decoder.layers.0.mlp,backward,,-2.0,2.0,0.0,4.5\n"+
		"1,8,1:module.decoder.layers.0.mlp,backward,,-2.0,2.0,0.0,5.5\n")
	for _, path := range []string{p, filepath.Dir(p)} {
		d, err := LoadCSV(context.Background(), path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(said(d.WarningsReasons)) > 0 {
			t.Errorf("%s: warnings %q", path, said(d.WarningsReasons))
		}
		if got := strings.Join(d.Metrics, ","); got != "actv,actv_grad" {
			t.Errorf("%s: metrics %s (the slug names them)", path, got)
		}
		f := rowWithMicro(t, d, 2, 7, 0, "module.decoder.layers.0.mlp", "actv")
		assertMonVal(t, "forward", d.Rows.Value(model.StatNorm, f), 3.5)
		b := rowWithMicro(t, d, 2, 7, model.NoMicro, "module.decoder.layers.0.mlp", "actv_grad")
		assertMonVal(t, "backward, empty micro_step", d.Rows.Value(model.StatNorm, b), 4.5)
		c := rowWithMicro(t, d, 2, 8, model.NoMicro, "module.decoder.layers.0.mlp", "actv_grad")
		if d.Targets[d.Rows.TargetOf(c)].VPPStage != 1 {
			t.Errorf("chunk 1 row: target %+v", d.Targets[d.Rows.TargetOf(c)])
		}
	}
	// negative: the same file in a dump's rank folder or a v1 run folder
	for _, sub := range []string{"rank0", "Dec02_06-02-50-rank0-22dcb42b"} {
		if _, _, _, _, ok := parseCSVNameIn("module.csv", sub); ok {
			t.Errorf("module.csv in %s taken for a monitor v2 file", sub)
		}
	}
}
