package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"spikescope/ingest"
	"spikescope/model"
	"spikescope/plan"
)

// realPlan holds a loop run with real msprobe (26.0.0, Ascend/msprobe
// 8ff00da3; its README says how): level-L0 dumps of a planted fault, the
// configs `spikescope plan` wrote from them, and what msprobe dumped when
// the training ran with those configs as written — first the level-mix
// dump narrowed to the divergent layers, then the tensor dump of the
// operator its trace named.
const realPlan = "testdata/msprobe-real/plan"

func loadTree(t *testing.T, path string) *model.DumpTree {
	t.Helper()
	tr, err := ingest.LoadDumpTree(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// planInto runs `spikescope plan` with args into a new folder and returns it.
func planInto(t *testing.T, args ...string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "plan")
	code, stdout, stderr := runArgs(append(append([]string{"plan"}, args...), "-o", out)...)
	if code != 0 {
		t.Fatalf("plan %v: exit %d: %s%s", args, code, stderr, stdout)
	}
	return out
}

// sameFile fails unless the plan wrote the config that was run.
func sameFile(t *testing.T, written, run string) {
	t.Helper()
	a, err1 := os.ReadFile(written)
	b, err2 := os.ReadFile(run)
	if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
		t.Errorf("%s is not the config real msprobe ran (%s): %v %v\n%s\n---\n%s", written, run, err1, err2, a, b)
	}
}

// within reports whether name is inside one of the listed module paths.
func within(name string, list []string) bool {
	for _, w := range list {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}

// The plan from real L0 dumps asks for level mix narrowed to the divergent
// layers, and msprobe, running that config as written, dumps those layers'
// modules and the API calls made inside them, on the ranks and step the
// plan names.
func TestRealMsprobeRunsTheMixConfigAsPlanned(t *testing.T) {
	out := planInto(t, "--dump-a", realPlan+"/l0/npu", "--dump-b", realPlan+"/l0/gpu", "--step", "1", "--rank", "0")
	for _, name := range []string{plan.AnomalousConfig, plan.BaselineConfig} {
		sameFile(t, filepath.Join(out, name), filepath.Join(realPlan, "mix", name))
	}
	cfg := readConfig(t, filepath.Join(realPlan, "mix", plan.AnomalousConfig))
	list := cfg.Statistics.List
	if cfg.Level != "mix" || len(list) == 0 {
		t.Fatalf("mix config: level %q list %v", cfg.Level, list)
	}
	md, _ := os.ReadFile(filepath.Join(out, plan.PlanFile))
	if !strings.Contains(string(md), "ended at module Module.decoder.layers.1.mlp.linear_fc1") {
		t.Errorf("PLAN.md does not start from the drill-down's module:\n%s", md)
	}
	for _, dev := range []string{"npu", "gpu"} {
		tr := loadTree(t, filepath.Join(realPlan, "mix", dev))
		var got []string
		for _, d := range tr.Dumps {
			got = append(got, filepath.Base(filepath.Dir(d.Path))+"/"+filepath.Base(d.Path))
			if d.Step != cfg.Step[0] || !containsInt(cfg.Rank, d.Rank) || d.Level != "mix" {
				t.Errorf("%s: dump %s at level %q: not a step/rank/level of the config", dev, d.Path, d.Level)
			}
			apisInside, fc1 := 0, 0
			for i := range d.Ops {
				op := &d.Ops[i]
				switch {
				case op.Kind == model.KindModule && op.Direction == model.Forward && !within(op.Key, list):
					t.Errorf("%s %s: forward module %s outside %v", dev, d.Path, op.Key, list)
				case op.Kind == model.KindAPI && op.Direction == model.Forward && !within(op.Parent, list):
					t.Errorf("%s %s: forward API %s called in %q, outside %v", dev, d.Path, op.Key, op.Parent, list)
				case op.Kind == model.KindAPI && within(op.Parent, list):
					apisInside++
					if strings.HasPrefix(op.Key, "Functional.linear.") && op.Direction == model.Forward && strings.Contains(op.Parent, "layers.1.mlp.linear_fc1.") {
						fc1++
					}
				}
			}
			if apisInside < 20 || fc1 != 1 {
				t.Errorf("%s %s: %d API calls inside the listed layers, %d Functional.linear calls in layers.1.mlp.linear_fc1's forward (want 1)", dev, d.Path, apisInside, fc1)
			}
		}
		if len(got) != len(cfg.Rank) {
			t.Errorf("%s: dumps %v, want one per rank %v at step %d", dev, got, cfg.Rank, cfg.Step[0])
		}
	}
}

// The plan from the real mix dumps names the operator inside the faulty
// module and asks for its tensors on A and B; msprobe, running that config
// as written, dumps that call's forward and backward and its tensors.
func TestRealMsprobeRunsTheTensorConfigAsPlanned(t *testing.T) {
	out := planInto(t, "--dump-a", realPlan+"/mix/npu", "--dump-b", realPlan+"/mix/gpu", "--step", "1", "--rank", "0")
	for _, name := range []string{plan.AnomalousConfig, plan.BaselineConfig} {
		sameFile(t, filepath.Join(out, name), filepath.Join(realPlan, "tensor", name))
	}
	cfg := readConfig(t, filepath.Join(realPlan, "tensor", plan.AnomalousConfig))
	if cfg.Task != plan.TaskTensor || cfg.Tensor == nil || len(cfg.Tensor.List) != 1 {
		t.Fatalf("tensor config: %+v", cfg)
	}
	entry := cfg.Tensor.List[0]
	// the operator is a call inside the faulty module of the mix dump
	mix := loadTree(t, realPlan+"/mix/npu").Find(1, 0)
	named := 0
	for i := range mix.Ops {
		if op := &mix.Ops[i]; op.Kind == model.KindAPI && strings.HasPrefix(op.Key, entry) {
			named++
			// torch 1.13 has no module backward pre-hook: msprobe gives
			// backward calls the module before as parent; the forward's is exact
			if op.Direction == model.Forward && !strings.Contains(op.Parent, "decoder.layers.1.mlp.linear_fc1.") {
				t.Errorf("%s is called in %q, not in the faulty module", op.Key, op.Parent)
			}
		}
	}
	if named != 2 {
		t.Errorf("%d records of %s in the mix dump, want its forward and backward", named, entry)
	}
	for _, dev := range []string{"npu", "gpu"} {
		tr := loadTree(t, filepath.Join(realPlan, "tensor", dev))
		if len(tr.Dumps) != 1 || tr.Dumps[0].Step != 1 || tr.Dumps[0].Rank != 0 || tr.Dumps[0].Task != plan.TaskTensor {
			t.Fatalf("%s: %d dumps, want task tensor of step 1 rank 0 only", dev, len(tr.Dumps))
		}
		d := tr.Dumps[0]
		var keys []string
		for i := range d.Ops {
			if d.Ops[i].Direction != model.ParamGrad {
				keys = append(keys, d.Ops[i].Key)
			}
		}
		if strings.Join(keys, " ") != entry+"forward "+entry+"backward" {
			t.Errorf("%s: records %v, want %sforward and %sbackward", dev, keys, entry, entry)
		}
		pts, _ := filepath.Glob(filepath.Join(d.Path, "dump_tensor_data", entry+"*.pt"))
		if len(pts) < 4 {
			t.Errorf("%s: %d tensor files of %s, want its inputs and outputs both ways", dev, len(pts), entry)
		}
	}
	md, _ := os.ReadFile(filepath.Join(out, plan.PlanFile))
	if !strings.Contains(string(md), "msprobe compare -tp ./tensor_anomalous/step1/rank0/dump.json -gp ./tensor_baseline/step1/rank0/dump.json") {
		t.Errorf("PLAN.md lacks the compare command of these dumps:\n%s", md)
	}
	// what that command wrote (msprobe 26.0 on these dumps): the operator's
	// inputs agree, its output does not — the tensors say where
	f, err := os.Open(filepath.Join(realPlan, "tensor", "compare_result.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) < 2 {
		t.Fatalf("compare_result.csv: %v", err)
	}
	col := -1
	for i, h := range rows[0] {
		if h == "Cosine" {
			col = i
		}
	}
	cos := map[string]float64{}
	for _, r := range rows[1:] {
		cos[r[0]], _ = strconv.ParseFloat(r[col], 64)
	}
	if cos[entry+"forward.input.0"] < 0.9999 || cos[entry+"forward.input.1"] < 0.9999 || cos[entry+"forward.output.0"] > 0.99 {
		t.Errorf("compare result %v: want the inputs equal (cosine 1) and the output apart", cos)
	}
}
