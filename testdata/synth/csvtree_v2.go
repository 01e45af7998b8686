package synth

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// csvHeaderV2 is monitor v2's weight_grad header (formats.md §1.6, monitor_v2):
// module_name and scope columns, micro_step counted 1..W.
const csvHeaderV2 = "vpp_stage,step,module_name,scope,micro_step,min,max,mean,norm,nans"

// WriteCSVTreeV2For writes the given device's monitor v2 CSV tree under
// dir, as TrainerMonitorV2 does: rank_<R>/weight_grad_step<s>-<s>.csv per
// optimizer step, "unreduced" rows with micro_step 1..W (the cumulative
// main_grad after each micro-batch) and one "reduced" row per parameter
// carrying micro_step W; names carry the "<vpp>:" prefix. The planted
// fault at Fault.MicroStep m is the row with micro_step m+1.
func (r *Run) WriteCSVTreeV2For(dir string, dev Device) error {
	return r.writeCSVTreeV2(dir, dev, true)
}

// WriteCSVTreeV2FinalFor is WriteCSVTreeV2For without monitor_mbs_grad:
// v2 then records each step's final accumulated gradient only, one
// "unreduced" row per parameter with micro_step W.
func (r *Run) WriteCSVTreeV2FinalFor(dir string, dev Device) error {
	return r.writeCSVTreeV2(dir, dev, false)
}

// V2Files is how msprobe's monitor v2 writer (core/monitor_v2/writer.py
// CSVWriterV2) may lay out a weight_grad tree besides one file per step.
type V2Files struct {
	// ExtraFrom > 0: the files of optimizer steps from the ExtraFrom-th on
	// carry extra columns. The writer fixes a slug's header when its first
	// file is created and appends keys that appear later to the header of
	// the next new file (at the end), so later files of the same kind can
	// be wider: here "zeros" and "shape" after nans (zeros 0, shape "[n]").
	ExtraFrom int
	// OneFile: every step in one "weight_grad.csv", the name the writer
	// gives a file when the step it is told is not an integer; the steps
	// are only in the rows.
	OneFile bool
}

// WriteCSVTreeV2Files is WriteCSVTreeV2For with msprobe's other file
// shapes (V2Files).
func (r *Run) WriteCSVTreeV2Files(dir string, dev Device, f V2Files) error {
	return r.writeCSVTreeV2Shaped(dir, dev, true, f)
}

func (r *Run) writeCSVTreeV2(dir string, dev Device, perMicro bool) error {
	return r.writeCSVTreeV2Shaped(dir, dev, perMicro, V2Files{})
}

func (r *Run) writeCSVTreeV2Shaped(dir string, dev Device, perMicro bool, f V2Files) error {
	c := r.Cfg
	P := len(r.Params)
	for rank := 0; rank < c.Ranks; rank++ {
		rd := filepath.Join(dir, fmt.Sprintf("rank_%d", rank))
		if err := os.MkdirAll(rd, 0o755); err != nil {
			return err
		}
		var one []byte // OneFile: the file so far
		for s := 0; s < c.OptSteps; s++ {
			step := c.FirstStep + s
			stepStr := strconv.Itoa(step)
			extra := !f.OneFile && f.ExtraFrom > 0 && s >= f.ExtraFrom
			var b []byte
			if !f.OneFile || s == 0 {
				b = append(b, csvHeaderV2...)
				if extra {
					b = append(b, ",zeros,shape"...)
				}
				b = append(b, '\n')
			}
			row := func(name, scope string, micro int, g GradStat) {
				b = append(b, "0,"...)
				b = append(b, stepStr...)
				b = append(b, ",0:"...)
				b = append(b, name...)
				b = append(b, ',')
				b = append(b, scope...)
				b = append(b, ',')
				b = strconv.AppendInt(b, int64(micro), 10)
				b = appendStats(b, g)
				b = append(b, ",0"...)
				if extra {
					b = append(b, `,0,"[4096, 4096]"`...)
				}
				b = append(b, '\n')
			}
			for m := 0; m < c.Window; m++ {
				if !perMicro && m < c.Window-1 {
					continue
				}
				for p, par := range r.Params {
					row(par.Squashed, "unreduced", m+1, r.unreduced[dev][r.uIndex(rank, s, m, p)])
				}
			}
			for p, par := range r.Params {
				row(par.Squashed, "reduced", c.Window, r.reduced[dev][s*P+p])
			}
			if f.OneFile {
				one = append(one, b...)
				continue
			}
			name := fmt.Sprintf("weight_grad_step%d-%d.csv", step, step)
			if err := os.WriteFile(filepath.Join(rd, name), b, 0o644); err != nil {
				return err
			}
		}
		if f.OneFile {
			if err := os.WriteFile(filepath.Join(rd, "weight_grad.csv"), one, 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}
