package analysis

import (
	"sort"
	"strings"

	"spikescope/model"
)

// dtypeWarning compares the dtypes of the tensors the two groups of each
// pair (A/B, C/D) record for the same ops. msprobe's dump.json does not record its precision setting
// (statistics computed in float32 or in the tensor's own dtype), so two
// groups whose tensors have different dtypes (a bf16 run against an fp32
// one) can hold statistics computed at different precisions: they differ
// by that alone. The warning names, per pair that differs, its most common
// difference and how often; nil when both pairs agree on every dtype
// (seed Step 3.1: confirm the data before trusting the ratios).
func dtypeWarning(p *p3Groups) model.Reason {
	type pairing struct {
		x, y         *dumpIndex
		nameX, nameY string
	}
	pairs := []pairing{{p.ia, p.ib, "A", p.nameB}}
	if p.hasCD {
		pairs = append(pairs, pairing{p.ic, p.id, "C", "D"})
	}
	type dtypes struct{ x, y string } // x's dtype where y has another
	var parts []model.P3DtypePart
	for _, g := range pairs {
		diff := map[dtypes]int{}
		n := 0
		for i := range g.x.d.Ops {
			op := &g.x.d.Ops[i]
			if op.Direction == model.ParamGrad {
				continue
			}
			j := pair(g.x, int32(i), g.y)
			if j < 0 {
				continue
			}
			ta, tb := primaryTensor(op), primaryTensor(&g.y.d.Ops[j])
			if ta == nil || tb == nil || ta.Dtype == "" || tb.Dtype == "" {
				continue
			}
			n++
			if da, db := dtypeName(ta.Dtype), dtypeName(tb.Dtype); da != db {
				diff[dtypes{da, db}]++
			}
		}
		if len(diff) == 0 {
			continue
		}
		keys := make([]dtypes, 0, len(diff))
		for k := range diff {
			keys = append(keys, k)
		}
		less := func(a, b dtypes) bool { return a.x < b.x || a.x == b.x && a.y < b.y }
		sort.Slice(keys, func(a, b int) bool {
			return diff[keys[a]] > diff[keys[b]] || diff[keys[a]] == diff[keys[b]] && less(keys[a], keys[b])
		})
		parts = append(parts, model.P3DtypePart{Group: g.nameX, Dtype: keys[0].x, Other: g.nameY, OtherDtype: keys[0].y, Count: diff[keys[0]], Of: n})
	}
	if len(parts) == 0 {
		return nil
	}
	return model.P3DtypeDiffers{Parts: parts}
}

// dtypeName is a dtype without its framework prefix ("torch.bfloat16" →
// "bfloat16", "mindspore.float16" → "float16"), lower case.
func dtypeName(d string) string {
	d = strings.ToLower(d)
	if k := strings.LastIndexByte(d, '.'); k >= 0 {
		d = d[k+1:]
	}
	return d
}
