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

func (r *Run) writeCSVTreeV2(dir string, dev Device, perMicro bool) error {
	c := r.Cfg
	P := len(r.Params)
	for rank := 0; rank < c.Ranks; rank++ {
		rd := filepath.Join(dir, fmt.Sprintf("rank_%d", rank))
		if err := os.MkdirAll(rd, 0o755); err != nil {
			return err
		}
		for s := 0; s < c.OptSteps; s++ {
			step := c.FirstStep + s
			stepStr := strconv.Itoa(step)
			var b []byte
			b = append(b, csvHeaderV2...)
			b = append(b, '\n')
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
				b = append(b, ",0\n"...)
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
			name := fmt.Sprintf("weight_grad_step%d-%d.csv", step, step)
			if err := os.WriteFile(filepath.Join(rd, name), b, 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}
