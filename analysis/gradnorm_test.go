package analysis

import (
	"math"
	"slices"
	"testing"

	"spikescope/model"
	"spikescope/testdata/synth"
)

// gradNormOf runs Phase 1 on the run's anomalous device and the view at root.
func gradNormOf(t *testing.T, r *synth.Run, root *int) (*model.GradNorm, *model.MonitorData) {
	t.Helper()
	p1, d := Phase1Data(r.Monitor(synth.Anomalous), DefaultPhase1Options())
	g := GradNormAround(d, p1, root)
	if g == nil || !g.StepsKnown {
		t.Fatalf("no grad-norm view: %+v", g)
	}
	return g, d
}

// shareSum is the sum of a decomposition's shares.
func shareSum(parts []model.GradNormPart) float64 {
	s := 0.0
	for _, p := range parts {
		s += float64(p.Share)
	}
	return s
}

func checkSums(t *testing.T, sh model.GradNormShare) {
	t.Helper()
	for name, parts := range map[string][]model.GradNormPart{"param": sh.ByParam, "layer": sh.ByLayer, "rank": sh.ByRank} {
		if s := shareSum(parts); math.Abs(s-1) > 1e-9 {
			t.Errorf("shares by %s sum to %.12f, want 1", name, s)
		}
	}
}

// layerNames are the squashed names of every parameter of one layer.
func layerNames(r *synth.Run, layer int) []string {
	var out []string
	for _, p := range r.Params {
		if p.Layer == layer {
			out = append(out, p.Squashed)
		}
	}
	return out
}

// TestGradNormLargestShare plants a spike in one parameter, one layer, one
// rank or everything, and checks that the decomposition names it: the
// planted part holds the largest share, and where everything moved no
// single rank or layer dominates.
func TestGradNormLargestShare(t *testing.T) {
	t.Parallel()
	const step = 9
	fc2 := func(r *synth.Run) string { return r.ParamName(3, "mlp.linear_fc2.weight") }
	cases := []struct {
		name  string
		spike func(r *synth.Run) synth.Spike
		moved model.GradNormMoved
		check func(t *testing.T, r *synth.Run, sh model.GradNormShare)
	}{
		{"one parameter", func(*synth.Run) synth.Spike {
			return synth.Spike{OptStep: step, Ranks: []int{2}, Kernel: true, Layer: 3, Scale: 30}
		}, model.MovedParam, func(t *testing.T, r *synth.Run, sh model.GradNormShare) {
			if sh.ByParam[0].Param != fc2(r) || sh.ByParam[0].Share < 0.5 {
				t.Errorf("largest parameter %s %.3f, want %s above half", sh.ByParam[0].Param, sh.ByParam[0].Share, fc2(r))
			}
			if sh.ByRank[0].Rank != 2 || sh.ByLayer[0].Layer != 3 || !sh.ByLayer[0].GlobalLayer {
				t.Errorf("largest rank %d layer %d, want rank 2 layer 3", sh.ByRank[0].Rank, sh.ByLayer[0].Layer)
			}
		}},
		{"one layer", func(r *synth.Run) synth.Spike {
			return synth.Spike{OptStep: step, Names: layerNames(r, 4), Scale: 4}
		}, model.MovedLayer, func(t *testing.T, r *synth.Run, sh model.GradNormShare) {
			if sh.ByLayer[0].Layer != 4 || sh.ByLayer[0].Share < 0.5 {
				t.Errorf("largest layer %d %.3f, want layer 4 above half", sh.ByLayer[0].Layer, sh.ByLayer[0].Share)
			}
			if sh.ByLayer[0].Ranks != r.Cfg.Ranks {
				t.Errorf("layer 4 summed over %d ranks, want %d", sh.ByLayer[0].Ranks, r.Cfg.Ranks)
			}
			if top := sh.ByRank[0].Share; float64(top) > 2.0/float64(r.Cfg.Ranks) {
				t.Errorf("one rank holds %.3f of a layer-wide spike", top)
			}
		}},
		{"one rank", func(*synth.Run) synth.Spike {
			return synth.Spike{OptStep: step, Ranks: []int{6}, All: true, Scale: 5}
		}, model.MovedRank, func(t *testing.T, r *synth.Run, sh model.GradNormShare) {
			if sh.ByRank[0].Rank != 6 || sh.ByRank[0].Share < 0.8 {
				t.Errorf("largest rank %d %.3f, want rank 6 above 0.8", sh.ByRank[0].Rank, sh.ByRank[0].Share)
			}
			if top := sh.ByParam[0].Share; top > 0.5 {
				t.Errorf("one parameter (%s) holds %.3f of a rank-wide spike", sh.ByParam[0].Param, top)
			}
		}},
		{"everything", func(*synth.Run) synth.Spike {
			return synth.Spike{OptStep: step, All: true, Scale: 4}
		}, model.MovedSpread, func(t *testing.T, r *synth.Run, sh model.GradNormShare) {
			if top := sh.ByRank[0].Share; float64(top) > 2.0/float64(r.Cfg.Ranks) {
				t.Errorf("rank %d holds %.3f of a run-wide spike", sh.ByRank[0].Rank, top)
			}
			if top := sh.ByParam[0].Share; top > 0.5 {
				t.Errorf("one parameter (%s) holds %.3f of a run-wide spike", sh.ByParam[0].Param, top)
			}
		}},
	}
	for _, window := range []int{1, 4} {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				base := synth.EventsRun(window, 14)
				r := synth.EventsRun(window, 14, tc.spike(base))
				g, _ := gradNormOf(t, r, model.IntPtr(step))
				sh := *g.RootShare()
				if sh.Outcome != model.ShareIncrease {
					t.Fatalf("window %d: outcome %s, want increase", window, sh.Outcome)
				}
				if !slices.Equal(g.Steps, []int{step - 3, step - 2, step - 1, step, step + 1, step + 2}) ||
					!slices.Equal(sh.Reference, []int{step - 3, step - 2, step - 1}) {
					t.Errorf("window %d: steps %v reference %v", window, g.Steps, sh.Reference)
				}
				if sh.Compared != r.Cfg.Ranks*len(r.Params) || sh.Uncompared != 0 {
					t.Errorf("compared %d uncompared %d, want %d, 0", sh.Compared, sh.Uncompared, r.Cfg.Ranks*len(r.Params))
				}
				checkSums(t, sh)
				tc.check(t, r, sh)
				if m, _ := sh.Moved(); m != tc.moved {
					t.Errorf("window %d: moved %d, want %d", window, m, tc.moved)
				}
			})
		}
	}
}

// TestGradNormPerRank checks the per-rank norm against sqrt(Σ n²) of the
// generator's own final (last micro step) norms, as stored.
func TestGradNormPerRank(t *testing.T) {
	r := synth.EventsRun(4, 12, synth.Spike{OptStep: 7, Ranks: []int{1}, Kernel: true, Layer: 2, Scale: 30})
	g, _ := gradNormOf(t, r, model.IntPtr(7))
	if g.Metric != synth.MetricUnreduced {
		t.Fatalf("metric %q", g.Metric)
	}
	if !slices.Equal(g.Ranks, []int{0, 1, 2, 3, 4, 5, 6, 7}) {
		t.Fatalf("ranks %v", g.Ranks)
	}
	// trend.db numbers optimizer steps from the run's first global step
	for i, s := range g.Steps {
		for j, rank := range g.Ranks {
			sum := 0.0
			for p := range r.Params {
				n := r.Grad(synth.Anomalous, rank, s, r.Cfg.Window-1, p).Norm
				n = float64(float32(n)) // only to tolerate the 6-digit rounding below
				sum += n * n
			}
			want := math.Sqrt(sum)
			if got := float64(g.Norm[i][j]); math.Abs(got-want) > 1e-5*want {
				t.Errorf("step %d rank %d: norm %.9g, want %.9g", s, rank, got, want)
			}
			if g.Params[i][j] != len(r.Params) || g.NonFinite[i][j] != 0 {
				t.Errorf("step %d rank %d: %d parameters (%d non-finite)", s, rank, g.Params[i][j], g.NonFinite[i][j])
			}
		}
	}
	if g.Model != nil || g.StageRanks != nil {
		t.Errorf("one stage: no model norm expected, got %v", g.Model)
	}
	// grad_reduced is alike on every rank: the model's norm after the
	// data-parallel average, from one rank
	if !slices.Equal(g.ReducedRanks, []int{0}) || len(g.Reduced) != len(g.Steps) {
		t.Fatalf("reduced ranks %v, %d reduced norms", g.ReducedRanks, len(g.Reduced))
	}
	for i, s := range g.Steps {
		sum := 0.0
		for p := range r.Params {
			n := r.Reduced(synth.Anomalous, s, p).Norm
			sum += n * n
		}
		if want, got := math.Sqrt(sum), float64(g.Reduced[i]); math.Abs(got-want) > 1e-5*want {
			t.Errorf("step %d: reduced norm %.9g, want %.9g", s, got, want)
		}
	}
	if g.RootShare().Outcome != model.ShareIncrease {
		t.Fatalf("outcome %s", g.RootShare().Outcome)
	}
	// the decomposition is exact: Σ Δ of the ranks = RootSq − RefSq
	d := 0.0
	for _, p := range g.RootShare().ByRank {
		d += float64(p.Root - p.Ref)
	}
	if want := float64(g.RootShare().RootSq - g.RootShare().RefSq); math.Abs(d-want) > 1e-9*want {
		t.Errorf("Σ Δ by rank %.9g, RootSq−RefSq %.9g", d, want)
	}
}

// TestGradNormNoShare: a non-finite root, a decrease, a root without steps
// before it and no root at all each say so and share nothing out.
func TestGradNormNoShare(t *testing.T) {
	t.Parallel()
	overflow := synth.EventsRun(4, 12, synth.Spike{OptStep: 6, MicroStep: 1, Overflow: true,
		Names: []string{"output_layer.weight"}})
	g, _ := gradNormOf(t, overflow, model.IntPtr(6))
	sh := *g.RootShare()
	if sh.Outcome != model.ShareNonFinite || sh.NonFiniteCount != overflow.Cfg.Ranks || len(sh.ByParam) != 0 {
		t.Errorf("overflow: outcome %s, %d non-finite, %d parts", sh.Outcome, sh.NonFiniteCount, len(sh.ByParam))
	}
	if len(sh.NonFiniteParts) == 0 || sh.NonFiniteParts[0].Param != "output_layer.weight" || sh.NonFiniteParts[0].Rank != 0 {
		t.Errorf("overflow parts %+v", sh.NonFiniteParts)
	}
	ri := slices.Index(g.Steps, 6)
	if !math.IsInf(float64(g.Norm[ri][0]), 1) || g.NonFinite[ri][0] != 1 {
		t.Errorf("overflow: rank 0 norm %v (%d non-finite), want +Inf", g.Norm[ri][0], g.NonFinite[ri][0])
	}

	drop := synth.EventsRun(1, 12, synth.Spike{OptStep: 8, All: true, Scale: 0.3})
	if g, _ := gradNormOf(t, drop, model.IntPtr(8)); g.RootShare().Outcome != model.ShareDecrease || g.RootShare().ByRank != nil ||
		!(g.RootShare().RootSq < g.RootShare().RefSq) {
		t.Errorf("decrease: outcome %s, root %v ref %v", g.RootShare().Outcome, g.RootShare().RootSq, g.RootShare().RefSq)
	}

	first := synth.EventsRun(1, 12)
	if g, _ := gradNormOf(t, first, model.IntPtr(0)); g.RootShare().Outcome != model.ShareNoReference ||
		!slices.Equal(g.Steps, []int{0, 1, 2}) {
		t.Errorf("first step: outcome %s steps %v", g.RootShare().Outcome, g.Steps)
	}

	noise := synth.EventsRun(4, 12)
	p1, d := Phase1Data(noise.Monitor(synth.Anomalous), DefaultPhase1Options())
	p2, err := Phase2(p1, nil, nil, DefaultPhase2Options())
	if err != nil {
		t.Fatal(err)
	}
	g = GradNormAround(d, p1, p2.RootOptStep)
	if p2.RootOptStep != nil || g.Root != nil || g.RootShare() != nil || g.Peak() != -1 {
		t.Errorf("noise only: root %v, peak %d", p2.RootOptStep, g.Peak())
	}
	for _, sh := range g.Shares {
		if sh.Outcome != model.ShareNoRoot || sh.ByParam != nil {
			t.Errorf("noise only: step %d outcome %s with %d parts", sh.Step, sh.Outcome, len(sh.ByParam))
		}
	}
	if !slices.Equal(g.Steps, []int{6, 7, 8, 9, 10, 11}) {
		t.Errorf("noise only: steps %v, want the latest six", g.Steps)
	}
}

// TestGradNormPipeline: with pipeline stages, same-named layers of two
// stages are different layers (the model's global number), and the model's
// norm sums one rank of each stage.
func TestGradNormPipeline(t *testing.T) {
	b := newMon(model.FormatCSV, "grad_unreduced")
	b.d.ExplicitMicro = true
	names := func(stage int) []string {
		ns := []string{"decoder.layers.0.mlp.linear_fc2.weight", "decoder.layers.1.mlp.linear_fc2.weight"}
		if stage == 0 {
			return append([]string{"embedding.word_embeddings.weight"}, ns...)
		}
		return append(ns, "decoder.final_layernorm.weight", "output_layer.weight")
	}
	const root = 8
	for rank := range 4 { // rank = stage·2 + dp
		stage := rank / 2
		for step := range 12 {
			for k, n := range names(stage) {
				v := 1 + 0.1*float64(k) + 0.01*float64((step*7+rank*3+k)%5)
				if step == root && rank == 3 && n == "decoder.layers.1.mlp.linear_fc2.weight" {
					v *= 10
				}
				b.add(rank, step, -1, n, 0, v)
			}
		}
	}
	p1, d := Phase1Data(b.d, DefaultPhase1Options())
	if d.Stages == nil || d.Stages.Stages != 2 {
		t.Fatalf("stages not inferred: %+v", d.Stages)
	}
	g := GradNormAround(d, p1, model.IntPtr(root))
	if !slices.Equal(g.ModelRanks, []int{0, 2}) || len(g.Model) != len(g.Steps) {
		t.Fatalf("model ranks %v, model %v", g.ModelRanks, g.Model)
	}
	for i := range g.Steps {
		want := math.Hypot(float64(g.Norm[i][0]), float64(g.Norm[i][2]))
		if math.Abs(float64(g.Model[i])-want) > 1e-12*want {
			t.Errorf("step %d: model %v, want %v", g.Steps[i], g.Model[i], want)
		}
	}
	sh := *g.RootShare()
	checkSums(t, sh)
	if top := sh.ByLayer[0]; top.Layer != 3 || !top.GlobalLayer || top.Ranks != 2 {
		t.Errorf("largest layer %+v, want global layer 3 on the two ranks of stage 1", top)
	}
	if sh.ByParam[0].Param != "pp1:decoder.layers.1.mlp.linear_fc2.weight" || sh.ByRank[0].Rank != 3 {
		t.Errorf("largest parameter %s rank %d", sh.ByParam[0].Param, sh.ByRank[0].Rank)
	}
}

// TestGradNormPeak: when the norm explodes a step after the root step (the
// propagated, larger spike the log shows), that step is the peak and its
// increase is shared out too, against the same reference before the root.
func TestGradNormPeak(t *testing.T) {
	r := synth.Generate(synth.DefaultConfig()) // fault at step 5, explosion at 6
	g, _ := gradNormOf(t, r, model.IntPtr(5))
	pk := g.Peak()
	if pk < 0 || g.Steps[pk] != 6 {
		t.Fatalf("peak %d in steps %v, want step 6", pk, g.Steps)
	}
	sh := &g.Shares[pk]
	if sh.Outcome != model.ShareIncrease || !slices.Equal(sh.Reference, []int{2, 3, 4}) {
		t.Fatalf("peak: outcome %s reference %v", sh.Outcome, sh.Reference)
	}
	checkSums(t, *sh)
	if g.Shares[0].Outcome != model.ShareReference || g.RootShare().Step != 5 {
		t.Errorf("shares: %s first, root share of step %d", g.Shares[0].Outcome, g.RootShare().Step)
	}
}

// Under PP×VPP a parameter's layer is the model's: (chunk·PP + stage)·
// layers per chunk + its local number; without the layer counts, the
// stage-local number with its stage and chunk; outside the layers, -1.
func TestGradNormLayerPPVPP(t *testing.T) {
	pl := &model.StageLayout{Stages: 2, Inferred: true, ChunkLayers: 2, RankStages: map[string]int{"0": 0, "1": 1}}
	for _, c := range []struct {
		p    gnParam
		rank int
		want layerKey
	}{
		{gnParam{"pp1:vpp1:decoder.layers.1.mlp.linear_fc2.weight", 1}, 1, layerKey{layer: 7, stage: -1, global: true}},
		{gnParam{"pp0:vpp0:decoder.layers.0.mlp.linear_fc2.weight", 0}, 0, layerKey{layer: 0, stage: -1, global: true}},
		{gnParam{"pp1:output_layer.weight", 1}, 1, layerKey{layer: -1, stage: -1, global: true}},
	} {
		if got := gradLayer(c.p, c.rank, pl, nil); got != c.want {
			t.Errorf("%s: %+v, want %+v", c.p.name, got, c.want)
		}
	}
	unknown := &model.StageLayout{Stages: 2, Inferred: true, RankStages: map[string]int{"0": 0, "1": 1}}
	if got := gradLayer(gnParam{"pp1:vpp1:decoder.layers.1.mlp.linear_fc2.weight", 1}, 1, unknown, nil); got != (layerKey{layer: 1, stage: 1, vpp: 1}) {
		t.Errorf("without layer counts: %+v, want stage 1 chunk 1 local layer 1", got)
	}
}
