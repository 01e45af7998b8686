package ingest

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"sync"
	"testing"

	"spikescope/testdata/synth"
)

// WriteMonitorCSVTree writes a v1 monitor output tree of the given shape
// under root: one "<time>-rank<R>-<uuid>" folder per rank and one
// "<metric>_<s>-<s>.csv" per metric and step (step_count_per_record=1), with
// Megatron-style names, quoted shapes and ops [min,max,mean,norm]. The first
// metric is grad_unreduced with a micro_step column (2 micro steps; Steps
// counts rows per target, so 2 micro steps make Steps/2 optimizer steps).
// Tests and benchmarks only.
func WriteMonitorCSVTree(tb testing.TB, root string, s BenchShape) {
	tb.Helper()
	metrics := []string{"grad_unreduced", "grad_reduced", "exp_avg", "exp_avg_sq"}
	rng := rand.New(rand.NewPCG(3, 4))
	for r := 0; r < s.Ranks; r++ {
		dir := filepath.Join(root, fmt.Sprintf("Feb20_16-27-%02d-rank%d-%08x", r%60, r, 0xb2f0e6a1+r))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			tb.Fatal(err)
		}
		for m := 0; m < s.Metrics; m++ {
			micro := m == 0
			opt := s.Steps
			if micro {
				opt = s.Steps / 2
			}
			for st := 0; st < opt; st++ {
				name := fmt.Sprintf("%s_%d-%d.csv", metrics[m%len(metrics)], st, st)
				f, err := os.Create(filepath.Join(dir, name))
				if err != nil {
					tb.Fatal(err)
				}
				w := bufio.NewWriterSize(f, 1<<16)
				if micro {
					w.WriteString("vpp_stage,name,step,micro_step,min,max,mean,norm,shape,dtype\n")
				} else {
					w.WriteString("vpp_stage,name,step,min,max,mean,norm,shape,dtype\n")
				}
				nMicro := 1
				if micro {
					nMicro = 2
				}
				var b []byte
				for ms := 0; ms < nMicro; ms++ {
					for t := 0; t < s.Targets; t++ {
						b = b[:0]
						b = append(b, "0,layers."...)
						b = strconv.AppendInt(b, int64(t/4), 10)
						b = append(b, ".mlp.linear_fc"...)
						b = strconv.AppendInt(b, int64(t%4), 10)
						b = append(b, ".weight,"...)
						b = strconv.AppendInt(b, int64(st), 10)
						if micro {
							b = append(b, ',')
							b = strconv.AppendInt(b, int64(ms), 10)
						}
						for _, v := range []float64{-rng.Float64() * 1e-3, rng.Float64() * 1e-3, (rng.Float64() - 0.5) * 1e-6, 0.01 + rng.Float64()} {
							b = append(b, ',')
							b = strconv.AppendFloat(b, v, 'g', 6, 64)
						}
						b = append(b, ",\"[3072, 4096]\",torch.float32\n"...)
						w.Write(b)
					}
				}
				if err := w.Flush(); err != nil {
					tb.Fatal(err)
				}
				f.Close()
			}
		}
	}
}

// csvTreeRows is the row count WriteMonitorCSVTree writes for s.
func csvTreeRows(s BenchShape) int {
	n := 0
	for m := 0; m < s.Metrics; m++ {
		if m == 0 {
			n += s.Steps / 2 * 2
		} else {
			n += s.Steps
		}
	}
	return n * s.Ranks * s.Targets
}

var (
	benchCSVOnce sync.Once
	benchCSVRoot string
)

func benchCSVTree(b *testing.B) string {
	benchCSVOnce.Do(func() {
		root := filepath.Join(os.TempDir(), "spikescope-bench", "csv1m")
		if _, err := os.Stat(filepath.Join(root, "done")); err == nil {
			benchCSVRoot = root
			return
		}
		os.RemoveAll(root)
		WriteMonitorCSVTree(b, root, Bench1M)
		os.WriteFile(filepath.Join(root, "done"), nil, 0o644)
		benchCSVRoot = root
	})
	if benchCSVRoot == "" {
		b.Fatal("bench tree not written")
	}
	return benchCSVRoot
}

func BenchmarkCSV1M(b *testing.B) {
	root := benchCSVTree(b)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		d, err := LoadCSV(context.Background(), root, nil)
		if err != nil {
			b.Fatal(err)
		}
		if d.Rows.Len() != csvTreeRows(Bench1M) {
			b.Fatalf("rows %d", d.Rows.Len())
		}
	}
	b.ReportMetric(float64(csvTreeRows(Bench1M)), "rows/op")
}

// largeCSVTree returns a cached v1 tree of rows rows (synth.WriteLargeCSVTree:
// 8 rank folders, 291 parameters, window 4) under $TMPDIR/spikescope-bench/,
// or the tree of $SPIKESCOPE_CSV_<rows> when set (e.g. one written by
// `go run ./testdata/gen -large-csv`).
func largeCSVTree(b *testing.B, rows int) string {
	if p := os.Getenv("SPIKESCOPE_CSV_" + strconv.Itoa(rows)); p != "" {
		return p
	}
	root := filepath.Join(os.TempDir(), "spikescope-bench", "csv-large-"+strconv.Itoa(rows))
	if _, err := os.Stat(filepath.Join(root, "done")); err == nil {
		return filepath.Join(root, "tree")
	}
	os.RemoveAll(root)
	if err := synth.WriteLargeCSVTree(filepath.Join(root, "tree"), rows); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "done"), nil, 0o644); err != nil {
		b.Fatal(err)
	}
	return filepath.Join(root, "tree")
}

// BenchmarkCSVLarge reads the 2M-, 4M- and 16M-row v1 trees (LoadCSV, parallel
// over files) and, in the same run on the same files, the floor: `cat` of
// every file to /dev/null (warm cache; the first read warms it).
func BenchmarkCSVLarge(b *testing.B) {
	for _, rows := range []int{2_000_000, 4_000_000, 16_000_000} {
		name := strconv.Itoa(rows/1_000_000) + "M"
		b.Run("read="+name, func(b *testing.B) {
			root := largeCSVTree(b, rows)
			b.ReportAllocs()
			for b.Loop() {
				d, err := LoadCSV(context.Background(), root, nil)
				if err != nil {
					b.Fatal(err)
				}
				if d.Rows.Len() != rows {
					b.Fatalf("rows %d, want %d", d.Rows.Len(), rows)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(rows), "ns/row")
		})
		b.Run("cat="+name, func(b *testing.B) {
			root := largeCSVTree(b, rows)
			for b.Loop() {
				cmd := exec.Command("sh", "-c", `find "$1" -name '*.csv' -print0 | xargs -0 cat > /dev/null`, "sh", root)
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("%v: %s", err, out)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(rows), "ns/row")
		})
	}
}

func TestWriteMonitorCSVTreeShape(t *testing.T) {
	s := BenchShape{Ranks: 2, Targets: 3, Metrics: 2, Steps: 4}
	root := t.TempDir()
	WriteMonitorCSVTree(t, root, s)
	d, err := LoadCSV(context.Background(), root, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.Rows.Len() != s.Rows() || len(d.Targets) != 3 || !d.ExplicitMicro {
		t.Fatalf("rows %d targets %d explicit %v", d.Rows.Len(), len(d.Targets), d.ExplicitMicro)
	}
	// grad_unreduced: 2 optimizer steps × 2 micro steps; grad_reduced: 4 steps, no micro
	un, red := 0, 0
	for i := range d.Rows.Len() {
		switch d.Metrics[d.Rows.MetricOf(i)] {
		case "grad_unreduced":
			un++
			if d.Rows.MicroOf(i) < 0 || d.Rows.Step[i] > 1 {
				t.Fatalf("unreduced row %d step %d micro %d", i, d.Rows.Step[i], d.Rows.MicroOf(i))
			}
		case "grad_reduced":
			red++
		}
	}
	if un != 2*3*4 || red != 2*3*4 {
		t.Errorf("unreduced %d reduced %d", un, red)
	}
}

// TestCSVLoadDeterministic: files finish in any order, the merge keeps file
// order, so two loads give identical rows.
func TestCSVLoadDeterministic(t *testing.T) {
	root := t.TempDir()
	WriteMonitorCSVTree(t, root, BenchShape{Ranks: 3, Targets: 40, Metrics: 2, Steps: 6})
	a, err := LoadCSV(context.Background(), root, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k := 0; k < 3; k++ {
		b, err := LoadCSV(context.Background(), root, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a.Rows, b.Rows) || !reflect.DeepEqual(a.Targets, b.Targets) || !reflect.DeepEqual(a.Metrics, b.Metrics) {
			t.Fatal("two loads of the same tree differ")
		}
	}
	// rank folders come in rank order, and within a rank grad_reduced files
	// (sorted by name) before grad_unreduced
	if a.Rows.RankOf(0) != 0 || a.Rows.RankOf(a.Rows.Len()-1) != 2 || a.Metrics[0] != "grad_reduced" {
		t.Errorf("first rank %d last rank %d metrics %v", a.Rows.RankOf(0), a.Rows.RankOf(a.Rows.Len()-1), a.Metrics)
	}
}

// BenchmarkParseCSV parses one grad_unreduced file of the 2M-row tree from
// memory: the parser's own cost, without the file system or the merge.
func BenchmarkParseCSV(b *testing.B) {
	root := largeCSVTree(b, 2_000_000)
	paths, err := filepath.Glob(filepath.Join(root, "*-rank0-*", "grad_unreduced_1-1.csv"))
	if err != nil || len(paths) != 1 {
		b.Fatalf("no grad_unreduced_1-1.csv of rank 0 under %s: %v", root, err)
	}
	data, err := os.ReadFile(paths[0])
	if err != nil {
		b.Fatal(err)
	}
	f := csvFile{path: paths[0], metric: "grad_unreduced"}
	rows := 0
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		r, err := parseCSV(context.Background(), f, bytes.NewReader(data), int64(len(data)))
		if err != nil {
			b.Fatal(err)
		}
		rows = r.rows.Len()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(rows), "ns/row")
}
