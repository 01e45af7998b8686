package ingest

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"spikescope/model"
)

func TestGradientsQuickStart(t *testing.T) {
	md := GradientsFromDumps(loadTree(t, quickStart))
	if md.Format != model.FormatDump || len(md.Metrics) != 1 || md.Metrics[0] != "grad_norm" || md.ExplicitMicro || len(said(md.WarningsReasons)) != 0 {
		t.Fatalf("%+v", md)
	}
	// 161 parameter tensors per step; .0 and .1 keys map to the same target.
	if len(md.Targets) != 161 || md.Rows.Len() != 322 {
		t.Fatalf("targets %d rows %d", len(md.Targets), md.Rows.Len())
	}
	conv1, layer1 := -1, -1
	for i, tg := range md.Targets {
		switch tg.Name {
		case "Module.conv1.Conv2d.weight":
			conv1 = i
		case "Module.layer1.0.conv2.Conv2d.weight":
			layer1 = i
		}
	}
	vals := map[[3]int]float64{} // (step, rank, target) → norm
	r := &md.Rows
	for i := 0; i < r.Len(); i++ {
		if r.MicroOf(i) != model.NoMicro || r.MetricOf(i) != 0 || r.RankOf(i) != 0 {
			t.Fatalf("row %d micro %d metric %d rank %d", i, r.MicroOf(i), r.MetricOf(i), r.RankOf(i))
		}
		vals[[3]int{int(r.Step[i]), 0, int(r.TargetOf(i))}] = r.Value(model.StatNorm, i)
	}
	if vals[[3]int{0, 0, conv1}] != 151.2729949951172 || vals[[3]int{1, 0, layer1}] != 23.41208839416504 {
		t.Errorf("conv1 step0 %v, layer1.0.conv2 step1 %v", vals[[3]int{0, 0, conv1}], vals[[3]int{1, 0, layer1}])
	}
}

// gradDump writes a dump.json holding parameters_grad calls: calls[m] is the
// number of calls of module m, norms grow with the call index.
func gradDump(calls map[string]int, order []string, nanAt string) string {
	var parts []string
	maxCalls := 0
	for _, c := range calls {
		maxCalls = max(maxCalls, c)
	}
	for n := 0; n < maxCalls; n++ { // msprobe interleaves calls per micro batch
		for _, m := range order {
			if n >= calls[m] {
				continue
			}
			norm := fmt.Sprintf("%d.5", 10*(n+1))
			if m == nanAt && n == calls[m]-1 {
				norm = "NaN"
			}
			parts = append(parts, fmt.Sprintf(`"Module.module.module.decoder.layers.0.%s.parameters_grad.%d": {"weight": [{"type": "torch.Tensor", "dtype": "torch.float32", "shape": [4], "Max": 1, "Min": -1, "Mean": 0, "Norm": %s}]}`, m, n, norm))
		}
	}
	return `{"task": "statistics", "level": "L0", "data": {` + strings.Join(parts, ",\n") + `}}`
}

func TestGradientsAccumulation(t *testing.T) {
	dir := t.TempDir()
	mods := []string{"mlp.linear_fc1.ColumnParallelLinear", "mlp.linear_fc2.RowParallelLinear"}
	for _, s := range []string{"step3", "step4"} {
		for _, r := range []string{"rank0", "rank1"} {
			nanAt := ""
			if s == "step4" && r == "rank1" {
				nanAt = mods[1]
			}
			writeFile(t, filepath.Join(dir, s, r, "dump.json"), gradDump(map[string]int{mods[0]: 3, mods[1]: 3}, mods, nanAt))
		}
	}
	md := GradientsFromDumps(loadTree(t, dir))
	if !md.ExplicitMicro || len(md.Targets) != 2 || md.Rows.Len() != 2*2*2*4 || len(said(md.WarningsReasons)) != 0 {
		t.Fatalf("explicit %v targets %d rows %d warnings %v", md.ExplicitMicro, len(md.Targets), md.Rows.Len(), said(md.WarningsReasons))
	}
	if md.Targets[0].Name != "Module.module.module.decoder.layers.0.mlp.linear_fc1.ColumnParallelLinear.weight" {
		t.Errorf("target %q", md.Targets[0].Name)
	}
	r := &md.Rows
	// First (dump, target): micro 0..2 then the step row = the last call.
	wantMicro := []int32{0, 1, 2, model.NoMicro}
	wantNorm := []float64{10.5, 20.5, 30.5, 30.5}
	for i := 0; i < 4; i++ {
		if r.Step[i] != 3 || r.RankOf(i) != 0 || r.TargetOf(i) != 0 || r.MicroOf(i) != wantMicro[i] || r.Value(model.StatNorm, i) != wantNorm[i] {
			t.Errorf("row %d: step %d rank %d target %d micro %d norm %v", i, r.Step[i], r.RankOf(i), r.TargetOf(i), r.MicroOf(i), r.Value(model.StatNorm, i))
		}
	}
	last := r.Len() - 1 // step4 rank1 fc2: last call NaN
	if r.Step[last] != 4 || r.RankOf(last) != 1 || r.TargetOf(last) != 1 || r.MicroOf(last) != model.NoMicro || !math.IsNaN(r.Value(model.StatNorm, last)) {
		t.Errorf("last row step %d rank %d target %d micro %d norm %v", r.Step[last], r.RankOf(last), r.TargetOf(last), r.MicroOf(last), r.Value(model.StatNorm, last))
	}

	// Unequal call counts: only the step rows, with a warning.
	dir2 := t.TempDir()
	writeFile(t, filepath.Join(dir2, "dump.json"), gradDump(map[string]int{mods[0]: 3, mods[1]: 2}, mods, ""))
	md = GradientsFromDumps(loadTree(t, dir2))
	if md.ExplicitMicro || md.Rows.Len() != 2 || len(said(md.WarningsReasons)) != 1 || !strings.Contains(said(md.WarningsReasons)[0], "call counts differ") {
		t.Fatalf("unequal: explicit %v rows %d warnings %v", md.ExplicitMicro, md.Rows.Len(), said(md.WarningsReasons))
	}
	// No step level → step 0; the last call of each module.
	if md.Rows.Step[0] != 0 || md.Rows.Value(model.StatNorm, 0) != 30.5 || md.Rows.Value(model.StatNorm, 1) != 20.5 {
		t.Errorf("unequal rows %+v", md.Rows)
	}
}

func TestGradientsNone(t *testing.T) {
	tr := loadTree(t, compareDir+"/pytorch_data")
	md := GradientsFromDumps(tr)
	if md.Rows.Len() != 0 || len(said(md.WarningsReasons)) != 1 || !strings.Contains(said(md.WarningsReasons)[0], "no parameters_grad entries") {
		t.Errorf("rows %d warnings %v", md.Rows.Len(), said(md.WarningsReasons))
	}
}
