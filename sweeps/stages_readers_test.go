package sweeps

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"spikescope/analysis"
	"spikescope/ingest"
	"spikescope/model"
	"spikescope/testdata/synth"
	"spikescope/words"
)

// loadStages writes a synthetic PP run without VPP as a monitor CSV tree
// and as a trend.db and reads both back through the real readers.
func loadStages(t *testing.T, cfg synth.StagesConfig) (*synth.StagesRun, map[string]*model.MonitorData) {
	t.Helper()
	r := synth.GenerateStages(cfg)
	dir := t.TempDir()
	csvDir, db := filepath.Join(dir, "monitor_output"), filepath.Join(dir, "monitor_data.trend.db")
	if err := r.WriteCSVTree(csvDir); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteTrendDB(db); err != nil {
		t.Fatal(err)
	}
	out := map[string]*model.MonitorData{}
	for name, p := range map[string]string{"csv": csvDir, "trenddb": db} {
		d, err := ingest.LoadMonitor(context.Background(), p, model.FormatAuto, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = d
	}
	return r, out
}

// TestStagesWithoutVPPSpikeOnLaterStage: PP=2 and PP=4 runs without VPP
// (vpp_stage 0 everywhere, layer names restart per stage) with a spike on a
// rank of the last stage: Phase 1 infers the stages from the parameter
// sets, names the candidate pp<stage>:<local name> with its global layer,
// and Phase 2 roots it on that rank, step and micro step.
func TestStagesWithoutVPPSpikeOnLaterStage(t *testing.T) {
	for _, pp := range []int{2, 4} {
		const dp = 2
		f := &synth.StageFault{OptStep: 3, MicroStep: 2, Rank: (pp-1)*dp + 1, Layer: 2, Scale: 4}
		r, data := loadStages(t, synth.StagesConfig{PP: pp, DP: dp, LayersPerStage: 4, Window: 4, OptSteps: 6, Seed: 7, Fault: f})
		for format, d := range data {
			res := analysis.Phase1(d, analysis.DefaultPhase1Options())
			sa := res.Sharding
			if sa.PPStages != pp || sa.Stages == nil || !sa.Stages.Inferred {
				t.Fatalf("PP=%d %s: pp_stages %d, pipeline %+v", pp, format, sa.PPStages, sa.Stages)
			}
			for rk := 0; rk < pp*dp; rk++ {
				if got := sa.Stages.StageOf(rk); got != r.StageOf(rk) {
					t.Errorf("PP=%d %s: rank %d in stage %d, want %d", pp, format, rk, got, r.StageOf(rk))
				}
			}
			if want := []int{0, 4, 8, 12}[:pp]; !slices.Equal(sa.Stages.LayerOffsets, want) {
				t.Errorf("PP=%d %s: layer offsets %v, want %v", pp, format, sa.Stages.LayerOffsets, want)
			}
			if len(res.Anomalies) == 0 {
				t.Fatalf("PP=%d %s: no candidate", pp, format)
			}
			a := res.Anomalies[0]
			if a.Rank != f.Rank || a.OptStep() != f.OptStep || a.Micro() != f.MicroStep || a.TargetName != r.FaultTarget() {
				t.Errorf("PP=%d %s: first candidate rank %d opt %d ms %d %s, want rank %d opt %d ms %d %s",
					pp, format, a.Rank, a.OptStep(), a.Micro(), a.TargetName, f.Rank, f.OptStep, f.MicroStep, r.FaultTarget())
			}
			if a.PPStage == nil || *a.PPStage != pp-1 || a.GlobalLayer == nil || *a.GlobalLayer != r.FaultGlobalLayer() {
				t.Errorf("PP=%d %s: pp_stage %v global_layer %v, want %d and %d", pp, format, a.PPStage, a.GlobalLayer, pp-1, r.FaultGlobalLayer())
			}
			for _, b := range res.Anomalies {
				if _, _, ok := model.SplitStageName(b.TargetName); !ok {
					t.Errorf("PP=%d %s: candidate %s has no stage in its name", pp, format, b.TargetName)
				}
			}
			p2, err := phase2Said(analysis.Phase2(res, nil, nil, analysis.DefaultPhase2Options()))
			if err != nil {
				t.Fatal(err)
			}
			co := p2.RootCauseCoordinate
			if co == nil || co.Rank != f.Rank || co.TargetName != r.FaultTarget() || co.OptimizerStep == nil || *co.OptimizerStep != f.OptStep {
				t.Errorf("PP=%d %s: root %+v, want rank %d opt %d %s", pp, format, co, f.Rank, f.OptStep, r.FaultTarget())
			}
		}
	}
}

// TestStagesWithoutVPPNoSpike: the same runs without a fault give no
// candidate. Pooling the stages' same-named parameters (what Phase 1 did
// before stages were inferred, forced here by marking the data as already
// analysed for stages) gives step-0 "spikes" on the first stage: the stage
// split is what removes them.
func TestStagesWithoutVPPNoSpike(t *testing.T) {
	for _, pp := range []int{2, 4} {
		_, data := loadStages(t, synth.StagesConfig{PP: pp, DP: 2, LayersPerStage: 4, Window: 4, OptSteps: 6, Seed: 11})
		for format, d := range data {
			res := analysis.Phase1(d, analysis.DefaultPhase1Options())
			if res.Sharding.PPStages != pp {
				t.Errorf("PP=%d %s: pp_stages %d", pp, format, res.Sharding.PPStages)
			}
			if len(res.Anomalies) != 0 {
				a := res.Anomalies[0]
				t.Errorf("PP=%d %s: %d candidates without a spike, first rank %d opt %d %s %.3g×", pp, format, len(res.Anomalies), a.Rank, a.OptStep(), a.TargetName, float64(a.DeviationRatio))
			}
			pooled := *d
			pooled.Stages = &model.StageLayout{Stages: 1}
			old := analysis.Phase1(&pooled, analysis.DefaultPhase1Options())
			if len(old.Anomalies) == 0 || old.Anomalies[0].OptStep() != 0 || old.Anomalies[0].Rank >= 2 || !(old.Anomalies[0].DeviationRatio > 3) {
				t.Errorf("PP=%d %s: pooled stages should give a false step-0 candidate on stage 0 (the data must show the problem); got %d", pp, format, len(old.Anomalies))
			}
		}
	}
}

// TestStagesDataFeedsViewer: analysis.Phase1Data returns the stage-split data; a
// second Phase 1 on it infers nothing again and gives the same candidates.
func TestStagesDataFeedsViewer(t *testing.T) {
	f := &synth.StageFault{OptStep: 2, MicroStep: 1, Rank: 3, Layer: 1, Scale: 4}
	r, data := loadStages(t, synth.StagesConfig{PP: 2, DP: 2, LayersPerStage: 3, Window: 4, OptSteps: 6, Seed: 3, Fault: f})
	res, split := analysis.Phase1Data(data["csv"], analysis.DefaultPhase1Options())
	if split.Stages == nil || split == data["csv"] {
		t.Fatal("analysis.Phase1Data did not return the split data")
	}
	has := map[string]bool{}
	for _, tg := range split.Targets {
		has[tg.Name] = true
	}
	for _, want := range []string{r.FaultTarget(), "pp0:layers.1.mlp.linear_fc2.weight", "pp0:embedding.word_embeddings.weight", "pp1:output_layer.weight"} {
		if !has[want] {
			t.Errorf("split data lacks %s", want)
		}
	}
	if has["layers.1.mlp.linear_fc2.weight"] || has["pp1:embedding.word_embeddings.weight"] {
		t.Error("split data keeps an unsplit or foreign target")
	}
	again := analysis.Phase1(split, analysis.DefaultPhase1Options())
	if len(again.Anomalies) != len(res.Anomalies) || len(res.Anomalies) == 0 || again.Anomalies[0].TargetName != res.Anomalies[0].TargetName {
		t.Errorf("second Phase 1: %d candidates, first %d", len(again.Anomalies), len(res.Anomalies))
	}
}

// TestStagesBaselineOtherLayout: the anomalous run has PP 2 (the spike on
// stage 1's layers.2 = global layer 6), the baseline runs the same model
// with PP 1 (layers.0…7 on every rank). The cross-device check compares the
// same global layer: with the baseline spiking there too the candidate is
// shared, without it device-specific.
func TestStagesBaselineOtherLayout(t *testing.T) {
	f := &synth.StageFault{OptStep: 3, MicroStep: 2, Rank: 3, Layer: 2, Scale: 4}
	r, data := loadStages(t, synth.StagesConfig{PP: 2, DP: 2, LayersPerStage: 4, Window: 4, OptSteps: 6, Seed: 7, Fault: f})
	p1 := analysis.Phase1(data["csv"], analysis.DefaultPhase1Options())
	for _, shared := range []bool{true, false} {
		bc := synth.StagesConfig{PP: 1, DP: 4, LayersPerStage: 8, Window: 4, OptSteps: 6, Seed: 8}
		if shared {
			bc.Fault = &synth.StageFault{OptStep: 3, MicroStep: 2, Rank: 3, Layer: 6, Scale: 4}
		}
		_, bdata := loadStages(t, bc)
		bp1 := analysis.Phase1(bdata["csv"], analysis.DefaultPhase1Options())
		if shared && (len(bp1.Anomalies) == 0 || bp1.Anomalies[0].TargetName != "layers.6.mlp.linear_fc2.weight") {
			t.Fatalf("baseline candidates %+v", bp1.Anomalies)
		}
		p2, err := phase2Said(analysis.Phase2(p1, bp1, nil, analysis.DefaultPhase2Options()))
		if err != nil {
			t.Fatal(err)
		}
		var got string
		for _, v := range p2.Candidates {
			if v.Anomaly.TargetName == r.FaultTarget() && v.Anomaly.Rank == f.Rank {
				got = v.Verdict
			}
		}
		want := "device-specific"
		if shared {
			want = "shared"
		}
		if got != want {
			t.Errorf("baseline spiking at global layer 6 = %v: verdict %q, want %q (%s)", shared, got, want, p2.CrossDeviceVerification)
		}
		ev := ""
		for _, e := range p2.Events {
			if e.RootStep == f.OptStep {
				ev = e.Baseline
			}
		}
		if ev != want {
			t.Errorf("baseline spiking at global layer 6 = %v: event at step %d labelled %q, want %q", shared, f.OptStep, ev, want)
		}
	}
}

// TestStagesPin: a pin on a PP run takes the stage name, or the
// stage-local name of the pinned rank's stage; a bare name without a rank
// is ambiguous, a stage name on a rank of another stage is refused.
func TestStagesPin(t *testing.T) {
	f := &synth.StageFault{OptStep: 3, MicroStep: 2, Rank: 3, Layer: 2, Scale: 4}
	r, data := loadStages(t, synth.StagesConfig{PP: 2, DP: 2, LayersPerStage: 4, Window: 4, OptSteps: 6, Seed: 7, Fault: f})
	p1 := analysis.Phase1(data["csv"], analysis.DefaultPhase1Options())
	for _, tc := range []struct {
		pin, want, err string
	}{
		{"opt=3,ms=2,rank=3,param=layers.2.mlp.linear_fc2.weight", r.FaultTarget(), ""},
		{"opt=3,ms=2,rank=3,param=" + r.FaultTarget(), r.FaultTarget(), ""},
		{"opt=1,rank=0,param=linear_fc2.weight", "", "ambiguous"},
		{"opt=1,rank=0,param=layers.2.mlp.linear_fc2.weight", "pp0:layers.2.mlp.linear_fc2.weight", ""},
		{"opt=1,param=layers.2.mlp.linear_fc2.weight", "", "ambiguous"},
		{"opt=3,rank=0,param=" + r.FaultTarget(), "", "stage 1, rank 0 is on stage 0"},
	} {
		pin, err := model.ParseCoord(tc.pin)
		if err != nil {
			t.Fatal(err)
		}
		p2, err := phase2Said(analysis.Phase2(p1, nil, pin, analysis.DefaultPhase2Options()))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.pin, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.pin, err)
			continue
		}
		if co := p2.RootCauseCoordinate; co == nil || co.TargetName != tc.want {
			t.Errorf("%s: coordinate %+v, want %s", tc.pin, co, tc.want)
		}
	}
}

// TestStagesFromLevels: a target list limited to the transformer
// layers (no embedding, no final norm) on PP=2 and PP=4: every rank holds
// the same names, the stages' gradient levels (5× apart) tell them, and
// the spike on a later stage is found under its stage's name. Levels only
// 1.3× apart cannot be told from data noise: no stages, no note, and still
// no false candidate; a data-parallel run (PP=1) gets no note either.
func TestStagesFromLevels(t *testing.T) {
	for _, pp := range []int{2, 4} {
		f := &synth.StageFault{OptStep: 3, MicroStep: 1, Rank: (pp-1)*2 + 1, Layer: 1, Scale: 4}
		r, data := loadStages(t, synth.StagesConfig{PP: pp, DP: 2, LayersPerStage: 4, Window: 4, OptSteps: 6, Seed: 5, Fault: f, LayersOnly: true})
		for format, d := range data {
			res := analysis.Phase1(d, analysis.DefaultPhase1Options())
			words.Phase1(res, words.Default)
			pl := res.Sharding.Stages
			if res.Sharding.PPStages != pp || pl == nil || !strings.HasPrefix(pl.Method, "gradient levels") {
				t.Fatalf("PP=%d %s: pp_stages %d pipeline %+v", pp, format, res.Sharding.PPStages, pl)
			}
			if len(res.Anomalies) == 0 || res.Anomalies[0].TargetName != r.FaultTarget() || res.Anomalies[0].Rank != f.Rank {
				t.Errorf("PP=%d %s: candidates %d, want the first at rank %d %s", pp, format, len(res.Anomalies), f.Rank, r.FaultTarget())
			}
		}
	}
	for _, tc := range []struct {
		pp    int
		level float64
	}{{1, 0.2}, {2, 0.77}} {
		_, data := loadStages(t, synth.StagesConfig{PP: tc.pp, DP: 4, LayersPerStage: 4, Window: 4, OptSteps: 6, Seed: 9, LayersOnly: true, StageLevel: tc.level})
		res := analysis.Phase1(data["csv"], analysis.DefaultPhase1Options())
		if res.Sharding.PPStages != 1 || res.Sharding.Stages != nil {
			t.Errorf("PP=%d level %g: pp_stages %d pipeline %+v", tc.pp, tc.level, res.Sharding.PPStages, res.Sharding.Stages)
		}
		if len(res.Anomalies) != 0 {
			t.Errorf("PP=%d level %g: %d false candidates", tc.pp, tc.level, len(res.Anomalies))
		}
	}
}

// TestStagesNotInferred: one rank per stage and no embedding /
// final norm in the targets: the levels differ far beyond data noise but
// nothing tells which ranks share a stage — the output says so.
func TestStagesNotInferred(t *testing.T) {
	_, data := loadStages(t, synth.StagesConfig{PP: 4, DP: 1, LayersPerStage: 3, Window: 4, OptSteps: 6, Seed: 4, LayersOnly: true})
	res := analysis.Phase1(data["trenddb"], analysis.DefaultPhase1Options())
	words.Phase1(res, words.Default)
	pl := res.Sharding.Stages
	if res.Sharding.PPStages != 1 || pl == nil || pl.Inferred || !strings.Contains(pl.Note, "could not be told apart") {
		t.Fatalf("pp_stages %d pipeline %+v", res.Sharding.PPStages, pl)
	}
	found := false
	for _, w := range res.Warnings {
		found = found || strings.Contains(w, "monitor the embedding and the final norm")
	}
	if !found {
		t.Errorf("warnings %v", res.Warnings)
	}
}
