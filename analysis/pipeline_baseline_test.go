package analysis

import (
	"testing"

	"spikescope/model"
	"spikescope/testdata/synth"
)

// TestPipelineBaselineOtherLayout: the anomalous run has PP 2 (the spike on
// stage 1's layers.2 = global layer 6), the baseline runs the same model
// with PP 1 (layers.0…7 on every rank). The cross-device check compares the
// same global layer: with the baseline spiking there too the candidate is
// shared, without it device-specific.
func TestPipelineBaselineOtherLayout(t *testing.T) {
	f := &synth.PipelineFault{OptStep: 3, MicroStep: 2, Rank: 3, Layer: 2, Scale: 4}
	r, data := loadPipeline(t, synth.PipelineConfig{PP: 2, DP: 2, LayersPerStage: 4, Window: 4, OptSteps: 6, Seed: 7, Fault: f})
	p1 := Phase1(data["csv"], DefaultPhase1Options())
	for _, shared := range []bool{true, false} {
		bc := synth.PipelineConfig{PP: 1, DP: 4, LayersPerStage: 8, Window: 4, OptSteps: 6, Seed: 8}
		if shared {
			bc.Fault = &synth.PipelineFault{OptStep: 3, MicroStep: 2, Rank: 3, Layer: 6, Scale: 4}
		}
		_, bdata := loadPipeline(t, bc)
		bp1 := Phase1(bdata["csv"], DefaultPhase1Options())
		if shared && (len(bp1.Anomalies) == 0 || bp1.Anomalies[0].TargetName != "layers.6.mlp.linear_fc2.weight") {
			t.Fatalf("baseline candidates %+v", bp1.Anomalies)
		}
		p2, err := Phase2(p1, bp1, nil, DefaultPhase2Options())
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
	if k := baselineKey(&model.Anomaly{TargetName: "pp1:vpp1:layers.2.mlp.w", GlobalLayer: model.IntPtr(14)}); k != "layers.14.mlp.w" {
		t.Errorf("baseline key %q", k)
	}
}
