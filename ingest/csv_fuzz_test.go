package ingest

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"spikescope/model"
)

// FuzzCSV feeds arbitrary bytes to the monitor CSV parser, as a v1 file and
// as a v2 weight_grad file: it must return rows or an *InputError, never
// panic, and the rows it returns must be consistent.
func FuzzCSV(f *testing.F) {
	for _, p := range []string{
		"csv_v1/Feb20_16-27-56-rank0-b2f0e6a1/grad_unreduced_0-0.csv",
		"csv_v1/Feb20_16-27-57-rank1-5c9d13e7/grad_reduced_1-1.csv",
		"csv_v1/Feb20_16-27-56-rank0-b2f0e6a1/actv_0-0.csv",
		"csv_v2/rank_0/weight_grad_step0-1.csv",
	} {
		b, err := os.ReadFile(filepath.Join(monitorTestdata, p))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, false)
		f.Add(b, true)
	}
	f.Add([]byte("vpp_stage,name,step,norm\n0,w,1e400,\"x\n"), false)
	f.Add([]byte("\ufeffvpp_stage,step,module_name,scope,micro_step,norm\n0,1,0:a,unreduced,0,nan\n"), true)
	f.Fuzz(func(t *testing.T, data []byte, v2 bool) {
		file := csvFile{path: "fuzz/grad_unreduced_0-0.csv", metric: "grad_unreduced", rank: 3}
		if v2 {
			file = csvFile{path: "fuzz/weight_grad_step0-0.csv", metric: "weight_grad", v2Name: true, rank: 3}
		}
		res, err := parseCSV(context.Background(), file, bytes.NewReader(data), int64(len(data)))
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("error %v (%T) is not an InputError", err, err)
			}
			if ie.Path != file.path {
				t.Fatalf("error names %q", ie.Path)
			}
			return
		}
		r := &res.rows
		n := r.Len()
		if len(r.Step) != n || r.HasMicro() && len(r.MicroColumn()) != n || len(r.Target) != n || len(r.Metric) != n {
			t.Fatal("ragged columns")
		}
		for s := model.StatMin; s < model.NumStats; s++ {
			if len(r.Norm) != n || !r.Lacks[s] && len(r.Stats[s]) != n {
				t.Fatal("ragged values")
			}
		}
		for i := 0; i < n; i++ {
			if int(r.Target[i]) >= len(res.targets) || int(r.Metric[i]) >= len(res.metrics) || r.Rank[i] != 3 {
				t.Fatalf("row %d: target %d/%d metric %d/%d rank %d", i, r.Target[i], len(res.targets), r.Metric[i], len(res.metrics), r.Rank[i])
			}
		}
	})
}
