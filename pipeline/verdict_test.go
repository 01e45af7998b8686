package pipeline

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"spikescope/model"
	"spikescope/testdata/synth"
	"spikescope/words"
)

// verdictCase is one synthetic run with a planted cause and the inputs a
// user gives; the verdict must name the cause, the evidence rule that
// decided it and the parameter (or none for a noise-only run).
type verdictCase struct {
	name   string
	cfg    func() synth.Config
	inputs string // "monitor", "monitor+baseline", "ab", "abcd", "monitor+baseline+ab"
	cause  string // "" = no verdict
	likely string
	rule   string // an evidence rule that must be there
	param  func(r *synth.Run) string
	// layer/operator expected from Phase 3 (dump inputs)
	layer    *int
	operator func(r *synth.Run) string
	decides  *bool // parameter_decides wanted (nil: not checked)
}

func stepRun(spikes ...synth.Spike) func() synth.Config {
	return func() synth.Config {
		c := synth.DefaultConfig()
		c.Window, c.OptSteps, c.NoFault, c.Spikes = 1, 14, true, spikes
		return c
	}
}

func kernelParam(layer int) func(r *synth.Run) string {
	return func(r *synth.Run) string { return r.ParamName(layer, "mlp.linear_fc2.weight") }
}

func allRanks(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

func TestVerdictClasses(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and reads synthetic runs")
	}
	f := false
	faultLayer := synth.DefaultConfig().Fault.Layer
	kernel := synth.Spike{OptStep: 7, Ranks: []int{2}, Kernel: true, Layer: 3, Scale: 6}
	data := synth.Spike{OptStep: 7, Ranks: []int{5}, All: true, Scale: 8}
	overflow := synth.Spike{OptStep: 7, Overflow: true, Names: []string{"output_layer.weight", "embedding.word_embeddings.weight"}}
	cases := []verdictCase{
		// monitor only: the class cannot be decided; the extent names the likely one
		{name: "monitor kernel", cfg: stepRun(kernel), inputs: "monitor", cause: model.CauseUndetermined, likely: model.CauseDevice, rule: model.EvExtent, param: kernelParam(3)},
		{name: "monitor bad batch", cfg: stepRun(data), inputs: "monitor", cause: model.CauseUndetermined, likely: model.CauseData, rule: model.EvParamUndecided, decides: &f},
		{name: "monitor overflow on every rank", cfg: stepRun(overflow), inputs: "monitor", cause: model.CauseUndetermined, likely: model.CauseNumerics, rule: model.EvNonFiniteOne},
		{name: "monitor growth on every rank", cfg: stepRun(
			synth.Spike{OptStep: 7, Ranks: allRanks(8), All: true, Scale: 4},
			synth.Spike{OptStep: 8, Ranks: allRanks(8), All: true, Scale: 12}),
			inputs: "monitor", cause: model.CauseDynamics, rule: model.EvRunWideGrowth},
		{name: "monitor noise only", cfg: stepRun(), inputs: "monitor"},
		// monitor + the baseline device's monitor
		{name: "baseline: device-specific kernel", cfg: stepRun(kernel), inputs: "monitor+baseline", cause: model.CauseDevice, rule: model.EvDeviceSpecific, param: kernelParam(3)},
		{name: "baseline: shared bad batch", cfg: stepRun(shared(data)), inputs: "monitor+baseline", cause: model.CauseData, rule: model.EvShared, decides: &f},
		{name: "baseline: shared fp16 overflow", cfg: stepRun(shared(overflow)), inputs: "monitor+baseline", cause: model.CauseNumerics, rule: model.EvSharedNonFinite},
		{name: "baseline: shared growth on every rank", cfg: stepRun(
			shared(synth.Spike{OptStep: 7, Ranks: allRanks(8), All: true, Scale: 4}),
			shared(synth.Spike{OptStep: 8, Ranks: allRanks(8), All: true, Scale: 12})),
			inputs: "monitor+baseline", cause: model.CauseDynamics, rule: model.EvShared},
		{name: "baseline: noise only", cfg: stepRun(), inputs: "monitor+baseline"},
		// dumps: the planted operator fault of the demo configuration
		{name: "dumps A/B (degraded)", cfg: synth.DefaultConfig, inputs: "ab", cause: model.CauseDevice, rule: model.EvP3Divergence, layer: &faultLayer},
		{name: "dumps A/B/C/D", cfg: synth.DefaultConfig, inputs: "abcd", cause: model.CauseDevice, rule: model.EvP3Divergence, layer: &faultLayer,
			operator: func(r *synth.Run) string { return r.Truth().PlantedOperator }},
		{name: "monitor+baseline+dumps: operator fault", cfg: synth.DefaultConfig, inputs: "monitor+baseline+ab", cause: model.CauseDevice, rule: model.EvDeviceSpecific,
			param: func(r *synth.Run) string { return r.Truth().Parameter }, layer: &faultLayer, operator: func(r *synth.Run) string { return r.Truth().PlantedOperator }},
		// a bad batch both devices see, with both devices' dumps of it: A and B agree
		{name: "monitor+baseline+dumps: shared bad batch", cfg: func() synth.Config {
			c := synth.DefaultConfig()
			c.NoFault, c.Fault.OpScale = true, 1 // no operator fault in the dumps either
			c.Spikes = []synth.Spike{{OptStep: c.Fault.OptStep, MicroStep: c.Fault.MicroStep, Ranks: []int{c.Fault.Rank}, All: true, Scale: 8, Shared: true}}
			return c
		}, inputs: "monitor+baseline+ab", cause: model.CauseData, rule: model.EvP3Consistent},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := synth.Generate(c.cfg())
			in := writeVerdictInputs(t, r, c.inputs)
			s, err := Load(context.Background(), in, nil)
			if err != nil {
				t.Fatal(err)
			}
			v := s.Verdict
			if c.cause == "" {
				if v != nil {
					t.Fatalf("noise only: verdict %s", js(v))
				}
				if s.P2 != nil && s.P2.Verdict != nil {
					t.Fatal("P2 carries a verdict")
				}
				return
			}
			if v == nil {
				t.Fatalf("no verdict; P2 %s", js(s.P2))
			}
			if v.Cause != c.cause || v.Likely != c.likely {
				t.Fatalf("cause %q likely %q, want %q %q: %s", v.Cause, v.Likely, c.cause, c.likely, js(v))
			}
			if (v.Likely != "") != (v.Cause == model.CauseUndetermined) {
				t.Fatalf("likely %q with cause %q", v.Likely, v.Cause)
			}
			found := false
			for _, e := range v.Evidence {
				found = found || e.Rule == c.rule
				if zh := words.Evidence(&e, words.Chinese); e.Text == "" || zh == "" || zh == e.Text {
					t.Errorf("evidence %s: text %q, zh %q", e.Rule, e.Text, zh)
				}
			}
			if !found {
				t.Fatalf("no %s evidence: %s", c.rule, js(v.Evidence))
			}
			if c.param != nil && v.Parameter() != c.param(r) {
				t.Fatalf("parameter %q, want %q", v.Parameter(), c.param(r))
			}
			if c.decides != nil && v.Coordinate.ParamDecides() != *c.decides {
				t.Fatalf("parameter_decides %v: %s", v.Coordinate.ParamDecides(), js(v.Coordinate))
			}
			if c.layer != nil && (v.Layer == nil || *v.Layer != *c.layer) {
				t.Fatalf("layer %v, want %d: %s", v.Layer, *c.layer, js(v))
			}
			if c.operator != nil && v.OperatorName() != c.operator(r) {
				t.Fatalf("operator %q, want %q", v.OperatorName(), c.operator(r))
			}
			if zh := words.Action(v, words.Chinese); v.Action == "" || zh == v.Action {
				t.Fatalf("action %q / zh %q", v.Action, zh)
			}
			checkZhVerdict(t, s)
			// computed once: every result carries the same value
			if s.P2 != nil && s.P2.Verdict != v || s.P3 != nil && s.P3.Verdict != v {
				t.Fatal("the Phase 2/3 results carry another verdict")
			}
		})
	}
}

func shared(sp synth.Spike) synth.Spike { sp.Shared = true; return sp }

func js(v any) string { b, _ := json.Marshal(v); return string(b) }

// writeVerdictInputs writes the run's files for one input combination.
func writeVerdictInputs(t *testing.T, r *synth.Run, what string) Inputs {
	t.Helper()
	dir := t.TempDir()
	var in Inputs
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
	k, rank := r.Cfg.Fault.OptStep, r.Cfg.Fault.Rank
	at := func(root string, step, rank int) string {
		return filepath.Join(root, "step"+strconv.Itoa(step), "rank"+strconv.Itoa(rank))
	}
	switch what {
	case "monitor":
		in.Path = mon(synth.Anomalous)
	case "monitor+baseline":
		in.Path, in.Baseline = mon(synth.Anomalous), mon(synth.Baseline)
	case "ab": // one dump folder each: no control group
		a, b := dumps(synth.Anomalous), dumps(synth.Baseline)
		in.DumpA, in.DumpB = at(a, k, rank), at(b, k, rank)
	case "abcd":
		a, b := dumps(synth.Anomalous), dumps(synth.Baseline)
		c := r.Cfg.ControlRanks[0]
		in.DumpA, in.DumpB, in.DumpC, in.DumpD = at(a, k, rank), at(b, k, rank), at(a, k, c), at(b, k, c)
	case "monitor+baseline+ab":
		in.Path, in.Baseline = mon(synth.Anomalous), mon(synth.Baseline)
		in.DumpA, in.DumpB = dumps(synth.Anomalous), dumps(synth.Baseline)
	default:
		t.Fatalf("unknown inputs %q", what)
	}
	return in
}
