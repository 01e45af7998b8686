package analysis

import (
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"spikescope/model"
	"spikescope/testdata/synth"
)

func runP3(a, b, c, d *model.Dump) *model.Phase3Result {
	return phase3T(Phase3Input{A: a, B: b, C: c, D: d}, DefaultPhase3Options())
}

func verdict(t *testing.T, r *model.Phase3Result, dir string) model.DirectionVerdict {
	t.Helper()
	for _, v := range r.DivergenceSummary.Directions {
		if v.Direction == dir {
			return v
		}
	}
	t.Fatalf("no %s verdict", dir)
	return model.DirectionVerdict{}
}

func intp(p *int) int {
	if p == nil {
		return -999
	}
	return *p
}

// A fault planted in layer 3's mlp.linear_fc1 forward output (×1.5, carried
// to everything computed after it) is found: forward start 3, drill-down
// operator = the planted op, backward (diverging everywhere, more strongly)
// reported as amplified.
func TestPhase3_ForwardMLPFault(t *testing.T) {
	const L, fault = 8, 3
	kfc1 := tFind(tFwd, "mlp.linear_fc1", "ColumnParallelLinear")
	mul := func(dir model.Direction, layer, k int, s model.Stat) float64 {
		if dir == model.Forward && (layer > fault || layer == fault && k >= kfc1) {
			return 1.5
		}
		if dir == model.Backward {
			return 3 // backward diverges more, everywhere
		}
		return 1
	}
	a, b, c, d := tQuad(L, mul)
	r := runP3(a, b, c, d)
	s := r.DivergenceSummary
	if intp(s.EarliestFwdDivergence) != fault {
		t.Fatalf("earliest fwd = %d, want %d", intp(s.EarliestFwdDivergence), fault)
	}
	fwd, bwd := verdict(t, r, "fwd"), verdict(t, r, "bwd")
	if !fwd.P0 || fwd.Verdict != "divergent" || bwd.P0 || !bwd.Amplified || bwd.Verdict != "divergent" {
		t.Fatalf("verdicts fwd=%+v bwd=%+v", fwd, bwd)
	}
	if !strings.Contains(bwd.Note, "amplified") {
		t.Errorf("bwd note %q", bwd.Note)
	}
	want := "Module.module.module.decoder.layers.3.mlp.linear_fc1.ColumnParallelLinear.forward.0"
	if s.Drilldown == nil || s.Drilldown.Operator != want || intp(s.Drilldown.Layer) != fault || s.Drilldown.Direction != "fwd" {
		t.Fatalf("drilldown = %+v", s.Drilldown)
	}
	// The chain stops at the op just before (pre_mlp_layernorm, unchanged).
	if len(s.Drilldown.Chain) != 2 || !strings.Contains(s.Drilldown.Chain[1], "pre_mlp_layernorm") {
		t.Errorf("chain = %v", s.Drilldown.Chain)
	}
	if s.Drilldown.Largest == "" {
		t.Errorf("no largest op")
	}
	// Any layer can be listed afterwards, also by anchor.
	tr := newTracerT(Phase3Input{A: a, B: b, C: c, D: d}, DefaultPhase3Options())
	if ops := tr.OpsForLayer("", 5, "fwd"); len(ops) != len(tFwd) || !ops[0].Flagged {
		t.Errorf("layer 5 ops %d", len(ops))
	}
	if ops := tr.OpsForLayer("mlp", 1, "bwd"); len(ops) != 4 || ops[0].Key != "Module.module.module.decoder.layers.1.mlp.linear_fc2.RowParallelLinear.backward.0" || !ops[0].Flagged {
		t.Errorf("layer 1 mlp bwd ops %+v", ops)
	}
	if len(s.Drilldown.Ops) != len(tFwd) {
		t.Errorf("drill ops = %d, want %d", len(s.Drilldown.Ops), len(tFwd))
	}
	if got := strings.Join(r.AnchorsUsed, ","); got != "input_layernorm,self_attention,mlp,pre_mlp_layernorm,(layer)" {
		t.Errorf("anchors %s", got)
	}
	if r.AnchorWarning != nil || r.Degraded {
		t.Errorf("warning %+v degraded %v", r.AnchorWarning, r.Degraded)
	}
	// mlp anchor flags layers 3..7 forward; input_layernorm from 4 on.
	for _, at := range r.Anchors {
		ml := at.Conclusion.MetricLayers["Norm"].Fwd
		switch at.Name {
		case "mlp":
			if !reflect.DeepEqual(ml, []int{3, 4, 5, 6, 7}) {
				t.Errorf("mlp fwd flags %v", ml)
			}
		case "input_layernorm":
			if !reflect.DeepEqual(ml, []int{4, 5, 6, 7}) {
				t.Errorf("input_layernorm fwd flags %v", ml)
			}
		}
	}
	// grad per layer comes from parameters_grad (reference: always null).
	g := r.Anchors[2].Layers[1].Grad
	if g.A == nil || math.Abs(float64(*g.A)-math.Sqrt(2)*0.6) > 1e-9 {
		t.Errorf("mlp grad layer 1 = %v", g.A)
	}
	if _, err := json.Marshal(r); err != nil {
		t.Fatal(err)
	}
}

// A backward-only fault at layer 5 (mlp.linear_fc1's input gradient, carried
// to the shallower layers): forward consistent, backward start 5 (deep →
// shallow), the backward is the P0 and the drill-down finds the planted op.
func TestPhase3_BackwardOnlyFault(t *testing.T) {
	const L, fault = 8, 5
	kfc1 := tFind(tBwd, "mlp.linear_fc1", "ColumnParallelLinear")
	mul := func(dir model.Direction, layer, k int, s model.Stat) float64 {
		if dir == model.Backward && (layer < fault || layer == fault && k >= kfc1) {
			return 1.8
		}
		return 1
	}
	r := runP3(tQuad(L, mul))
	s := r.DivergenceSummary
	fwd, bwd := verdict(t, r, "fwd"), verdict(t, r, "bwd")
	if fwd.Verdict != "consistent" || s.EarliestFwdDivergence != nil {
		t.Fatalf("fwd %+v", fwd)
	}
	if intp(s.EarliestBwdDivergence) != fault || !bwd.P0 || bwd.Verdict != "divergent" {
		t.Fatalf("bwd start %d %+v", intp(s.EarliestBwdDivergence), bwd)
	}
	if !strings.Contains(bwd.Note, "backward itself") {
		t.Errorf("note %q", bwd.Note)
	}
	want := "Module.module.module.decoder.layers.5.mlp.linear_fc1.ColumnParallelLinear.backward.0"
	if s.Drilldown == nil || s.Drilldown.Operator != want || s.Drilldown.Direction != "bwd" {
		t.Fatalf("drilldown %+v", s.Drilldown)
	}
}

// referenceFlags is the reference script's rule (bug 1/2): threshold
// med + max(3·IQR, 0.03) over the raw C/D ratios (upper median, ⌊n/4⌋
// quartiles), compared upward with (A/B)/(C/D).
func referenceFlags(ab, cd []float64) []int {
	s := slices.Clone(cd)
	slices.Sort(s)
	n := len(s)
	thr := s[n/2] + math.Max(3*(s[3*n/4]-s[n/4]), 0.03)
	var out []int
	for i := range ab {
		if ab[i]/cd[i] > thr {
			out = append(out, i)
		}
	}
	return out
}

// A uniform device bias (A/B = C/D = 0.8 in every layer) and no divergence
// flags nothing; the reference's rule flags every layer.
func TestPhase3_UniformDeviceBias(t *testing.T) {
	const L = 6
	bias := func(dir model.Direction, layer, k int, s model.Stat) float64 { return 1 / 0.8 }
	a := buildDump("A", tSpec{Layers: L})
	b := buildDump("B", tSpec{Layers: L, Mul: bias})
	c := buildDump("C", tSpec{Layers: L})
	d := buildDump("D", tSpec{Layers: L, Mul: bias})
	r := runP3(a, b, c, d)
	for _, v := range r.DivergenceSummary.Directions {
		if v.Verdict != "consistent" || len(v.Flagged) != 0 {
			t.Errorf("%s: %+v", v.Direction, v)
		}
	}
	// The same data under the reference's rule.
	var ab, cd []float64
	for _, lr := range r.Anchors[0].Layers {
		m := lr.Metrics["Norm"]
		ab = append(ab, float64(*m.FAB))
		cd = append(cd, float64(*m.FCD))
	}
	if got := referenceFlags(ab, cd); len(got) != L {
		t.Errorf("reference flags %v, want all %d layers", got, L)
	}
	// The control pair itself is not ≈1.0x: confirm the data (seed 3.1).
	if !strings.Contains(strings.Join(r.Warnings, "|"), "C/D is not ≈1.0x (median Norm ratio fwd 0.8x, bwd 0.8x)") {
		t.Errorf("warnings %v", r.Warnings)
	}
	if math.Abs(ab[0]-0.8) > 1e-12 || math.Abs(cd[0]-0.8) > 1e-12 {
		t.Errorf("ratios %v %v", ab[0], cd[0])
	}
}

// A divergence where A/B is SMALLER than the band (vanishing activations
// from layer 4 on) is flagged; the reference never flags it.
func TestPhase3_ShrinkingDivergence(t *testing.T) {
	mul := func(dir model.Direction, layer, k int, s model.Stat) float64 {
		if dir == model.Forward && layer >= 4 {
			return 0.7
		}
		return 1
	}
	r := runP3(tQuad(8, mul))
	s := r.DivergenceSummary
	if intp(s.EarliestFwdDivergence) != 4 {
		t.Fatalf("fwd start %d", intp(s.EarliestFwdDivergence))
	}
	var ab, cd []float64
	for _, lr := range r.Anchors[0].Layers {
		m := lr.Metrics["Norm"]
		ab = append(ab, float64(*m.FAB))
		cd = append(cd, float64(*m.FCD))
	}
	if got := referenceFlags(ab, cd); len(got) != 0 {
		t.Errorf("reference flags %v, want none", got)
	}
}

// Flags at layers 1, 5, 6, 7 (in data): the forward start is 1, the
// reference's longest run [5 6 7] is kept as main_segment.
func TestPhase3_FirstFlagNotLongestRun(t *testing.T) {
	mul := func(dir model.Direction, layer, k int, s model.Stat) float64 {
		if dir == model.Forward && (layer == 1 || layer >= 5) {
			return 1.4
		}
		return 1
	}
	r := runP3(tQuad(8, mul))
	s := r.DivergenceSummary
	ms := s.MetricStarts["Norm"]
	if intp(s.EarliestFwdDivergence) != 1 || intp(ms.FwdStart) != 1 || !reflect.DeepEqual(ms.FwdMainSegment, []int{5, 6, 7}) {
		t.Fatalf("start %d / %d, main %v", intp(s.EarliestFwdDivergence), intp(ms.FwdStart), ms.FwdMainSegment)
	}
	if v := verdict(t, r, "fwd"); !reflect.DeepEqual(v.Flagged, []int{1, 5, 6, 7}) {
		t.Errorf("flagged %v", v.Flagged)
	}
}

func TestDivergenceStart(t *testing.T) {
	if s := divergenceStart([]int{1, 5, 6, 7}, "fwd"); intp(s) != 1 {
		t.Errorf("fwd start %d", intp(s))
	}
	if m := mainSegment([]int{1, 5, 6, 7}); !reflect.DeepEqual(m, []int{5, 6, 7}) {
		t.Errorf("main %v", m)
	}
	if s := divergenceStart([]int{0, 1, 2, 6}, "bwd"); intp(s) != 6 {
		t.Errorf("bwd start %d", intp(s))
	}
	if m := mainSegment([]int{0, 1, 2, 6}); !reflect.DeepEqual(m, []int{0, 1, 2}) {
		t.Errorf("bwd main %v", m)
	}
	if divergenceStart(nil, "fwd") != nil {
		t.Error("empty start")
	}
}

func ip(v int) *int { return &v }

func TestIterateMetrics(t *testing.T) {
	starts := map[model.Stat]*int{model.StatNorm: ip(4), model.StatMin: ip(2), model.StatMax: ip(5), model.StatMean: nil}
	final, path, dis := iterateMetrics(starts, "fwd")
	if intp(final) != 2 || !reflect.DeepEqual(path, []string{"Norm→L4", "Min→L2"}) || !reflect.DeepEqual(dis, []string{"Norm→L4", "Max→L5"}) {
		t.Fatalf("final %d path %v dis %v", intp(final), path, dis)
	}
	// backward: earlier = deeper
	final, path, _ = iterateMetrics(map[model.Stat]*int{model.StatNorm: ip(3), model.StatMax: ip(6), model.StatMin: ip(5)}, "bwd")
	if intp(final) != 6 || !reflect.DeepEqual(path, []string{"Norm→L3", "Max→L6"}) {
		t.Fatalf("bwd final %d path %v", intp(final), path)
	}
	// Norm silent: start from the first metric that has a start.
	final, path, dis = iterateMetrics(map[model.Stat]*int{model.StatMean: ip(3)}, "fwd")
	if intp(final) != 3 || len(path) != 1 || len(dis) != 0 {
		t.Fatalf("%d %v %v", intp(final), path, dis)
	}
}

// In data: Min diverges at layer 2, Norm/Max only from layer 4 → the
// iteration moves the start to 2 and records the disagreement.
func TestPhase3_MetricIterationInData(t *testing.T) {
	mul := func(dir model.Direction, layer, k int, s model.Stat) float64 {
		if dir != model.Forward {
			return 1
		}
		if s == model.StatMin && layer >= 2 {
			return 1.5
		}
		if layer >= 4 {
			return 1.5
		}
		return 1
	}
	r := runP3(tQuad(8, mul))
	s := r.DivergenceSummary
	if intp(s.EarliestFwdDivergence) != 2 || !s.IteratedMetrics {
		t.Fatalf("start %d", intp(s.EarliestFwdDivergence))
	}
	if !reflect.DeepEqual(s.IterationPath["fwd"], []string{"Norm→L4", "Min→L2"}) {
		t.Errorf("path %v", s.IterationPath["fwd"])
	}
	if !slices.Contains(s.Disagreements, "fwd Norm→L4") || !slices.Contains(s.Disagreements, "fwd Max→L4") {
		t.Errorf("disagreements %v", s.Disagreements)
	}
	if s.Drilldown == nil || s.Drilldown.Metric != "Min" || intp(s.Drilldown.Layer) != 2 {
		t.Errorf("drill %+v", s.Drilldown)
	}
}

func TestNormalizeKey(t *testing.T) {
	cases := map[string]string{
		"layers.0.self_attention.TEMLASelfAttention.forward.0":                                       "layers.0.self_attention.MLASelfAttention.forward",
		"mlp.FlashAttention.forward.1":                                                               "mlp.Attention.forward",
		"Module.decoder.layers.1.mlp.linear_fc1.MindSpeedTELayerNormColumnParallelLinear.backward.3": "Module.decoder.layers.1.mlp.linear_fc1.LayerNormColumnParallelLinear.backward",
		"Module.x.core_attention.FusedAttention.forward.0":                                           "Module.x.core_attention.Attention.forward",
		"NPU.npu_swiglu.17.forward":                                                                  "NPU.npu_swiglu.forward",
		"Functional.relu.0.backward":                                                                 "Functional.relu.backward",
		"Module.fc.Linear.parameters_grad.1":                                                         "Module.fc.Linear.parameters_grad",
	}
	for in, want := range cases {
		if got := normalizeKey(in); got != want {
			t.Errorf("normalizeKey(%q) = %q, want %q", in, got, want)
		}
	}
}

// TE-prefixed classes, FlashAttention vs FusedAttention, shifted module call
// indices and API counters on B/D: every layer aligns, nothing is flagged.
func TestPhase3_RenamedKeysAlign(t *testing.T) {
	te := func(c string) string {
		switch c {
		case "ColumnParallelLinear", "RowParallelLinear", "DotProductAttention":
			return "TE" + c
		}
		return c
	}
	a := buildDump("A", tSpec{Layers: 4, Class: func(c string) string {
		if c == "DotProductAttention" {
			return "FlashAttention"
		}
		return c
	}})
	b := buildDump("B", tSpec{Layers: 4, Class: func(c string) string {
		if c == "DotProductAttention" {
			return "FusedAttention"
		}
		return te(c)
	}, CallBase: 1, APIBase: 7})
	c := buildDump("C", tSpec{Layers: 4, Mul: tNoise(2)})
	d := buildDump("D", tSpec{Layers: 4, Class: te, CallBase: 2, APIBase: 3})
	r := runP3(a, b, c, d)
	s := r.DivergenceSummary
	if len(s.UncomparedLayers.Fwd)+len(s.UncomparedLayers.Bwd) != 0 {
		t.Fatalf("uncompared %+v", s.UncomparedLayers)
	}
	for _, v := range s.Directions {
		if v.Verdict != "consistent" {
			t.Errorf("%+v", v)
		}
	}
	// The drill-down level pairs APIs by order within layer and parent.
	p := &p3{opt: DefaultPhase3Options()}
	p.scheme = learnLayerScheme(a, b)
	ia, ib := indexDump(a, p.scheme), indexDump(b, p.scheme)
	for i := range a.Ops {
		j := pair(ia, int32(i), ib)
		if j < 0 {
			t.Fatalf("%s unpaired", a.Ops[i].Key)
		}
		if a.Ops[i].Order != b.Ops[j].Order {
			t.Fatalf("%s paired with %s", a.Ops[i].Key, b.Ops[j].Key)
		}
	}
}

// NaN, a missing anchor and an element-count mismatch make layers
// unaligned: no ratio, listed in uncompared_layers, direction never
// "consistent".
func TestPhase3_UnalignedLayers(t *testing.T) {
	a, b, c, d := tQuad(6, nil)
	mlpOf := func(layer string) func(op *model.Op) bool {
		return func(op *model.Op) bool {
			return op.Direction == model.Forward && (strings.Contains(op.Key, "layers."+layer+".mlp.") || strings.Contains(op.Parent, "layers."+layer+".mlp."))
		}
	}
	for i := range b.Ops {
		op := &b.Ops[i]
		if mlpOf("2")(op) {
			op.Outputs[0].Stat[model.StatNorm] = math.NaN()
		}
		if mlpOf("4")(op) {
			op.Outputs[0].Elements *= 2
		}
	}
	synth.DropOps(b, mlpOf("3"))
	r := runP3(a, b, c, d)
	s := r.DivergenceSummary
	if !reflect.DeepEqual(s.UncomparedLayers.Fwd, []int{2, 3, 4}) {
		t.Fatalf("uncompared fwd %v", s.UncomparedLayers.Fwd)
	}
	fwd := verdict(t, r, "fwd")
	if fwd.Verdict != "undetermined" || fwd.P0 {
		t.Errorf("fwd %+v", fwd)
	}
	var mlp model.AnchorTable
	for _, at := range r.Anchors {
		if at.Name == "mlp" {
			mlp = at
		}
	}
	reasons := strings.Join(append(append(mlp.Layers[2].Alignment.Reasons, mlp.Layers[3].Alignment.Reasons...), mlp.Layers[4].Alignment.Reasons...), "|")
	for _, w := range []string{"Norm is NaN in B", "missing", "element count 1024 vs 2048"} {
		if !strings.Contains(reasons, w) {
			t.Errorf("reasons %q lack %q", reasons, w)
		}
	}
	if m := mlp.Layers[2].Metrics["Norm"]; m.FAnomaly != nil || m.FAB != nil {
		t.Errorf("unaligned layer has a ratio: %+v", m)
	}
}

// Fewer than three aligned anchors → anchor_warning.
func TestPhase3_AnchorWarning(t *testing.T) {
	a, b, c, d := tQuad(4, nil)
	r := phase3T(Phase3Input{A: a, B: b, C: c, D: d, Anchors: []string{"mlp", "input_layernorm", "router"}}, DefaultPhase3Options())
	if r.AnchorWarning == nil || r.AnchorWarning.AnchorsFound != 2 {
		t.Fatalf("warning %+v", r.AnchorWarning)
	}
	if v := verdict(t, r, "fwd"); !strings.Contains(v.Note, "verdict incomplete") {
		t.Errorf("note %q", v.Note)
	}
	// "mlp" matches the whole segment only: never pre_mlp_layernorm.
	for _, lr := range r.Anchors[0].Layers {
		if strings.Contains(lr.Alignment.FwdKeyA, "pre_mlp") {
			t.Fatalf("mlp anchor took %s", lr.Alignment.FwdKeyA)
		}
	}
	r = runP3(a, b, c, d)
	if r.AnchorWarning != nil {
		t.Errorf("auto anchors warn: %+v", r.AnchorWarning)
	}
}

// Without C/D the comparison is degraded, says so, and still finds a clear
// divergence around the median of A/B.
func TestPhase3_Degraded(t *testing.T) {
	mul := func(dir model.Direction, layer, k int, s model.Stat) float64 {
		if dir == model.Forward && layer >= 8 {
			return 2
		}
		return 1
	}
	a := buildDump("A", tSpec{Layers: 10, Mul: mul})
	b := buildDump("B", tSpec{Layers: 10, Mul: tNoise(3)})
	r := runP3(a, b, nil, nil)
	if !r.Degraded || !strings.Contains(r.DegradedNote, "device bias") {
		t.Fatalf("degraded %v %q", r.Degraded, r.DegradedNote)
	}
	if intp(r.DivergenceSummary.EarliestFwdDivergence) != 8 {
		t.Fatalf("fwd start %d", intp(r.DivergenceSummary.EarliestFwdDivergence))
	}
}

func TestControlBand(t *testing.T) {
	// Interpolated quartiles 0.9975 / 1.0025: 3·IQR = 0.015 < floor 0.03.
	b := controlBand([]float64{1, 1.01, 0.99, 1}, 3, 0.03)
	if !b.Usable || math.Abs(float64(b.Median)-1) > 1e-12 || math.Abs(float64(b.Upper)-1.03) > 1e-9 || math.Abs(float64(b.Lower)-0.97) > 1e-9 {
		t.Errorf("band %+v", b)
	}
	// Wider control scatter widens the band: IQR 0.1 around 2 → ±15%.
	b2 := controlBand([]float64{1.9, 1.95, 2.0, 2.05, 2.1}, 3, 0.03)
	if math.Abs(float64(b2.Upper)-1.15) > 1e-9 {
		t.Errorf("band2 %+v", b2)
	}
	if !b.Usable {
		t.Errorf("band %+v", b)
	}
	if !outside(&b, 1.04) || !outside(&b, 0.96) || outside(&b, 1.02) || outside(&b, 0.98) {
		t.Error("flags")
	}
	// Sign change (Mean of a centred tensor): shown, not used.
	b = controlBand([]float64{0.5, -2, 3, 1.1}, 3, 0.03)
	if b.Usable || !slices.Equal(b.NoteReasons, []model.Reason{model.P3BandSignChange{}}) || outside(&b, 100) {
		t.Errorf("sign band %+v", b)
	}
	b = controlBand([]float64{0.1, 5, 0.2, 9}, 3, 0.03)
	if b.Usable || !slices.Equal(b.NoteReasons, []model.Reason{model.P3BandScatter{}}) {
		t.Errorf("scatter band %+v", b)
	}
	if b = controlBand(nil, 3, 0.03); b.Usable || b.Samples != 0 {
		t.Errorf("empty %+v", b)
	}
}

// A Mean that changes sign between layers in the control pair is shown but
// not used for flags, and its band's note says so; no warning, since the
// other statistics judge the pass. When no statistic of a pass can be
// judged, a warning says that none of its layers can be flagged.
func TestPhase3_MeanNotUsable(t *testing.T) {
	flip := func(dir model.Direction, layer, k int, s model.Stat) float64 {
		if s == model.StatMean && layer%2 == 1 {
			return -1
		}
		return 1
	}
	a := buildDump("A", tSpec{Layers: 6, Mul: func(dir model.Direction, layer, k int, s model.Stat) float64 {
		if s == model.StatMean {
			return 40 // A's Mean far off: must not flag anything
		}
		return 1
	}})
	b := buildDump("B", tSpec{Layers: 6})
	c := buildDump("C", tSpec{Layers: 6, Mul: flip})
	d := buildDump("D", tSpec{Layers: 6})
	r := runP3(a, b, c, d)
	if bd := r.DivergenceSummary.Thresholds["Mean"]["fwd"]; bd.Usable || bd.Note == "" {
		t.Fatalf("Mean band %+v", bd)
	}
	if v := verdict(t, r, "fwd"); len(v.Flagged) != 0 {
		t.Fatalf("flagged %v", v.Flagged)
	}
	for _, w := range r.Warnings {
		if strings.Contains(w, "Mean") || strings.Contains(w, "can be flagged") {
			t.Errorf("a warning about one unusable statistic: %q", w)
		}
	}
	// every statistic of C changes sign at odd layers: nothing judges the
	// forward pass
	flipAll := func(dir model.Direction, layer, k int, s model.Stat) float64 {
		if dir == model.Forward && layer%2 == 1 {
			return -1
		}
		return 1
	}
	r = runP3(a, b, buildDump("C", tSpec{Layers: 6, Mul: flipAll}), d)
	found := false
	for _, w := range r.Warnings {
		if strings.Contains(w, "no statistic of the forward pass can be judged") {
			found = true
		}
		if strings.Contains(w, "backward pass") {
			t.Errorf("the backward is judged, yet %q", w)
		}
	}
	if !found {
		t.Errorf("no statistic of the forward usable, warnings %v", r.Warnings)
	}
}

// With several micro-batches in the dump, the anchors are compared at the
// micro step of Phase 1's anomaly: a fault only in micro-batch 2 is found
// there, and missed at the first call.
func TestPhase3_CallFromPhase1(t *testing.T) {
	fault := func(dir model.Direction, layer, k int, s model.Stat) float64 {
		if dir == model.Forward && layer >= 3 {
			return 1.6
		}
		return 1
	}
	spec := func(name string, mul func(model.Direction, int, int, model.Stat) float64) *model.Dump {
		return buildDump(name, tSpec{Layers: 6, Calls: 4, Mul: mul, MulCall: func(c int) bool { return c == 2 }, Step: 7, Rank: 1})
	}
	a, b, c, d := spec("A", fault), spec("B", nil), spec("C", tNoise(4)), spec("D", nil)
	ms := 2
	p1 := &model.Phase1Result{Anomalies: []model.Anomaly{{Step: 7, Rank: 1, MicroStep: &ms}}}
	r := phase3T(Phase3Input{A: a, B: b, C: c, D: d, Phase1: p1}, DefaultPhase3Options())
	if intp(r.DivergenceSummary.EarliestFwdDivergence) != 3 || !strings.Contains(strings.Join(r.Warnings, "|"), "micro-batch 3 (Phase 1 micro step 2") {
		t.Fatalf("start %d warnings %v", intp(r.DivergenceSummary.EarliestFwdDivergence), r.Warnings)
	}
	if k := r.Anchors[0].Layers[3].Alignment.FwdKeyA; !strings.HasSuffix(k, ".forward.2") {
		t.Errorf("anchor key %s", k)
	}
	// The drill-down looks at micro-batch 2's run of layer 3 only.
	dd := r.DivergenceSummary.Drilldown
	if dd == nil || len(dd.Ops) != len(tFwd) || dd.Operator != "Module.module.module.decoder.layers.3.input_layernorm.RMSNorm.forward.2" {
		t.Errorf("drill %+v", dd)
	}
	// Without Phase 1: the first micro-batch whose layers diverge.
	r = phase3T(Phase3Input{A: a, B: b, C: c, D: d}, DefaultPhase3Options())
	if intp(r.DivergenceSummary.EarliestFwdDivergence) != 3 || !strings.Contains(strings.Join(r.Warnings, "|"), "micro-batch 3 of 4: the one whose layers diverge most") {
		t.Errorf("auto call: start %d warnings %v", intp(r.DivergenceSummary.EarliestFwdDivergence), r.Warnings)
	}
	// An explicit call 0 sees nothing.
	opt := DefaultPhase3Options()
	opt.Call = 0
	r = phase3T(Phase3Input{A: a, B: b, C: c, D: d}, opt)
	if r.DivergenceSummary.EarliestFwdDivergence != nil {
		t.Errorf("call 0 sees start %d", intp(r.DivergenceSummary.EarliestFwdDivergence))
	}
}

// A NaN in A where B is finite is a non-finite divergence (it was once
// "unaligned"): the layer is flagged, not unaligned, it starts the forward
// divergence, and its first non-finite op is the origin and the drill-down.
func TestPhase3_NaNInA(t *testing.T) {
	a, b, c, d := tQuad(6, nil)
	for i := range a.Ops {
		op := &a.Ops[i]
		if op.Direction == model.Forward && (strings.Contains(op.Key, "layers.4.mlp.") || strings.Contains(op.Parent, "layers.4.mlp.")) {
			op.Outputs[0].Stat[model.StatMax] = math.Inf(1)
			op.Outputs[0].Stat[model.StatNorm] = math.NaN()
		}
	}
	r := runP3(a, b, c, d)
	fwd := verdict(t, r, "fwd")
	want := "L4 Module.module.module.decoder.layers.4.mlp.linear_fc1.ColumnParallelLinear.forward.0"
	if fwd.Verdict != "divergent" || fwd.FirstNonFinite != want || len(fwd.Unaligned) != 0 || !reflect.DeepEqual(fwd.Flagged, []int{4}) || intp(fwd.Start) != 4 {
		t.Fatalf("fwd %+v", fwd)
	}
	if dd := r.DivergenceSummary.Drilldown; dd == nil || !dd.NonFinite || "L4 "+dd.Operator != want {
		t.Fatalf("drill-down %+v", dd)
	}
}

// Missing groups and dumps without layers never panic and say what is
// missing.
func TestPhase3_PartialInputs(t *testing.T) {
	r := runP3(nil, buildDump("B", tSpec{Layers: 2}), nil, nil)
	if len(r.Warnings) == 0 || r.Anchors == nil || r.DivergenceSummary.Directions == nil {
		t.Fatalf("%+v", r)
	}
	a := buildDump("A", tSpec{Layers: 2})
	synth.DropOps(a, func(op *model.Op) bool {
		return strings.Contains(op.Key, "layers.") || strings.Contains(op.Parent, "layers.")
	})
	r = runP3(a, a, nil, nil)
	if !strings.Contains(strings.Join(r.Warnings, "|"), "no transformer layers") || r.AnchorWarning == nil || r.AnchorWarning.AnchorsFound != 0 {
		t.Fatalf("warnings %v %+v", r.Warnings, r.AnchorWarning)
	}
	for _, v := range r.DivergenceSummary.Directions {
		if v.Verdict == "consistent" {
			t.Errorf("%s consistent without layers", v.Direction)
		}
	}
	if _, err := json.Marshal(r); err != nil {
		t.Fatal(err)
	}
}

// The Mean of a centred tensor (|Mean| ≪ RMS) gives no ratio: 1e-5 vs
// 4e-7 would read as a 25x divergence.
func TestCentredMean(t *testing.T) {
	mk := func(mean float64) model.TensorStat {
		ts := model.TensorStat{Dtype: "torch.float32", Elements: 10000, Shape: []int64{100, 100}}
		ts.Stat[model.StatNorm], ts.Stat[model.StatMean] = 100, mean // RMS 1
		ts.Has = [model.NumStats]bool{true, true, true, true}
		return ts
	}
	if c := mk(1e-5); !centred(&c) {
		t.Error("1e-5 vs RMS 1 not centred")
	}
	if c := mk(0.3); centred(&c) {
		t.Error("0.3 vs RMS 1 centred")
	}
	op := func(mean float64) model.Op {
		return model.Op{Key: "k", Outputs: []model.TensorStat{mk(mean)}}
	}
	x := &dumpIndex{d: &model.Dump{Ops: []model.Op{op(1e-5), op(0.3)}}}
	y := &dumpIndex{d: &model.Dump{Ops: []model.Op{op(4e-7), op(0.15)}}}
	if r := pairRatio(x, 0, y, 0, model.StatMean); !math.IsNaN(r) {
		t.Errorf("centred ratio %v", r)
	}
	if r := pairRatio(x, 1, y, 1, model.StatMean); math.Abs(r-2) > 1e-12 {
		t.Errorf("ratio %v", r)
	}
	if r := pairRatio(x, 0, y, 0, model.StatNorm); r != 1 {
		t.Errorf("norm ratio %v", r)
	}
}

func TestGroupRatio(t *testing.T) {
	for _, c := range []struct{ a, b, want float64 }{
		{10, 2, 5}, {0, 0, 1}, {1, 0, math.NaN()}, {math.NaN(), 1, math.NaN()}, {math.Inf(1), 1, math.NaN()}, {1e308, 1e-308, math.NaN()},
	} {
		got := groupRatio(c.a, c.b)
		if got != c.want && !(math.IsNaN(got) && math.IsNaN(c.want)) {
			t.Errorf("groupRatio(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

// --anchors may name sub-modules ("mlp.linear_fc1"): whole path prefixes
// below the layer, never substrings.
func TestPhase3_DottedAnchors(t *testing.T) {
	kfc1 := tFind(tFwd, "mlp.linear_fc1", "ColumnParallelLinear")
	kfc2 := tFind(tFwd, "mlp.linear_fc2", "RowParallelLinear")
	mul := func(dir model.Direction, layer, k int, s model.Stat) float64 {
		if dir == model.Forward && layer == 3 && k == kfc2 {
			return 1.5 // only linear_fc2's own output
		}
		return 1
	}
	a, b, c, d := tQuad(6, mul)
	r := phase3T(Phase3Input{A: a, B: b, C: c, D: d, Anchors: []string{"self_attention.linear_qkv", "mlp.linear_fc1", "mlp.linear_fc2"}}, DefaultPhase3Options())
	if r.AnchorWarning != nil {
		t.Fatalf("warning %+v", r.AnchorWarning)
	}
	got := map[string][]int{}
	for _, at := range r.Anchors {
		got[at.Name] = at.Conclusion.MetricLayers["Norm"].Fwd
		if k := at.Layers[3].Alignment.FwdKeyA; !strings.Contains(k, at.Name+".") {
			t.Errorf("%s represented by %s", at.Name, k)
		}
	}
	if !reflect.DeepEqual(got["mlp.linear_fc2"], []int{3}) || len(got["mlp.linear_fc1"]) != 0 || len(got["self_attention.linear_qkv"]) != 0 {
		t.Errorf("flags %v (fc1 op %d)", got, kfc1)
	}
}

// When the anchor's own record cannot be paired, the fallback is the
// largest-Norm alignable op below it, from the same micro-batch.
func TestPhase3_FallbackSameCall(t *testing.T) {
	mk := func(name string) *model.Dump { return buildDump(name, tSpec{Layers: 4, Calls: 2}) }
	a, b, c, d := mk("A"), mk("B"), mk("C"), mk("D")
	synth.DropOps(b, func(op *model.Op) bool { return op.Key == "Module.module.module.decoder.layers.2.mlp.MLP.forward.1" })
	opt := DefaultPhase3Options()
	opt.Call = 1
	r := phase3T(Phase3Input{A: a, B: b, C: c, D: d}, opt)
	var mlp model.AnchorTable
	for _, at := range r.Anchors {
		if at.Name == "mlp" {
			mlp = at
		}
	}
	al := mlp.Layers[2].Alignment
	want := "Module.module.module.decoder.layers.2.mlp.linear_fc2.RowParallelLinear.forward.1"
	if al.FwdKeyA != want || al.FwdKeyB != want || !al.FAB {
		t.Fatalf("alignment %+v", al)
	}
	if k := mlp.Layers[1].Alignment.FwdKeyA; k != "Module.module.module.decoder.layers.1.mlp.MLP.forward.1" {
		t.Errorf("layer 1 key %s", k)
	}
}
