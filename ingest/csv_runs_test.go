package ingest

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// A run that crashed after step 3 and was resumed from its step-2
// checkpoint: both runs wrote steps 2 and 3. The resumed run's folder is
// later by time tag (Apr01 after Mar30, which string order gets wrong), so
// its rows of steps 2–3 replace the crashed run's, for every metric; steps
// the crashed run alone wrote stay, and a rank with one folder is untouched.
func TestCSVResumedRunSupersedesOverlap(t *testing.T) {
	root := t.TempDir()
	old := filepath.Join(root, "Mar30_23-10-00-rank0-aaaa")
	resumed := filepath.Join(root, "Apr01_08-00-00-rank0-bbbb")
	other := filepath.Join(root, "Apr01_08-00-01-rank1-cccc")
	for s := 0; s <= 3; s++ {
		writeMonFile(t, filepath.Join(old, fmt.Sprintf("grad_unreduced_%d-%d.csv", s, s)),
			v1Head+fmt.Sprintf("0,w,%d,0,1,2,3,%d,[2],torch.float32\n0,w,%d,1,1,2,3,%d,[2],torch.float32\n", s, 100+s, s, 200+s))
		writeMonFile(t, filepath.Join(old, fmt.Sprintf("grad_reduced_%d-%d.csv", s, s)),
			"vpp_stage,name,step,norm\n"+fmt.Sprintf("0,w,%d,%d\n", s, 300+s))
	}
	for s := 2; s <= 5; s++ {
		for _, dir := range []string{resumed, other} {
			writeMonFile(t, filepath.Join(dir, fmt.Sprintf("grad_unreduced_%d-%d.csv", s, s)),
				v1Head+fmt.Sprintf("0,w,%d,0,1,2,3,%d,[2],torch.float32\n0,w,%d,1,1,2,3,%d,[2],torch.float32\n", s, 1100+s, s, 1200+s))
			writeMonFile(t, filepath.Join(dir, fmt.Sprintf("grad_reduced_%d-%d.csv", s, s)),
				"vpp_stage,name,step,norm\n"+fmt.Sprintf("0,w,%d,%d\n", s, 1300+s))
		}
	}
	d, err := LoadCSV(context.Background(), root, nil)
	if err != nil {
		t.Fatal(err)
	}
	// rank 0: steps 0–1 from the old run (3 rows each), 2–5 from the resumed
	// run (3 rows each); rank 1: steps 2–5 (3 rows each)
	if d.Rows.Len() != 6*3+4*3 {
		t.Fatalf("rows %d, want 30", d.Rows.Len())
	}
	got := map[string]float64{}
	for i := range d.Rows.Len() {
		k := fmt.Sprintf("r%d %s s%d m%d", d.Rows.RankOf(i), d.Metrics[d.Rows.MetricOf(i)], d.Rows.Step[i], d.Rows.MicroOf(i))
		if _, dup := got[k]; dup {
			t.Errorf("two rows at %s", k)
		}
		got[k] = d.Rows.Value(0, i)
	}
	want := map[string]float64{
		"r0 grad_unreduced s1 m1": 201, "r0 grad_reduced s1 m-1": 301,
		"r0 grad_unreduced s2 m0": 1102, "r0 grad_unreduced s3 m1": 1203, "r0 grad_reduced s3 m-1": 1303,
		"r1 grad_unreduced s2 m0": 1102,
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	if len(said(d.WarningsReasons)) != 1 || !strings.Contains(said(d.WarningsReasons)[0], "rank 0 has 2 run folders") || !strings.Contains(said(d.WarningsReasons)[0], "6 rows of earlier runs dropped") {
		t.Errorf("warnings %q", said(d.WarningsReasons))
	}
}

// Folders whose time tags do not parse cannot be ordered: all rows stay,
// and the warning says why.
func TestCSVUnorderedRunsKeepAll(t *testing.T) {
	root := t.TempDir()
	writeMonFile(t, filepath.Join(root, "jobA-rank0-aaaa/grad_unreduced_0-0.csv"), v1Head+"0,w,0,0,1,2,3,4,[2],torch.float32\n")
	writeMonFile(t, filepath.Join(root, "jobB-rank0-bbbb/grad_unreduced_0-0.csv"), v1Head+"0,w,0,0,1,2,3,5,[2],torch.float32\n")
	d, err := LoadCSV(context.Background(), root, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.Rows.Len() != 2 {
		t.Errorf("rows %d, want 2", d.Rows.Len())
	}
	if len(said(d.WarningsReasons)) != 1 || !strings.Contains(said(d.WarningsReasons)[0], "do not order them, rows of all are kept") {
		t.Errorf("warnings %q", said(d.WarningsReasons))
	}
}
