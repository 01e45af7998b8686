package pipeline

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"spikescope/model"
	"spikescope/testdata/synth"
)

func loadPath(t *testing.T, path string) *Session {
	t.Helper()
	s, err := Load(context.Background(), Inputs{Path: path}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.GradNorm == nil || !s.GradNorm.StepsKnown {
		t.Fatalf("%s: no grad-norm view: %+v", path, s.GradNorm)
	}
	return s
}

// rowNormAt is sqrt(Σ n²) over rank's rows of metric at the source step,
// read straight from the loaded rows.
func rowNormAt(d *model.MonitorData, metric string, rank, step int) (float64, int) {
	mi := d.MetricIndex(metric)
	sum, n := 0.0, 0
	r := &d.Rows
	for run := range r.Runs() {
		if int(run.Metric) != mi || int(run.Rank) != rank {
			continue
		}
		for i := run.Lo; i < run.Hi; i++ {
			if int(r.Step[i]) == step {
				sum += r.Norm[i] * r.Norm[i]
				n++
			}
		}
	}
	return math.Sqrt(sum), n
}

// A real msprobe run (the kit's trend.db, 4 ranks, 2 micro-batches per
// step, a bad batch on rank 2 at step 12): the view's norm of each rank at
// the root step is sqrt(Σ n²) of that rank's rows at the step's last micro
// step, and the increase is rank 2's.
func TestGradNormRealBadBatch(t *testing.T) {
	s := loadPath(t, filepath.Join("..", "testdata", "msprobe-real", "kit", "db_mon_w2_s4_badbatch"))
	g := s.GradNorm
	sa := s.P1.Sharding
	if g.Root == nil || *g.Root != 12 || sa.AccumulationWindow != 2 || sa.WindowPhase != 0 || s.P1.Summary.Steps[0] != 0 {
		t.Fatalf("root %+v, window %d phase %d first step %d", g.Root, sa.AccumulationWindow, sa.WindowPhase, s.P1.Summary.Steps[0])
	}
	ri := g.RootIndex()
	for j, rank := range g.Ranks {
		last := 12*sa.AccumulationWindow + sa.AccumulationWindow - 1 // the global micro-step index of step 12's last micro step
		want, n := rowNormAt(s.Monitor, g.Metric, rank, last)
		if got := float64(g.Norm[ri][j]); math.Abs(got-want) > 1e-12*want || g.Params[ri][j] != n || n == 0 {
			t.Errorf("rank %d: norm %v over %d parameters, rows give %v over %d", rank, got, g.Params[ri][j], want, n)
		}
	}
	sh := g.RootShare()
	if m, p := sh.Moved(); m != model.MovedRank || p.Rank != 2 {
		t.Errorf("moved %d (%+v), want rank 2", m, p)
	}
	if pk := g.PeakStep; pk == nil || *pk != 12 {
		t.Errorf("peak %v, want the root step 12", pk)
	}
}

// A real monitor CSV (2 ranks, step level) whose output layer spikes on
// rank 0 at step 12: one parameter moved, on rank 0.
func TestGradNormRealOneParameter(t *testing.T) {
	s := loadPath(t, filepath.Join("..", "testdata", "msprobe-real", "monitor_spike"))
	g := s.GradNorm
	if g.Root == nil || *g.Root != 12 {
		t.Fatalf("root %v", g.Root)
	}
	ri := g.RootIndex()
	for j, rank := range g.Ranks {
		want, _ := rowNormAt(s.Monitor, g.Metric, rank, 12)
		if got := float64(g.Norm[ri][j]); math.Abs(got-want) > 1e-12*want {
			t.Errorf("rank %d: norm %v, rows give %v", rank, got, want)
		}
	}
	sh := g.RootShare()
	if m, p := sh.Moved(); m != model.MovedParam || model.StageBaseName(p.Param) != "output_layer.weight" || sh.ByRank[0].Rank != 0 {
		t.Errorf("moved %d %+v, top rank %d", m, p, sh.ByRank[0].Rank)
	}
}

// Pipeline stages through a reader: the model's norm sums one rank of each
// stage, and the planted layer is named by its global number.
func TestGradNormPipelineStages(t *testing.T) {
	f := &synth.StageFault{OptStep: 3, MicroStep: 2, Rank: 3, Layer: 2, Scale: 30}
	r := synth.GenerateStages(synth.StagesConfig{PP: 2, DP: 2, LayersPerStage: 4, Window: 4, OptSteps: 6, Seed: 7, Fault: f})
	dir := filepath.Join(t.TempDir(), "monitor_output")
	if err := r.WriteCSVTree(dir); err != nil {
		t.Fatal(err)
	}
	s := loadPath(t, dir)
	g := s.GradNorm
	if g.Root == nil || *g.Root != 3 || len(g.ModelRanks) != 2 || g.ModelRanks[0] != 0 || g.ModelRanks[1] != 2 {
		t.Fatalf("root %v, model ranks %v", g.Root, g.ModelRanks)
	}
	for i := range g.Steps {
		want := math.Hypot(float64(g.Norm[i][0]), float64(g.Norm[i][2]))
		if math.Abs(float64(g.Model[i])-want) > 1e-12*want {
			t.Errorf("step %d: model norm %v, want %v", g.Steps[i], g.Model[i], want)
		}
	}
	if len(g.ReducedRanks) != 2 || g.ReducedRanks[0] != 0 || g.ReducedRanks[1] != 2 || len(g.Reduced) != len(g.Steps) {
		t.Errorf("reduced over ranks %v (%d norms), want one rank of each stage", g.ReducedRanks, len(g.Reduced))
	}
	top := g.RootShare().ByLayer[0]
	if top.Layer != r.FaultGlobalLayer() || !top.GlobalLayer {
		t.Errorf("largest layer %+v, want global layer %d", top, r.FaultGlobalLayer())
	}
	if p := g.RootShare().ByParam[0]; p.Param != r.FaultTarget() {
		t.Errorf("largest parameter %s, want %s", p.Param, r.FaultTarget())
	}
}
