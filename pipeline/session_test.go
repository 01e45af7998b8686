package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"spikescope/analysis"
	"spikescope/ingest"
	"spikescope/model"
	"spikescope/report"
)

var update = flag.Bool("update", false, "rewrite the demo report golden files in ../report/testdata/")

const demoDir = "../testdata/demo"

// truth is the planted answer of the demo run (testdata/demo/TRUTH.json).
type truth struct {
	OptStep   int    `json:"fault_optimizer_step"`
	MicroStep int    `json:"fault_micro_step"`
	Rank      int    `json:"fault_rank"`
	Layer     int    `json:"fault_layer"`
	Parameter string `json:"parameter"`
	Operator  string `json:"planted_operator"`
	DumpA     string `json:"dump_a"`
	DumpB     string `json:"dump_b"`
	DumpC     string `json:"dump_c"`
	DumpD     string `json:"dump_d"`
	FwdLayer  int    `json:"expected_fwd_divergence_layer"`
	BwdLayer  int    `json:"expected_bwd_divergence_layer"`
}

func readTruth(t *testing.T) truth {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(demoDir, "TRUTH.json"))
	if err != nil {
		t.Fatal(err)
	}
	var tr truth
	if err := json.Unmarshal(b, &tr); err != nil {
		t.Fatal(err)
	}
	return tr
}

// demoInputs is the full demo run: both devices' trend.db and dump trees.
func demoInputs() Inputs { return DemoInputs(demoDir) }

var (
	demoOnce       sync.Once
	demoSession    *Session
	demoErr        error
	demoInputsSeen map[string]bool
)

// loadDemo loads the demo once for all tests (they must not modify it).
func loadDemo(t *testing.T) *Session {
	t.Helper()
	demoOnce.Do(func() {
		var mu sync.Mutex
		demoInputsSeen = map[string]bool{}
		demoSession, demoErr = Load(context.Background(), demoInputs(), func(p model.Progress) {
			mu.Lock()
			demoInputsSeen[p.Input] = true
			mu.Unlock()
		})
	})
	if demoErr != nil {
		t.Fatal(demoErr)
	}
	return demoSession
}

func checkRoot(t *testing.T, c *model.Coordinate, opt, ms, rank int, param string) {
	t.Helper()
	if c == nil {
		t.Fatal("no root-cause coordinate")
	}
	if c.OptimizerStep == nil || *c.OptimizerStep != opt || c.MicroStep == nil || *c.MicroStep != ms || c.Rank != rank || c.TargetName != param {
		t.Errorf("root = opt %v ms %v rank %d %q, want opt %d ms %d rank %d %q",
			deref(c.OptimizerStep), deref(c.MicroStep), c.Rank, c.TargetName, opt, ms, rank, param)
	}
}

func deref(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

func TestLoadDemoFindsThePlantedFault(t *testing.T) {
	tr := readTruth(t)
	s := loadDemo(t)
	if s.P1 == nil || len(s.P1.Anomalies) == 0 {
		t.Fatal("no Phase 1 candidates")
	}
	first := s.P1.Anomalies[0]
	if first.OptStep() != tr.OptStep || first.Micro() != tr.MicroStep || first.Rank != tr.Rank || first.TargetName != tr.Parameter {
		t.Errorf("first candidate opt %d ms %d rank %d %q, want the planted opt %d ms %d rank %d %q",
			first.OptStep(), first.Micro(), first.Rank, first.TargetName, tr.OptStep, tr.MicroStep, tr.Rank, tr.Parameter)
	}
	if s.P1Baseline == nil {
		t.Error("no baseline Phase 1")
	}
	checkRoot(t, s.P2.RootCauseCoordinate, tr.OptStep, tr.MicroStep, tr.Rank, tr.Parameter)
	if s.P2.Pinned {
		t.Error("unpinned session says pinned")
	}
	for name, c := range map[string]struct {
		d    *model.Dump
		want string
	}{"A": {s.A, tr.DumpA}, "B": {s.B, tr.DumpB}, "C": {s.C, tr.DumpC}, "D": {s.D, tr.DumpD}} {
		if c.d == nil || !strings.HasSuffix(filepath.ToSlash(c.d.Path), c.want) {
			t.Errorf("%s = %v, want %s", name, c.d, c.want)
		}
	}
	if s.P3 == nil {
		t.Fatal("Phase 3 did not run")
	}
	ds := s.P3.DivergenceSummary
	if ds.EarliestFwdDivergence == nil || *ds.EarliestFwdDivergence != tr.FwdLayer {
		t.Errorf("earliest forward divergence %v, want L%d", deref(ds.EarliestFwdDivergence), tr.FwdLayer)
	}
	if ds.EarliestBwdDivergence == nil || *ds.EarliestBwdDivergence != tr.BwdLayer {
		t.Errorf("earliest backward divergence %v, want L%d", deref(ds.EarliestBwdDivergence), tr.BwdLayer)
	}
	if ds.Drilldown == nil || ds.Drilldown.Operator != tr.Operator {
		t.Errorf("drill-down %+v, want %s", ds.Drilldown, tr.Operator)
	}
	if len(s.Missing) != 0 {
		t.Errorf("full demo reports missing data: %+v", s.Missing)
	}
	// Progress named every input.
	for _, p := range []string{demoInputs().Path, demoInputs().Baseline, demoInputs().DumpA, demoInputs().DumpB} {
		if !demoInputsSeen[p] {
			t.Errorf("no progress report for %s (saw %v)", p, demoInputsSeen)
		}
	}
}

func TestWithPinRerunsPhase2And3(t *testing.T) {
	tr := readTruth(t)
	s := loadDemo(t)
	// Pin the control rank of the same step: Phase 2 follows the pin, A
	// moves to that rank's dump and Phase 3 finds no divergence there.
	cRank := 5
	pin := &model.Coord{OptStep: model.IntPtr(tr.OptStep), MicroStep: model.IntPtr(tr.MicroStep), Rank: model.IntPtr(cRank), Param: tr.Parameter}
	p, err := s.WithPin(pin)
	if err != nil {
		t.Fatal(err)
	}
	if !p.P2.Pinned || p.P2.RootCauseCoordinate == nil || p.P2.RootCauseCoordinate.Rank != cRank {
		t.Fatalf("pinned P2 = %+v", p.P2.RootCauseCoordinate)
	}
	if !p.In.Pin.Equal(pin) || pin.Param != tr.Parameter {
		t.Errorf("In.Pin = %q, want %q (the pin as given)", p.In.Pin, pin)
	}
	if p.A == nil || p.A.Rank != cRank || p.A.Step != tr.OptStep {
		t.Fatalf("pinned A = %+v", p.A)
	}
	if p.P3 == nil || p.P3 == s.P3 {
		t.Fatal("Phase 3 not re-run under the pin")
	}
	if !strings.HasSuffix(filepath.ToSlash(p.P3.Dirs["A"]), "npu/dump/step5/rank5") {
		t.Errorf("pinned Phase 3 A = %s", p.P3.Dirs["A"])
	}
	if p.C != nil && p.C.Rank == tr.Rank && p.C.Step == tr.OptStep {
		t.Errorf("the planted fault's dump was chosen as the control group")
	}
	if p.P1 != s.P1 {
		t.Error("WithPin recomputed Phase 1")
	}
	// The parent is untouched, and unpinning gives its answer back.
	if s.P2.Pinned || s.A.Rank != tr.Rank {
		t.Error("WithPin changed its parent session")
	}
	u, err := p.WithPin(nil)
	if err != nil {
		t.Fatal(err)
	}
	checkRoot(t, u.P2.RootCauseCoordinate, tr.OptStep, tr.MicroStep, tr.Rank, tr.Parameter)
	if u.P2.Pinned || u.In.Pin != nil {
		t.Error("unpinned copy still pinned")
	}
	if u.P3 == nil || u.P3.DivergenceSummary.Drilldown == nil || u.P3.DivergenceSummary.Drilldown.Operator != tr.Operator {
		t.Error("unpinned Phase 3 lost the planted operator")
	}
	// A pin that matches no data is bad input on --pin.
	_, err = s.WithPin(&model.Coord{OptStep: model.IntPtr(99), Rank: model.IntPtr(0)})
	var ie *ingest.InputError
	if !errors.As(err, &ie) || ie.Path != "--pin" {
		t.Errorf("pin on no data: err %v, want an InputError on --pin", err)
	}
}

func TestWithControlUsesTheUsersSample(t *testing.T) {
	s := loadDemo(t)
	c, err := s.WithControl(4, 3)
	if err != nil {
		t.Fatal(err)
	}
	if c.C == nil || c.C.Step != 4 || c.C.Rank != 3 || !strings.HasSuffix(filepath.ToSlash(c.C.Path), "npu/dump/step4/rank3") {
		t.Fatalf("C = %+v", c.C)
	}
	if c.D == nil || !strings.HasSuffix(filepath.ToSlash(c.D.Path), "gpu/dump/step4/rank3") {
		t.Fatalf("D = %+v", c.D)
	}
	if c.P3 == nil || !strings.HasSuffix(filepath.ToSlash(c.P3.Dirs["C"]), "npu/dump/step4/rank3") {
		t.Fatalf("Phase 3 not re-run with the user's C")
	}
	if !strings.Contains(c.P3.ControlChoice, "user") {
		t.Errorf("control note %q does not say the user chose C", c.P3.ControlChoice)
	}
	if s.C == c.C {
		t.Error("WithControl changed its parent session")
	}
	if len(c.Control.Candidates) != len(s.Control.Candidates) || len(c.Control.Candidates) == 0 {
		t.Errorf("WithControl dropped the control candidates (%d, parent %d)", len(c.Control.Candidates), len(s.Control.Candidates))
	}
	if _, err := s.WithControl(7, 3); err == nil {
		t.Error("a control at a step without dump was accepted")
	}
}

func TestMissingInputsAreReportedNotErrors(t *testing.T) {
	tr := readTruth(t)
	// Monitor only: no baseline, no dumps.
	s, err := Load(context.Background(), Inputs{Path: filepath.Join(demoDir, "npu", "trend.db")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.P1 == nil || s.P2 == nil || s.P3 != nil || s.P1Baseline != nil {
		t.Fatalf("P1 %v P2 %v P3 %v P1B %v", s.P1 != nil, s.P2 != nil, s.P3 != nil, s.P1Baseline != nil)
	}
	checkRoot(t, s.P2.RootCauseCoordinate, tr.OptStep, tr.MicroStep, tr.Rank, tr.Parameter)
	whats := map[string]model.Missing{}
	for _, m := range s.Missing {
		whats[m.What] = m
	}
	if _, ok := whats["baseline device's monitor data (Phase 2)"]; !ok {
		t.Errorf("no missing baseline in %+v", s.Missing)
	}
	d, ok := whats["dump statistics (Phase 3 not run)"]
	if !ok || !strings.Contains(d.Next, "dump A at step 5 on rank 3") || d.ZhNext == "" {
		t.Errorf("missing dumps entry %+v", d)
	}

	// A and B given, but no C candidate and no C/D: Phase 3 runs degraded
	// and the control group is reported missing with where to dump it.
	s, err = Load(context.Background(), Inputs{
		Path:  filepath.Join(demoDir, "npu", "trend.db"),
		DumpA: filepath.Join(demoDir, "npu", "dump", "step5", "rank3"),
		DumpB: filepath.Join(demoDir, "gpu", "dump", "step5", "rank3"),
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.P3 == nil || !s.P3.Degraded || s.C != nil {
		t.Fatalf("A/B only: P3 %v, C %v", s.P3 != nil, s.C)
	}
	found := false
	for _, m := range s.Missing {
		if strings.HasPrefix(m.What, "control group C/D") && strings.Contains(m.Next, "dump C and D at step 5 on rank") {
			found = true
		}
	}
	if !found {
		t.Errorf("no missing control group in %+v", s.Missing)
	}
}

// copyDir copies a folder tree (test fixtures only).
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A dump tree without the root coordinate's step: Phase 3 does not run and
// the report says which dump to collect.
func TestDumpTreeWithoutRootStep(t *testing.T) {
	tree := t.TempDir()
	copyDir(t, filepath.Join(demoDir, "npu", "dump", "step4", "rank3"), filepath.Join(tree, "step4", "rank3"))
	copyDir(t, filepath.Join(demoDir, "npu", "dump", "step4", "rank3"), filepath.Join(tree, "step4", "rank4"))
	s, err := Load(context.Background(), Inputs{Path: filepath.Join(demoDir, "npu", "trend.db"), DumpA: tree}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.A != nil || s.P3 != nil {
		t.Fatalf("A = %v, P3 = %v; want neither (no step 5 dump)", s.A != nil, s.P3 != nil)
	}
	found := false
	for _, m := range s.Missing {
		if m.What == "dump A at the root-cause coordinate" && strings.Contains(m.Next, "no dump at step 5 on rank 3 (steps 4)") {
			found = true
		}
	}
	if !found {
		t.Errorf("missing = %+v", s.Missing)
	}
}

// A single dump given as A at another step is used (the user pointed at
// it), and the report asks to confirm the step correspondence.
func TestSingleDumpElsewhereAsksForConfirmation(t *testing.T) {
	s, err := Load(context.Background(), Inputs{
		Path:  filepath.Join(demoDir, "npu", "trend.db"),
		DumpA: filepath.Join(demoDir, "npu", "dump", "step4", "rank3"),
		DumpB: filepath.Join(demoDir, "gpu", "dump", "step4", "rank3"),
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.A == nil || s.A.Step != 4 || s.P3 == nil {
		t.Fatalf("A = %+v, P3 %v", s.A, s.P3 != nil)
	}
	if len(s.Missing) < 2 || s.Missing[1].What != "confirmation: A is not at the root-cause coordinate" ||
		!strings.Contains(s.Missing[1].Next, "A is the dump of step 4 rank 3, the root cause is at step 5 on rank 3") {
		t.Errorf("missing = %+v", s.Missing)
	}
}

func TestBadInputs(t *testing.T) {
	_, err := Load(context.Background(), Inputs{Path: filepath.Join(t.TempDir(), "none.db")}, nil)
	var ie *ingest.InputError
	if !errors.As(err, &ie) {
		t.Errorf("missing path: %v, want an InputError", err)
	}
	_, err = Load(context.Background(), Inputs{}, nil)
	if !errors.As(err, &ie) {
		t.Errorf("no input: %v, want an InputError", err)
	}
	in := demoInputs()
	in.DumpA, in.DumpB, in.Baseline = "", "", ""
	in.Pin = &model.Coord{OptStep: model.IntPtr(99), Rank: model.IntPtr(0)}
	_, err = Load(context.Background(), in, nil)
	if !errors.As(err, &ie) || ie.Path != "--pin" {
		t.Errorf("pin on no data: %v, want an InputError on --pin", err)
	}
	// A bad dump path among good inputs names that path.
	in = demoInputs()
	in.DumpC = filepath.Join(t.TempDir(), "nodump")
	_, err = Load(context.Background(), in, nil)
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "nodump") {
		t.Errorf("bad --dump-c: %v", err)
	}
}

func TestFromResultsSaysWhatIsMissing(t *testing.T) {
	s := loadDemo(t)
	r := FromResults(Inputs{}, s.P1, nil, s.P2, nil)
	if len(r.Missing) != 2 || r.Missing[0].What != "baseline device's monitor data (Phase 2)" || !strings.Contains(r.Missing[1].Next, "step 5 on rank 3") {
		t.Errorf("missing = %+v", r.Missing)
	}
	r = FromResults(Inputs{}, s.P1, s.P1Baseline, nil, nil)
	if len(r.Missing) != 1 || r.Missing[0].What != "Phase 2 result" {
		t.Errorf("missing without Phase 2 = %+v", r.Missing)
	}
	r = FromResults(Inputs{}, s.P1, s.P1Baseline, s.P2, s.P3)
	if len(r.Missing) != 0 {
		t.Errorf("complete results report missing %+v", r.Missing)
	}
}

// A run without anomaly misses nothing: there is no coordinate to trace,
// and that is the conclusion, not missing data.
func TestNoAnomalyMissesNothing(t *testing.T) {
	s := loadDemo(t)
	p1 := *s.P1
	p1.Anomalies = nil
	p2, err := phase2Said(analysis.Phase2(&p1, s.P1Baseline, nil, analysis.DefaultPhase2Options()))
	if err != nil {
		t.Fatal(err)
	}
	r := FromResults(Inputs{}, &p1, s.P1Baseline, p2, nil)
	for _, m := range r.Missing {
		if strings.Contains(m.What, "coordinate") {
			t.Fatalf("no-anomaly run reports a missing coordinate: %+v", r.Missing)
		}
	}
}

// The report of the demo run and of its monitor data alone (no baseline, no
// dumps), as Markdown and as HTML, in both languages: golden files shared
// with the report package, whose tests check every table of them and
// render the HTML in a browser.
func TestDemoReportGolden(t *testing.T) {
	full := loadDemo(t)
	mon, err := Load(context.Background(), Inputs{Path: filepath.Join(demoDir, "npu", "trend.db")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range []struct {
		name string
		s    *Session
	}{{"demo_", full}, {"demo_monitor_only_", mon}} {
		for _, lang := range []string{"zh", "en"} {
			checkReportGolden(t, run.name+lang+".golden", report.Render(run.s.ReportInput(), lang))
			checkReportGolden(t, run.name+lang+".golden.html", report.RenderHTML(run.s.ReportInput(), lang))
		}
	}
}

func TestLoadCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Load(ctx, demoInputs(), nil)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled load: err %v, want context.Canceled", err)
	}
}

// Two loads of the same inputs give the same report, byte for byte
// (concurrent loading and map iteration must not leak into the output).
func TestDemoReportDeterministic(t *testing.T) {
	a := report.Render(loadDemo(t).ReportInput(), "zh")
	s, err := Load(context.Background(), demoInputs(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if b := report.Render(s.ReportInput(), "zh"); a != b {
		t.Error("two loads of the demo give different reports")
	}
}

// With only the anomalous side's dumps (no baseline device), Phase 3
// compares A with the nearby normal sample C in B's place, says so, and
// still finds the planted layer and operator of the demo.
func TestAnomalousSideOnlyComparesWithC(t *testing.T) {
	s, err := Load(context.Background(), Inputs{
		Path:  filepath.Join(demoDir, "npu", "trend.db"),
		DumpA: filepath.Join(demoDir, "npu", "dump"),
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.A == nil || s.B != nil || s.C == nil || !s.ComparedWithC || s.P3 == nil {
		t.Fatalf("A %v B %v C %v comparedWithC %v P3 %v", s.A != nil, s.B != nil, s.C != nil, s.ComparedWithC, s.P3 != nil)
	}
	ds := s.P3.DivergenceSummary
	if ds.EarliestFwdDivergence == nil || *ds.EarliestFwdDivergence != 2 || ds.Drilldown == nil || ds.Drilldown.Operator != "NPU.npu_swiglu.2.forward" {
		t.Fatalf("fwd start %v drilldown %+v", ds.EarliestFwdDivergence, ds.Drilldown)
	}
	if !s.P3.Degraded || !strings.Contains(s.P3.DegradedNote, "nearby normal sample C") {
		t.Fatalf("degraded %v note %q", s.P3.Degraded, s.P3.DegradedNote)
	}
	// the baseline column is C (JSON baseline_group), the verdict hedged
	if s.P3.BaselineGroup != "C" {
		t.Fatalf("baseline group %q", s.P3.BaselineGroup)
	}
	for _, v := range ds.Directions {
		if v.Verdict == "divergent" && !strings.Contains(v.Note, "data difference") {
			t.Errorf("%s verdict not hedged: %q", v.Direction, v.Note)
		}
	}
	found := false
	for _, m := range s.Missing {
		found = found || strings.HasPrefix(m.What, "baseline dump B (Phase 3 compared A with C")
	}
	if !found {
		t.Fatalf("missing = %+v", s.Missing)
	}
}
