package report_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"spikescope/pipeline"
	"spikescope/report"
	"spikescope/testdata/synth"
)

// The held-out-like runs, analysed by the pipeline from files, fit a
// ticket in both languages: the first 1,000 px at 1,280 px wide hold the
// verdict and its plots, and the folded page is under 3,000 px — monitor
// data with and without the baseline device's, dumps only (A/B and
// A/B/C/D), a NaN fault, PP×VPP, and a run with noise only.
func TestBrowserHeldOutRunsFitATicket(t *testing.T) {
	if testing.Short() {
		t.Skip("writes synthetic runs and starts a browser")
	}
	chromium := report.ChromiumPath(t)
	type run struct {
		inputs  func(t *testing.T) pipeline.Inputs
		figures int // plots the answer must show at least
	}
	demo := func(what string) func(t *testing.T) pipeline.Inputs {
		return func(t *testing.T) pipeline.Inputs { return demoInputs(t, synth.Generate(synth.DefaultConfig()), what) }
	}
	sweep := func(s synth.Sweep) func(t *testing.T) pipeline.Inputs {
		return func(t *testing.T) pipeline.Inputs {
			p := filepath.Join(t.TempDir(), "trend.db")
			if err := synth.GenerateSweep(s).WriteTrendDB(p, 0, true); err != nil {
				t.Fatal(err)
			}
			return pipeline.Inputs{Path: p}
		}
	}
	noise := func(t *testing.T) pipeline.Inputs {
		c := synth.DefaultConfig()
		c.Window, c.OptSteps, c.NoFault = 1, 14, true
		return demoInputs(t, synth.Generate(c), "monitor")
	}
	runs := map[string]run{
		"monitor":          {demo("monitor"), 3},
		"monitor+baseline": {demo("monitor+baseline"), 3},
		"dumps A/B":        {demo("ab"), 3},
		"dumps A/B/C/D":    {demo("abcd"), 3},
		"NaN":              {sweep(synth.SweepWith("nan", func(c *synth.Sweep) { c.Fault.NaN = true })), 3},
		"PP×VPP":           {sweep(synth.SweepWith("pp2-vpp2", func(c *synth.Sweep) { c.PP = 2; c.VPP = 2 })), 3},
		"noise only":       {noise, 0},
	}
	var names, pages []string
	var figures []int
	for name, r := range runs {
		s, err := pipeline.Load(context.Background(), r.inputs(t), nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, lang := range []string{"en", "zh"} {
			page := report.RenderHTML(s.ReportInput(), lang)
			if keep := os.Getenv("SPIKESCOPE_KEEP_HTML"); keep != "" { // to look at them
				os.WriteFile(filepath.Join(keep, strings.NewReplacer(" ", "_", "/", "", "×", "x").Replace(name)+"_"+lang+".html"), []byte(page), 0o644)
			}
			names, pages, figures = append(names, name+" "+lang), append(pages, page), append(figures, r.figures)
		}
	}
	for i, l := range report.MeasureHTML(t, chromium, pages) {
		report.CheckFitsTicket(t, names[i], l, figures[i])
	}
}

// demoInputs writes the files of a synthetic run for one input set.
func demoInputs(t *testing.T, r *synth.Run, what string) pipeline.Inputs {
	t.Helper()
	dir := t.TempDir()
	mon := func(dev synth.Device) string {
		p := filepath.Join(dir, dev.String(), "trend.db")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := r.WriteTrendDBFor(p, dev); err != nil {
			t.Fatal(err)
		}
		return p
	}
	dumps := func(dev synth.Device) string {
		p := filepath.Join(dir, dev.String(), "dump")
		if err := r.WriteDumps(p, dev); err != nil {
			t.Fatal(err)
		}
		return p
	}
	at := func(root string, rank int) string {
		return filepath.Join(root, "step"+strconv.Itoa(r.Cfg.Fault.OptStep), "rank"+strconv.Itoa(rank))
	}
	var in pipeline.Inputs
	switch what {
	case "monitor":
		in.Path = mon(synth.Anomalous)
	case "monitor+baseline":
		in.Path, in.Baseline = mon(synth.Anomalous), mon(synth.Baseline)
	case "ab":
		in.DumpA, in.DumpB = at(dumps(synth.Anomalous), r.Cfg.Fault.Rank), at(dumps(synth.Baseline), r.Cfg.Fault.Rank)
	case "abcd":
		a, b := dumps(synth.Anomalous), dumps(synth.Baseline)
		c := r.Cfg.ControlRanks[0]
		in.DumpA, in.DumpB, in.DumpC, in.DumpD = at(a, r.Cfg.Fault.Rank), at(b, r.Cfg.Fault.Rank), at(a, c), at(b, c)
	default:
		t.Fatalf("unknown inputs %q", what)
	}
	return in
}
