package main

import (
	"bytes"
	"encoding/json"
	"html"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"spikescope/model"
	"spikescope/testdata/synth"
	"spikescope/ui"
	"spikescope/words"
)

// faceView is what one face (trace, report, the TUI) says about Phase 3:
// the four groups' folders and the conclusion.
type faceView struct {
	dirs               [4]string // A, B, C, D ("" = none)
	fwd, bwd, operator string    // "L2", "-", the first divergent operator
}

var groupNames = [4]string{"A", "B", "C", "D"}

func layerText(p *int) string {
	if p == nil {
		return "-"
	}
	return "L" + strconv.Itoa(*p)
}

// traceView runs `trace ARGS` and reads its JSON.
func traceView(t *testing.T, args []string) faceView {
	t.Helper()
	r, stderr, rc := runTraceJSON(t, args...)
	if rc != 0 {
		t.Fatalf("trace %v: exit %d: %s", args, rc, stderr)
	}
	var v faceView
	for g, n := range groupNames {
		v.dirs[g] = r.Dirs[n]
	}
	ds := r.DivergenceSummary
	v.fwd, v.bwd = layerText(ds.EarliestFwdDivergence), layerText(ds.EarliestBwdDivergence)
	if ds.Drilldown != nil {
		v.operator = ds.Drilldown.Operator
	}
	return v
}

var (
	stepRankDir    = regexp.MustCompile(`step(\d+)/rank(\d+)$`)
	reportGroupRow = regexp.MustCompile("(?m)^\\| ([ABCD]) \\| [^|]+ \\| (.+) \\|$")
	reportSummary  = regexp.MustCompile("(?m)^- Phase 3: earliest divergence forward (\\S+), backward ([^;\\s]+)(?:; drill-down operator `([^`]+)`)?$")
)

// reportView runs `report ARGS --lang en` and reads its Phase 3 group
// table and summary line.
func reportView(t *testing.T, args []string) faceView {
	t.Helper()
	var out, errb bytes.Buffer
	if rc := run(append([]string{"report", "--lang", "en"}, args...), &out, &errb); rc != 0 {
		t.Fatalf("report %v: exit %d: %s", args, rc, errb.String())
	}
	md := out.String()
	var v faceView
	rows := reportGroupRow.FindAllStringSubmatch(md, -1)
	if len(rows) != 4 {
		t.Fatalf("report %v: %d group rows", args, len(rows))
	}
	for _, m := range rows {
		g := strings.Index("ABCD", m[1])
		if p := m[2]; p != "not given" { // the report says so where trace has no folder
			v.dirs[g] = strings.Trim(p, "`")
		}
	}
	m := reportSummary.FindStringSubmatch(md)
	if m == nil {
		t.Fatalf("report %v: no Phase 3 summary line", args)
	}
	v.fwd, v.bwd, v.operator = m[1], m[2], m[3]
	for _, l := range []*string{&v.fwd, &v.bwd} { // the report says none in words where trace's JSON has null
		if *l == "none" {
			*l = "-"
		}
	}
	return v
}

// tuiView loads ARGS through the TUI's own flag parsing and backend, and
// checks the text summary (stdout not a terminal) against it.
func tuiView(t *testing.T, args []string) faceView {
	t.Helper()
	d := tuiData(t, args)
	if d.P3 == nil || d.P3.Conclusion == nil {
		t.Fatalf("TUI %v: no Phase 3 conclusion", args)
	}
	var v faceView
	for g, n := range groupNames {
		v.dirs[g] = d.P3.Dirs[n]
	}
	// The dumps the screens show are those the table compares, at the step
	// and rank their folders name.
	for g, dump := range []*model.Dump{d.A, d.B, d.C, d.D} {
		if dump == nil {
			continue
		}
		dir := v.dirs[g]
		if g == 2 && d.B == nil { // no baseline: C was compared in B's place
			dir = v.dirs[1]
		}
		m := stepRankDir.FindStringSubmatch(dump.Path)
		if !strings.HasPrefix(dir, dump.Path) || m == nil || m[1] != strconv.Itoa(dump.Step) || m[2] != strconv.Itoa(dump.Rank) {
			t.Errorf("TUI %v: %s is step %d rank %d at %s, the table compares %q", args, groupNames[g], dump.Step, dump.Rank, dump.Path, v.dirs[g])
		}
	}
	c := d.P3.Conclusion
	v.fwd, v.bwd = layerText(c.FwdStart), layerText(c.BwdStart)
	if c.Operator != nil {
		v.operator = c.Operator.Operator
	}
	var out, errb bytes.Buffer
	if rc := runTUI(args, &out, &errb); rc != 0 {
		t.Fatalf("TUI %v: exit %d: %s", args, rc, errb.String())
	}
	// the text summary says "none" where the other faces write "-"
	sumLayer := func(l string) string {
		if l == "-" {
			return "none"
		}
		return strings.TrimPrefix(l, "L")
	}
	want := []string{": forward layer " + sumLayer(v.fwd) + ", backward layer " + sumLayer(v.bwd) + "\n"}
	if v.operator != "" {
		want = append(want, "operator: "+v.operator+" (", "operator to turn NaN/Inf: "+v.operator+" (")
	}
	sum := out.String()
	if !strings.Contains(sum, want[0]) || len(want) > 1 && !strings.Contains(sum, want[1]) && !strings.Contains(sum, want[2]) {
		t.Errorf("TUI %v: the text summary lacks %q:\n%s", args, want, sum)
	}
	return v
}

// rebasedTrees writes the synthetic run of synth.RebasedConfig: trend.db
// steps re-based to 0, dump folders step104, step105.
func rebasedTrees(t *testing.T) (npuDB, gpuDB, npuDump, gpuDump string, truth synth.Truth) {
	t.Helper()
	run := synth.Generate(synth.RebasedConfig())
	p, err := run.WriteDevices(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return p.TrendDB, p.BaselineTrendDB, p.Dumps, p.BaselineDumps, run.Truth()
}

// trace, report and the TUI go through the pipeline's one group picker:
// on the same inputs they compare the same A/B/C/D and state the same
// divergence start and operator — with a baseline device, with only the
// anomalous device's dumps (C stands in for B), and with re-based trend.db
// steps (dump steps found by gradient norms).
func TestFacesAgree(t *testing.T) {
	demo := filepath.Join("testdata", "demo")
	npuDB, gpuDB := filepath.Join(demo, "npu", "trend.db"), filepath.Join(demo, "gpu", "trend.db")
	npuDump, gpuDump := filepath.Join(demo, "npu", "dump"), filepath.Join(demo, "gpu", "dump")
	rb := [4]string{}
	var rtruth synth.Truth
	rb[0], rb[1], rb[2], rb[3], rtruth = rebasedTrees(t)
	op := truthField(t, "planted_operator")
	fwd := "L" + truthField(t, "expected_fwd_divergence_layer")
	for _, c := range []struct {
		name string
		args []string
		// what the faces must agree on, beyond agreeing
		a, b, c string // A, the end of B, C
		fwd     string
		op      string
	}{
		{"demo npu+gpu", []string{npuDB, "--baseline", gpuDB, "--dump-a", npuDump, "--dump-b", gpuDump},
			filepath.Join(npuDump, "step5", "rank3"), filepath.Join(gpuDump, "step5", "rank3"), filepath.Join(npuDump, "step5", "rank5"), fwd, op},
		{"anomalous device only: C in B's place", []string{npuDB, "--dump-a", npuDump},
			filepath.Join(npuDump, "step5", "rank3"), filepath.Join(npuDump, "step5", "rank5") + " (C in B's place: no baseline dump)", "", fwd, op},
		{"re-based trend.db steps", []string{rb[0], "--baseline", rb[1], "--dump-a", rb[2], "--dump-b", rb[3]},
			filepath.Join(rb[2], "step105", "rank"+strconv.Itoa(rtruth.FaultRank)), filepath.Join(rb[3], "step105", "rank"+strconv.Itoa(rtruth.FaultRank)), filepath.Join(rb[2], "step105", "rank5"),
			"L" + strconv.Itoa(rtruth.ExpectedFwdLayer), rtruth.PlantedOperator},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr, rp, tu := traceView(t, c.args), reportView(t, c.args), tuiView(t, c.args)
			if tr != rp || tr != tu {
				t.Fatalf("the faces disagree:\ntrace  %+v\nreport %+v\nTUI    %+v", tr, rp, tu)
			}
			if tr.dirs[0] != c.a || tr.dirs[1] != c.b || tr.dirs[2] != c.c || tr.fwd != c.fwd || tr.operator != c.op {
				t.Errorf("all faces say %+v; want A %s, B %s, C %q, forward %s, operator %s", tr, c.a, c.b, c.c, c.fwd, c.op)
			}
		})
	}
}

// verdictFace is what one face says about the verdict.
type verdictFace struct {
	name, text string
}

// verdictWants are the words every face must say about v: the cause, the
// parameter, the layer and the operator.
func verdictWants(v *model.Verdict) []string {
	w := []string{words.VerdictCause(v, words.English)}
	if p := v.Parameter(); p != "" {
		w = append(w, p)
	}
	if op := v.OperatorName(); op != "" {
		w = append(w, op)
	}
	return w
}

// The verdict is computed once and every face tells it first and alike:
// the JSON (trace's with dumps, select's without), the TUI's verdict line,
// the text summary, the Markdown and the HTML report name the same cause,
// parameter, layer and operator — on the demo and on three other runs.
func TestFacesVerdictAgree(t *testing.T) {
	demo := filepath.Join("testdata", "demo")
	npuDB, gpuDB := filepath.Join(demo, "npu", "trend.db"), filepath.Join(demo, "gpu", "trend.db")
	npuDump, gpuDump := filepath.Join(demo, "npu", "dump"), filepath.Join(demo, "gpu", "dump")
	rb := [4]string{}
	rb[0], rb[1], rb[2], rb[3], _ = rebasedTrees(t)
	// a step-level run, monitor of both devices, no dumps: a kernel spike on
	// one device, and the same run's anomalous device alone
	dir := t.TempDir()
	c := synth.DefaultConfig()
	c.Window, c.OptSteps, c.NoFault = 1, 14, true
	c.Spikes = []synth.Spike{{OptStep: 7, Ranks: []int{2}, Kernel: true, Layer: 3, Scale: 6}}
	srun := synth.Generate(c)
	p, err := srun.WriteDevices(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		args  []string
		cause string
		dumps bool
	}{
		{"demo npu+gpu", []string{npuDB, "--baseline", gpuDB, "--dump-a", npuDump, "--dump-b", gpuDump}, model.CauseDevice, true},
		{"anomalous device only: C in B's place", []string{npuDB, "--dump-a", npuDump}, model.CauseUndetermined, true},
		{"re-based trend.db steps", []string{rb[0], "--baseline", rb[1], "--dump-a", rb[2], "--dump-b", rb[3]}, model.CauseDevice, true},
		{"step-level monitors of both devices", []string{p.TrendDB, "--baseline", p.BaselineTrendDB}, model.CauseDevice, false},
		{"step-level monitor alone", []string{p.TrendDB}, model.CauseUndetermined, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// the JSON: trace's when dumps are given, select's otherwise
			var v *model.Verdict
			if tc.dumps {
				r, stderr, rc := runTraceJSON(t, tc.args...)
				if rc != 0 {
					t.Fatalf("trace: exit %d: %s", rc, stderr)
				}
				v = r.Verdict
			} else {
				v = selectVerdict(t, tc.args)
			}
			if v == nil || v.Cause != tc.cause {
				t.Fatalf("JSON verdict %+v, want cause %s", v, tc.cause)
			}
			wants := verdictWants(v)
			d := tuiData(t, tc.args)
			line := ui.VerdictLine(d, 400)
			var sum, md, htmlDoc bytes.Buffer
			if rc := runTUI(tc.args, &sum, &bytes.Buffer{}); rc != 0 {
				t.Fatalf("text summary: exit %d", rc)
			}
			if rc := run(append([]string{"report", "--lang", "en"}, tc.args...), &md, &bytes.Buffer{}); rc != 0 {
				t.Fatalf("report: exit %d", rc)
			}
			if rc := run(append([]string{"report", "--lang", "en", "--as", "html"}, tc.args...), &htmlDoc, &bytes.Buffer{}); rc != 0 {
				t.Fatalf("report --as html: exit %d", rc)
			}
			// each face opens with the verdict: its first verdict line
			first := func(s, prefix string) string {
				for _, l := range strings.Split(s, "\n") {
					if strings.Contains(l, prefix) {
						return l
					}
				}
				return ""
			}
			faces := []verdictFace{
				{"TUI verdict line", line},
				{"text summary", first(sum.String(), "verdict: ")},
				{"Markdown report", first(md.String(), "**Verdict: ")},
				{"HTML report", html.UnescapeString(first(htmlDoc.String(), "Verdict: "))},
			}
			if i := strings.Index(sum.String(), "verdict: "); i < 0 || strings.Contains(sum.String()[:i], "candidates (earliest first)") {
				t.Errorf("the text summary does not open with the verdict:\n%s", sum.String())
			}
			if i, j := strings.Index(md.String(), "**Verdict: "), strings.Index(md.String(), "## Summary"); i < 0 || j < i {
				t.Errorf("the Markdown report does not open with the verdict")
			}
			for _, f := range faces {
				if f.text == "" {
					t.Errorf("%s: no verdict", f.name)
					continue
				}
				for _, w := range wants {
					if !strings.Contains(f.text, w) {
						t.Errorf("%s lacks %q: %s", f.name, w, f.text)
					}
				}
				if v.Layer != nil && !strings.Contains(f.text, "L"+strconv.Itoa(*v.Layer)) && !strings.Contains(f.text, "layer "+strconv.Itoa(*v.Layer)) {
					t.Errorf("%s lacks layer %d: %s", f.name, *v.Layer, f.text)
				}
				for _, other := range []string{model.CauseDevice, model.CauseData, model.CauseNumerics, model.CauseDynamics} {
					if other != v.Cause && other != v.Likely && strings.Contains(f.text, "verdict: "+other) {
						t.Errorf("%s names cause %s: %s", f.name, other, f.text)
					}
				}
			}
			// the HTML's Phase 1 figure plots the verdict's parameter
			if p := v.Parameter(); p != "" {
				doc := html.UnescapeString(htmlDoc.String())
				if !strings.Contains(doc, "Gradient norm of <code>"+p+"</code> (rank "+strconv.Itoa(v.Coordinate.Rank)+" in black") {
					t.Errorf("HTML: the Phase 1 figure does not plot %s on rank %d", p, v.Coordinate.Rank)
				}
			}
		})
	}
}

// selectVerdict runs detect on the monitor (and the baseline's) and
// select on the results, and returns select's verdict.
func selectVerdict(t *testing.T, args []string) *model.Verdict {
	t.Helper()
	dir := t.TempDir()
	p1, p1b := filepath.Join(dir, "p1.json"), filepath.Join(dir, "p1b.json")
	if rc := run([]string{"detect", args[0], "-o", p1}, &bytes.Buffer{}, &bytes.Buffer{}); rc != 0 {
		t.Fatalf("detect: exit %d", rc)
	}
	sel := []string{"select", "--phase1", p1}
	if len(args) >= 3 && args[1] == "--baseline" {
		if rc := run([]string{"detect", args[2], "-o", p1b}, &bytes.Buffer{}, &bytes.Buffer{}); rc != 0 {
			t.Fatalf("detect baseline: exit %d", rc)
		}
		sel = append(sel, "--baseline", p1b)
	}
	var out bytes.Buffer
	if rc := run(sel, &out, &bytes.Buffer{}); rc != 0 {
		t.Fatalf("select: exit %d", rc)
	}
	var r model.Phase2Result
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	return r.Verdict
}
