package synth

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// CSV layout constants (formats.md §1.2–1.3): ops [min, max, mean, norm]
// in the user's order, then shape and dtype appended by msprobe.
const (
	csvHeaderMicro   = "vpp_stage,name,step,micro_step,min,max,mean,norm,shape,dtype"
	csvHeaderReduced = "vpp_stage,name,step,min,max,mean,norm,shape,dtype"
	gradDtype        = "torch.float32"
)

// runStart is the wall-clock time tag of rank 0's monitor folder per device;
// rank R starts R seconds later.
var runStart = [numDevices]time.Time{
	time.Date(2026, 2, 20, 16, 27, 56, 0, time.UTC),
	time.Date(2026, 2, 21, 9, 3, 12, 0, time.UTC),
}

// RankDir is the monitor folder name of a rank: "Feb20_16-28-00-rank3-1a2b3c4d".
func (r *Run) RankDir(dev Device, rank int) string {
	t := runStart[dev].Add(time.Duration(rank) * time.Second)
	return fmt.Sprintf("%s-rank%d-%s", t.Format("Jan02_15-04-05"), rank, r.dirTag[dev][rank])
}

// shapeCell prints a shape as pandas writes a Python list: "[4096]" bare,
// "[3072, 4096]" quoted because of the comma.
func shapeCell(shape []int64) string {
	parts := make([]string, len(shape))
	for i, d := range shape {
		parts[i] = strconv.FormatInt(d, 10)
	}
	s := "[" + strings.Join(parts, ", ") + "]"
	if len(shape) > 1 {
		return `"` + s + `"`
	}
	return s
}

// appendStats appends ",min,max,mean,norm" rounded to 6 digits.
func appendStats(b []byte, g GradStat) []byte {
	for _, v := range [4]float64{g.Min, g.Max, g.Mean, g.Norm} {
		b = append(b, ',')
		b = append(b, csvNumber(roundDigits(v, monitorDigits))...)
	}
	return b
}

// WriteCSVTree writes the anomalous device's monitor CSVs under dir (the
// monitor_output folder): one rank folder per rank, grad_unreduced_{s}-{s}.csv
// with micro_step (cumulative main_grad) and grad_reduced_{s}-{s}.csv.
func (r *Run) WriteCSVTree(dir string) error { return r.WriteCSVTreeFor(dir, Anomalous) }

// WriteCSVTreeFor writes the given device's monitor CSV tree.
func (r *Run) WriteCSVTreeFor(dir string, dev Device) error {
	c := r.Cfg
	P := len(r.Params)
	for rank := 0; rank < c.Ranks; rank++ {
		rd := filepath.Join(dir, r.RankDir(dev, rank))
		if err := os.MkdirAll(rd, 0o755); err != nil {
			return err
		}
		for s := 0; s < c.OptSteps; s++ {
			step := c.FirstStep + s
			stepStr := strconv.Itoa(step)
			var b []byte
			b = append(b, csvHeaderMicro...)
			b = append(b, '\n')
			for m := 0; m < c.Window; m++ {
				for p, par := range r.Params {
					b = append(b, "0,"...)
					b = append(b, par.Squashed...)
					b = append(b, ',')
					b = append(b, stepStr...)
					b = append(b, ',')
					b = strconv.AppendInt(b, int64(m), 10)
					b = appendStats(b, r.unreduced[dev][r.uIndex(rank, s, m, p)])
					b = append(b, ',')
					b = append(b, shapeCell(par.Shape)...)
					b = append(b, ","+gradDtype+"\n"...)
				}
			}
			name := fmt.Sprintf("%s_%d-%d.csv", MetricUnreduced, step, step)
			if err := os.WriteFile(filepath.Join(rd, name), b, 0o644); err != nil {
				return err
			}
			b = append(b[:0], csvHeaderReduced...)
			b = append(b, '\n')
			for p, par := range r.Params {
				b = append(b, "0,"...)
				b = append(b, par.Squashed...)
				b = append(b, ',')
				b = append(b, stepStr...)
				b = appendStats(b, r.reduced[dev][s*P+p])
				b = append(b, ',')
				b = append(b, shapeCell(par.Shape)...)
				b = append(b, ","+gradDtype+"\n"...)
			}
			name = fmt.Sprintf("%s_%d-%d.csv", MetricReduced, step, step)
			if err := os.WriteFile(filepath.Join(rd, name), b, 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

func secondsDur(n int) time.Duration { return time.Duration(n) * time.Second }
