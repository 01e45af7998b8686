package analysis

import (
	"math"

	"spikescope/model"
)

// Statistics fixed by construction (seed Step 3.3: the band is the noise of
// the control pair). Some records' statistics cannot vary whatever the data
// and the device: a softmax's Max of 1, Min of 0 and Mean of 1/n, a
// normalisation's Norm of √n, the Min of a masked tensor (−1e4 or −inf), a
// rotary table or a position embedding that is the same in every group.
// Their control ratios are exactly 1 (to float32 rounding) and say nothing
// about the noise of the statistics that can vary: pooled with them (a
// dump of few layers learns its band from every aligned op of the layers)
// they pull the band tight and ordinary noise leaves it. A control ratio is
// therefore no sample of a band when its statistic is fixed:
//
//   - by kind: every control ratio of that statistic over every record of
//     the same kind and pass (an API's name without its call number, a
//     module's class; at least minFixedKind of them) is within fixedTol of
//     1, or
//   - by value: the record's statistic is the same in every group (A, B, C
//     and D, or A and B without a control pair) within fixedTol.
//
// A fixed statistic's anomaly degree is 1 on all four groups and is never
// flagged; a record of a fixed kind whose A/B leaves 1 (a softmax whose Max
// is not 1) is judged against the band of the statistics that vary. When
// every control ratio of a metric is fixed the control shows no noise at
// all and the band is the seed's 3% floor.

// fixedTol: a ratio within this of 1 is exactly 1 for the band: far above
// float32 rounding of a statistic (1.2e-7 relative), far below the seed's
// 3% floor (a control that scatters this little gives the floor anyway).
const fixedTol = 1e-3

// minFixedKind: a kind is fixed only when at least this many of its
// records agree (one record near 1 may be chance; it still counts when its
// value is the same in every group).
const minFixedKind = 2

// fixedSample stands, in a list of control ratios, for a ratio of a fixed
// statistic: not a sample (model.Finite is false), but counted by p.band
// so that a metric whose every ratio is fixed gets the floor band.
var fixedSample = math.Inf(1)

// kindKey is a record kind in one pass.
type kindKey struct {
	kind string
	dir  model.Direction
}

// recordKind is an op's kind: a module's class, an API's name without its
// call number.
func recordKind(op *model.Op) string {
	if op.Kind == model.KindModule {
		return op.Prefix + ":" + op.Class
	}
	return op.Prefix + "." + op.ModulePath
}

// nearOne reports whether a finite ratio is within fixedTol of 1.
func nearOne(r float64) bool {
	return model.Finite(r) && math.Abs(r-1) <= fixedTol
}

// learnFixedKinds finds the statistics fixed by kind: over every aligned
// record of the control pair (C/D; A/B without one), per kind, pass and
// statistic, whether every finite control ratio is within fixedTol of 1
// (seed Step 3.3: such a statistic shows no noise to learn a band from).
// It returns the fixed statistics per kind and pass, and per record of the
// control dump (C; A when degraded) its kind's fixed statistics (bit m for
// statistic m).
func learnFixedKinds(p *p3Groups) (kinds map[kindKey][model.NumStats]bool, ops []uint8) {
	x, y := p.ia, p.ib
	if p.hasCD {
		x, y = p.ic, p.id
	}
	state := map[kindKey]*[model.NumStats]int{} // finite ratios within fixedTol so far; −1: one is not
	for i := range x.d.Ops {
		op := &x.d.Ops[i]
		if op.Direction == model.ParamGrad {
			continue
		}
		j := pair(x, int32(i), y)
		if ok, _ := checkPair(x, int32(i), y, j, "X", "Y"); !ok {
			continue
		}
		k := kindKey{recordKind(op), op.Direction}
		st := state[k]
		if st == nil {
			st = &[model.NumStats]int{}
			state[k] = st
		}
		for m := model.Stat(0); m < model.NumStats; m++ {
			r := pairRatio(x, int32(i), y, j, m)
			switch {
			case !model.Finite(r) || st[m] < 0:
			case nearOne(r):
				st[m]++
			default:
				st[m] = -1
			}
		}
	}
	kinds = map[kindKey][model.NumStats]bool{}
	for k, st := range state {
		var f [model.NumStats]bool
		for m := range f {
			f[m] = st[m] >= minFixedKind
		}
		kinds[k] = f
	}
	// per record of the control dump: its kind's fixed statistics (bits)
	ops = make([]uint8, len(x.d.Ops))
	for i := range x.d.Ops {
		op := &x.d.Ops[i]
		if st := state[kindKey{recordKind(op), op.Direction}]; st != nil {
			for m := range st {
				if st[m] >= minFixedKind {
					ops[i] |= 1 << m
				}
			}
		}
	}
	return kinds, ops
}

// fixedStat reports whether statistic m of A's record a (with its
// counterparts b, c, d; −1 when missing) is fixed by kind or by value
// (seed Step 3.3: no sample of the noise band).
func fixedStat(p *p3Groups, a, b, c, d int32, m model.Stat) bool {
	if a < 0 {
		return false
	}
	ctrl := a
	if p.hasCD {
		ctrl = c
	}
	if ctrl >= 0 && int(ctrl) < len(p.fixedOps) && p.fixedOps[ctrl]&(1<<m) != 0 {
		return true
	}
	va := statsOf(p.ia, a)[m]
	if !model.Finite(va) || b < 0 {
		return false
	}
	same := func(x *dumpIndex, i int32) bool {
		return i >= 0 && nearOne(groupRatio(statsOf(x, i)[m], va))
	}
	if !same(p.ib, b) {
		return false
	}
	return !p.hasCD || same(p.ic, c) && same(p.id, d)
}

// fixedFloorBand is the band of a metric whose every control ratio is
// fixed: the control shows no noise, the seed's floor is the band.
func fixedFloorBand(floor float64, n int) model.Band {
	return model.Band{Median: 1, IQR: 0, Lower: model.Float(1 / (1 + floor)), Upper: model.Float(1 + floor), Samples: 0, Usable: true,
		NoteReasons: []model.Reason{model.P3BandAllFixed{N: n}}}
}

// whyMasked is a masked op's reason for not being compared.
var whyMasked model.Reason = model.P3Masked{}

// maskedPair reports whether records i of x and j of y hold a tensor that
// is masked the same way in both, so that neither a ratio nor a failure to
// compare means anything: both without a recorded floating-point output
// (msprobe writes null for the tensors its builtin ignore list names since
// 2026-03: communication receive buffers, npu_fusion_attention's outputs 4
// and 5), or both with the same statistics missing or non-finite with the
// same value (a mask of −inf gives Min = Mean = −inf and Norm = +inf in
// every group).
func maskedPair(x *dumpIndex, i int32, y *dumpIndex, j int32) bool {
	if x == nil || y == nil || i < 0 || j < 0 {
		return false
	}
	ta, tb := primaryTensor(&x.d.Ops[i]), primaryTensor(&y.d.Ops[j])
	if ta == nil || tb == nil {
		return ta == nil && tb == nil && !anyFloatOutput(&x.d.Ops[i]) && !anyFloatOutput(&y.d.Ops[j])
	}
	masked := false
	for s := model.Stat(0); s < model.NumStats; s++ {
		fa := ta.Has[s] && model.Finite(ta.Stat[s])
		fb := tb.Has[s] && model.Finite(tb.Stat[s])
		switch {
		case fa && fb:
		case fa || fb || ta.Has[s] != tb.Has[s]:
			return false
		case ta.Has[s] && !(ta.Stat[s] == tb.Stat[s] || math.IsNaN(ta.Stat[s]) && math.IsNaN(tb.Stat[s])):
			return false
		default:
			masked = true
		}
	}
	return masked
}

// anyFloatOutput reports whether an op records a floating-point output
// tensor with any statistic.
func anyFloatOutput(op *model.Op) bool {
	for k := range op.Outputs {
		t := &op.Outputs[k]
		if isFloatTensor(t) {
			for s := range t.Has {
				if t.Has[s] {
					return true
				}
			}
		}
	}
	return false
}
