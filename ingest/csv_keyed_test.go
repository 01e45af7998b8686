package ingest

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"spikescope/model"
)

// keyedCSVTree writes a v1 tree of 4 ranks whose files list their targets
// in different orders (rank 1 reversed) and where a target appears only in
// rank 3's later files, so the series are first seen in an order other
// than series order. micro: grad_unreduced has a micro_step column (else
// only grad_reduced, no micro steps at all); dup: rank 2 writes each row
// twice; runs: rank 0 has a crashed run folder whose steps 2–3 the resumed
// run writes again; nan: some norms and statistics are nan.
func keyedCSVTree(t *testing.T, micro, dup, runs, nan bool) string {
	root := t.TempDir()
	targets := []string{"emb", "l0.w", "l1.w", "head"}
	dirs := map[int]string{}
	for r := range 4 {
		dirs[r] = filepath.Join(root, fmt.Sprintf("Apr01_08-00-0%d-rank%d-%04x", r, r, 0xa0+r))
	}
	write := func(dir string, r, s, seed int) {
		ts := slices.Clone(targets)
		if r == 1 {
			slices.Reverse(ts)
		}
		if r == 3 && s >= 3 {
			ts = append([]string{"late"}, ts...)
		}
		var red, unred strings.Builder
		red.WriteString("vpp_stage,name,step,min,max,mean,norm,shape,dtype\n")
		unred.WriteString(v1Head)
		for ti, name := range ts {
			v := float64(seed*1000+r*100+s*10+ti) + 0.125
			norm, lo := fmt.Sprint(v), fmt.Sprint(-v/7)
			if nan && (s+ti+r)%3 == 0 {
				norm = "nan"
			}
			if nan && (s+ti)%4 == 1 {
				lo = "nan"
			}
			rows := 1
			if dup && r == 2 {
				rows = 2
			}
			for range rows {
				fmt.Fprintf(&red, "0,%s,%d,%s,%v,%v,%s,[2],torch.float32\n", name, s, lo, v/3, v/5, norm)
				for m := range 3 {
					fmt.Fprintf(&unred, "0,%s,%d,%d,%s,%v,%v,%v,[2],torch.float32\n", name, s, m, lo, v/3, v/5, v+float64(m))
				}
			}
		}
		writeMonFile(t, filepath.Join(dir, fmt.Sprintf("grad_reduced_%d-%d.csv", s, s)), red.String())
		if micro {
			writeMonFile(t, filepath.Join(dir, fmt.Sprintf("grad_unreduced_%d-%d.csv", s, s)), unred.String())
		}
	}
	for r := range 4 {
		for s := range 6 {
			write(dirs[r], r, s, 1)
		}
	}
	if runs {
		old := filepath.Join(root, "Mar30_23-10-00-rank0-ffff")
		for s := range 4 {
			write(old, 0, s, 2)
		}
	}
	return root
}

// TestCSVKeyedLoadMatchesPerRow: a CSV tree merged keyed (one series key a
// row, the series found as the files come) and sorted gives, bit for bit,
// the rows, series table, targets, metrics and warnings of the per-row
// merge sorted.
func TestCSVKeyedLoadMatchesPerRow(t *testing.T) {
	for _, c := range []struct {
		name                 string
		micro, dup, runs, na bool
	}{
		{"micro steps", true, false, false, false},
		{"no micro steps", false, false, false, false},
		{"duplicates", true, true, false, false},
		{"run folders superseded", true, false, true, false},
		{"nan", false, false, false, true},
		{"all", true, true, true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := keyedCSVTree(t, c.micro, c.dup, c.runs, c.na)
			load := func(keyed bool) *model.MonitorData {
				d, err := loadCSVKeyed(context.Background(), root, nil, nil, nil, keyed)
				if err != nil {
					t.Fatal(err)
				}
				if d.Rows.Keyed() != keyed {
					t.Fatalf("keyed %v: rows keyed %v", keyed, d.Rows.Keyed())
				}
				d.Rows.SortSeries()
				return d
			}
			k, p := load(true), load(false)
			n := k.Rows.Len()
			if n == 0 || n != p.Rows.Len() || k.Rows.HasMicro() != p.Rows.HasMicro() || k.Rows.HasMicro() != c.micro {
				t.Fatalf("rows %d keyed, %d per row; micro column %v, %v", n, p.Rows.Len(), k.Rows.HasMicro(), p.Rows.HasMicro())
			}
			if runs := func(d *model.MonitorData) []model.Run { return slices.Collect(d.Rows.Runs()) }; !slices.Equal(runs(k), runs(p)) || len(k.Rows.Table) != len(p.Rows.Table) {
				t.Fatalf("series tables differ:\n%v\n%v", runs(k), runs(p))
			}
			for i := range n {
				if k.Rows.Step[i] != p.Rows.Step[i] || k.Rows.MicroOf(i) != p.Rows.MicroOf(i) {
					t.Fatalf("row %d: step %d/%d micro %d/%d", i, k.Rows.Step[i], p.Rows.Step[i], k.Rows.MicroOf(i), p.Rows.MicroOf(i))
				}
				for s := model.StatNorm; s < model.NumStats; s++ {
					if a, b := k.Rows.Value(s, i), p.Rows.Value(s, i); math.Float64bits(a) != math.Float64bits(b) {
						t.Fatalf("row %d %s: %v keyed, %v per row", i, s, a, b)
					}
				}
			}
			if !slices.Equal(k.Targets, p.Targets) || !slices.Equal(k.Metrics, p.Metrics) || !slices.Equal(said(k.WarningsReasons), said(p.WarningsReasons)) {
				t.Errorf("targets, metrics or warnings differ:\n%v %v %q\n%v %v %q", k.Targets, k.Metrics, said(k.WarningsReasons), p.Targets, p.Metrics, said(p.WarningsReasons))
			}
			if c.runs && !strings.Contains(strings.Join(said(k.WarningsReasons), " "), "rows of earlier runs dropped") {
				t.Errorf("no superseded rows dropped: %q", said(k.WarningsReasons))
			}
		})
	}
}
