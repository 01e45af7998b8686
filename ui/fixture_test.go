package ui

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"sync"

	"spikescope/model"
	"spikescope/pipeline"
	"spikescope/words"
)

// fixture builds a small, complete session: 4 ranks × 24 steps of two
// parameters with a spike on rank 2 at step 10 of layers.3.mlp.weight,
// three Phase 1 candidates, a Phase 2 choice, and a Phase 3 result with
// two anchors whose layer 3 is F! and whose drill-down names
// layers.3.mlp.linear_fc1.
func fixture() *Data {
	md := &model.MonitorData{Path: "/data/run/trend.db", Format: model.FormatTrendDB,
		Targets: []model.Target{{Name: "layers.3.mlp.weight"}, {Name: "layers.1.attn.weight"}},
		Metrics: []string{"grad_unreduced"}}
	md.HasStat = [model.NumStats]bool{true, true, true, true}
	for r := int32(0); r < 4; r++ {
		for s := int32(0); s < 24; s++ {
			for t := int32(0); t < 2; t++ {
				v := 1 + 0.1*float64((int(s)*7+int(r)*3+int(t))%5)
				if t == 0 && s == 10 && r == 2 {
					v = 9.5
				}
				if t == 0 && s > 10 && r == 2 {
					v = 3 + 0.2*float64(s-10)
				}
				md.Rows.Append(r, s, model.NoMicro, t, 0, [model.NumStats]float64{v, -v, v, 0})
			}
		}
	}
	an := func(rank, step int, name string, norm, dev float64, trig string) model.Anomaly {
		return model.Anomaly{Rank: rank, Step: step, TargetName: name, Metric: "grad_unreduced",
			Norm: model.Float(norm), Min: model.Float(-norm), Max: model.Float(norm), BaselineMedian: 1.2,
			DeviationRatio: model.Float(dev), Trigger: trig}
	}
	p1 := &model.Phase1Result{Phase: 1, DBPath: md.Path, Format: model.FormatTrendDB,
		Sharding: model.ShardingAnalysis{PPStages: 1, PassUnit: "step", Conclusion: "step level"},
		Summary: model.Phase1Summary{TotalTargets: 2, TotalRows: md.Rows.Len(), Steps: seq(0, 24), Ranks: seq(0, 4),
			PassUnit: "step", AnomalyCount: 3},
		Anomalies: []model.Anomaly{
			an(2, 10, "layers.3.mlp.weight", 9.5, 7.92, "iqr+mad"),
			an(2, 14, "layers.3.mlp.weight", 3.8, 3.17, "iqr"),
			an(1, 17, "layers.1.attn.weight", 1.9, 1.58, "mad"),
		},
		Reasoning: []string{"step-level data: robust baseline per parameter"}}
	coord := &model.Coordinate{Step: model.IntPtr(10), Rank: 2, TargetName: "layers.3.mlp.weight", Norm: 9.5, DeviationRatio: 7.92}
	p2 := &model.Phase2Result{Phase: 2, Mode: "单设备", RootCauseCoordinate: coord,
		Reasoning:               "step-level data: the earliest candidate with the largest deviation is chosen.",
		Decisions:               []string{"step 10: layers.3.mlp.weight on rank 2 deviates 7.92× from its baseline"},
		CrossDeviceVerification: "no baseline run: device specificity not checked",
		CrossStep: []model.CrossStepPair{
			{From: 9, To: 10, TargetName: "layers.3.mlp.weight", Threshold: 2, RanksOver: 1, RanksTotal: 4, Share: 0.25, Judged: true, MinCommonRanks: 3, Verdict: "not a turning point"},
		},
		Candidates: []model.CandidateVerdict{
			{Anomaly: p1.Anomalies[0], Value: 9.5, Verdict: "no baseline", Selected: true},
			{Anomaly: p1.Anomalies[1], Value: 3.8, Verdict: "no baseline"},
		}}
	f := func(v float64) *model.Float { return model.FloatPtr(v) }
	mrow := func(a, b, c, d float64, flagF, flagB bool) model.MetricRow {
		r := model.MetricRow{
			Fwd: model.Quad{A: f(a), B: f(b), C: f(c), D: f(d)},
			Bwd: model.Quad{A: f(a * 2), B: f(b * 2), C: f(c * 2), D: f(d * 2)},
			FAB: f(a / b), FCD: f(c / d), BAB: f(a / b), BCD: f(c / d),
			FAnomaly: f((a / b) / (c / d)), BAnomaly: f((a / b) / (c / d)), FFlag: flagF, BFlag: flagB}
		return r
	}
	layers := func(scale float64) []model.LayerRow {
		var out []model.LayerRow
		for l := 0; l < 6; l++ {
			a := 10.0 + float64(l)
			if l >= 3 {
				a *= 1.6
			}
			ms := map[string]model.MetricRow{}
			for i, m := range metricNames {
				ms[m] = mrow(a*scale*float64(i+1), 10*scale*float64(i+1)+float64(l), 10*float64(i+1), 10*float64(i+1), l >= 3, l == 5)
			}
			lr := model.LayerRow{Layer: l, Metrics: ms}
			if l == 4 { // unaligned on C/D
				for k, m := range lr.Metrics {
					m.Fwd.C, m.FCD, m.FAnomaly = nil, nil, nil
					lr.Metrics[k] = m
				}
			}
			out = append(out, lr)
		}
		return out
	}
	start := model.IntPtr(3)
	starts := map[string]model.MetricStart{}
	for _, m := range metricNames {
		starts[m] = model.MetricStart{FwdStart: start, BwdStart: model.IntPtr(5)}
	}
	var ops []model.DrillOp
	for i, k := range []string{"Module.layers.3.input_layernorm.forward.0", "Functional.linear.3.forward",
		"Module.layers.3.mlp.linear_fc1.forward.0", "Functional.gelu.1.forward", "Module.layers.3.mlp.linear_fc2.forward.0"} {
		ms := map[string]model.MetricRow{}
		for j, m := range metricNames {
			a := 5.0 * float64(j+1)
			if i >= 2 {
				a *= 1.7
			}
			ms[m] = mrow(a, 5*float64(j+1), 5, 5, i >= 2, false)
		}
		ops = append(ops, model.DrillOp{Key: k, Order: 40 + i, Metrics: ms, Flagged: i >= 2, Aligned: true, Parent: "Module.layers.3.mlp.forward.0"})
	}
	p3 := &model.Phase3Result{Phase: 3, LayerPrefix: "layers.",
		Dirs: map[string]string{"A": "/data/run/dump/step10/rank2", "B": "/data/base/dump/step10/rank2",
			"C": "/data/run/dump/step9/rank2", "D": "/data/base/dump/step9/rank2"},
		Anchors: []model.AnchorTable{
			{Name: "mlp", Layers: layers(1), Conclusion: model.AnchorConclusion{MetricStarts: starts, EarliestFwdDivergence: start}},
			{Name: "self_attention", Layers: layers(1.1), Conclusion: model.AnchorConclusion{MetricStarts: starts}},
		},
		AnchorsUsed: []string{"mlp", "self_attention"},
		DivergenceSummary: model.DivergenceSummary{EarliestFwdDivergence: start, EarliestBwdDivergence: model.IntPtr(5),
			MetricStarts: starts,
			// forward bands only: the fixture's backward marks are set by hand
			Thresholds: map[string]map[string]model.Band{
				"Norm": {"fwd": {Lower: 0.8, Upper: 1.25, Usable: true}}, "Max": {"fwd": {Lower: 0.8, Upper: 1.25, Usable: true}},
				"Min": {"fwd": {Lower: 0.8, Upper: 1.25, Usable: true}}, "Mean": {"fwd": {Usable: false}}},
			Directions: []model.DirectionVerdict{
				{Direction: "fwd", Verdict: "divergent", Start: start, Peak: model.IntPtr(5), PeakValue: f(1.62), Flagged: []int{3, 4, 5}, P0: true},
				{Direction: "bwd", Verdict: "divergent", Start: model.IntPtr(5), Flagged: []int{5}},
			},
			Drilldown: &model.Drilldown{Direction: "fwd", Layer: start, Operator: "Module.layers.3.mlp.linear_fc1.forward.0",
				Metric: "Norm", Chain: []string{"Functional.linear.3.forward", "Module.layers.3.input_layernorm.forward.0"}, Ops: ops}}}
	// the conclusion the pipeline reads from it (analysis.ConcludePhase3)
	ds := &p3.DivergenceSummary
	p3.Conclusion = &model.Phase3Conclusion{Verdict: model.VerdictForward, FwdDivergent: true, BwdDivergent: true,
		FwdStart: start, BwdStart: ds.EarliestBwdDivergence, Fwd: &ds.Directions[0], Bwd: &ds.Directions[1], Operator: ds.Drilldown}
	// the verdict the pipeline computes from it (analysis.Verdict): A
	// diverges from B forward at L3 → device
	fwd, op := "fwd", ds.Drilldown.Operator
	p2.Verdict = &model.Verdict{Cause: model.CauseDevice, ActionID: "kernel_owner", Coordinate: coord,
		Direction: &fwd, Layer: model.IntPtr(3), Operator: &op,
		Evidence: []model.Evidence{{Rule: model.EvP3Divergence, Numbers: map[string]model.Float{"layer": 3},
			Names: map[string]string{"direction": "fwd", "operator": op}}}}
	p2.Verdict.Action = words.Action(p2.Verdict, words.English)
	// any other layer: three operators, the second flagged
	opsFor := func(anchor string, layer int, dir string) []model.DrillOp {
		var out []model.DrillOp
		for i, k := range []string{"input_layernorm", "self_attention.linear_qkv", "mlp.linear_fc1"} {
			ms := map[string]model.MetricRow{}
			for j, m := range metricNames {
				a := 3.0 * float64(j+1)
				if i == 1 {
					a *= 1.3
				}
				ms[m] = mrow(a, 3*float64(j+1), 3, 3, i == 1, false)
			}
			out = append(out, model.DrillOp{Key: fmt.Sprintf("Module.layers.%d.%s.%s.0", layer, k, map[string]string{"fwd": "forward", "bwd": "backward"}[dir]),
				Order: 10*layer + i, Metrics: ms, Flagged: i == 1, Aligned: true})
		}
		return out
	}
	return &Data{
		Inputs:  []Input{{Role: "monitor", Path: md.Path}, {Role: "A", Path: "/data/run/dump/step10/rank2"}},
		Monitor: md, P1: p1, P2: p2, P3: p3, OpsForLayer: opsFor, GradNorm: pipeline.GradNormOf(md, p1, p2),
		Controls: []ControlOption{
			{Step: 10, Rank: 1, Label: "/data/run/dump/step10/rank1", Reason: "not a candidate; norm below p75", Usable: true},
			{Step: 9, Rank: 2, Label: "/data/run/dump/step9/rank2", Reason: "not a candidate; norm below p75", Usable: true},
			{Step: 10, Rank: 3, Label: "/data/run/dump/step10/rank3", Reason: "norm above p75"},
		},
	}
}

func seq(from, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = from + i
	}
	return out
}

// fakeBackend serves a fixed Data; Pin/Control record their call.
type fakeBackend struct {
	mu       sync.Mutex
	data     *Data
	err      error
	block    bool // Load reports progress, then waits for cancellation
	progress []model.Progress
	pins     []string
	reports  []string
}

func (f *fakeBackend) Load(ctx context.Context, p model.ProgressFunc) (*Data, error) {
	for _, pr := range f.progress {
		p(pr)
	}
	if f.block {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	if f.err != nil {
		return nil, f.err
	}
	return f.data, nil
}

func (f *fakeBackend) Pin(ctx context.Context, cur *Data, a *model.Anomaly) (*Data, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	nd := *cur
	p2 := *cur.P2
	nd.P2 = &p2
	if a == nil {
		nd.Pin, p2.Pinned = nil, false
		f.pins = append(f.pins, "")
		return &nd, nil
	}
	nd.Pin = a.Coord()
	p2.Pinned = true
	p2.RootCauseCoordinate = &model.Coordinate{Step: model.IntPtr(a.Step), Rank: a.Rank, TargetName: a.TargetName, Norm: a.Norm, DeviationRatio: a.DeviationRatio}
	if p2.Verdict != nil {
		v := *p2.Verdict
		v.Coordinate = p2.RootCauseCoordinate
		p2.Verdict = &v
	}
	f.pins = append(f.pins, nd.Pin.Label())
	return &nd, nil
}

func (f *fakeBackend) Control(ctx context.Context, cur *Data, step, rank int) (*Data, error) {
	nd := *cur
	p3 := *cur.P3
	p3.Degraded, p3.DegradedNote = false, ""
	p3.ControlChoice = fmt.Sprintf("step %d rank %d (chosen)", step, rank)
	nd.P3 = &p3
	return &nd, nil
}

func (f *fakeBackend) WriteReport(ctx context.Context, cur *Data, path string) error {
	f.mu.Lock()
	f.reports = append(f.reports, path)
	f.mu.Unlock()
	f2, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	defer f2.Close()
	_, err = f2.WriteString("# report\n")
	return err
}

var errFixtureLoad = errors.New(`/data/missing.db: not a trend.db (no table "trend_data")`)

var _ = math.NaN
