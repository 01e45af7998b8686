package analysis

import (
	"slices"

	"spikescope/model"
)

// Data-feature check (seed Step 3.6, last paragraph): when the groups were
// fed data of different shape (batch, sequence length), check whether the
// baseline side shows the same difference. If it does, the degree
// (A/B)/(C/D) compares like with like and the data is not the cause; if the
// baseline side is unknown, the point is "to verify".

// Data-feature verdicts.
const (
	dataConsistent  = "consistent"
	dataNotCause    = "data not the cause"
	dataToVerify    = "to verify"
	dataMaybeCause  = "data may be the cause"
	baselineSame    = "same difference"
	baselineNone    = "no difference"
	baselineUnknown = "unknown"
	baselineDiffers = "different difference"
)

// noShapeAvailable: no input shape found.
var noShapeAvailable model.Reason = model.P3ShapeNone{}

// inputShape is the shape of the first floating-point input of the first
// forward op of the first layer (the hidden states entering the layers:
// [seq, batch, hidden] in Megatron), else of the first forward op with such
// an input. nil when none.
func inputShape(x *dumpIndex) []int64 {
	if x == nil {
		return nil
	}
	ls := layerIDs(x)
	if len(ls) > 0 {
		for _, i := range x.layers[ls[0]] {
			op := &x.d.Ops[i]
			if op.Direction != model.Forward {
				continue
			}
			if s := firstFloatShape(op.Inputs); s != nil {
				return s
			}
		}
	}
	for i := range x.d.Ops {
		op := &x.d.Ops[i]
		if op.Direction == model.Forward {
			if s := firstFloatShape(op.Inputs); s != nil {
				return s
			}
		}
	}
	return nil
}

func firstFloatShape(ts []model.TensorStat) []int64 {
	for i := range ts {
		if isFloatTensor(&ts[i]) && len(ts[i].Shape) > 0 {
			return ts[i].Shape
		}
	}
	return nil
}

// dataFeatureCheck compares the input shapes of A and C (the anomalous and
// the normal sample) and, when they differ, those of B and D.
func dataFeatureCheck(a, b, c, d *dumpIndex) *model.DataFeatureCheck {
	sa, sb := inputShape(a), inputShape(b)
	out := &model.DataFeatureCheck{Baseline: baselineNone, Verdict: dataConsistent}
	if c == nil {
		// Degraded: only A vs B can be checked.
		if sa != nil && sb != nil && !slices.Equal(sa, sb) {
			out.Differs = true
			out.DetailReason = model.P3ShapeAB{A: sa, B: sb}
			out.Baseline, out.Verdict = baselineUnknown, dataMaybeCause
			return out
		}
		out.Baseline = baselineUnknown
		if sa == nil {
			out.DetailReason = noShapeAvailable
		}
		return out
	}
	sc := inputShape(c)
	if sa == nil || sc == nil {
		out.Baseline, out.Verdict, out.DetailReason = baselineUnknown, dataToVerify, noShapeAvailable
		return out
	}
	if slices.Equal(sa, sc) {
		if sb != nil && !slices.Equal(sa, sb) {
			out.Differs = true
			out.DetailReason = model.P3ShapeAB{A: sa, B: sb, Different: true}
			out.Baseline, out.Verdict = baselineDiffers, dataMaybeCause
		}
		return out
	}
	out.Differs = true
	why := model.P3ShapeAC{A: sa, C: sc}
	sd := inputShape(d)
	switch {
	case sb == nil || sd == nil:
		out.Baseline, out.Verdict = baselineUnknown, dataToVerify
	case slices.Equal(sa, sb) && slices.Equal(sc, sd):
		out.Baseline, out.Verdict = baselineSame, dataNotCause
		why.B, why.D, why.Baseline, why.Same = sb, sd, true, true
	default:
		out.Baseline, out.Verdict = baselineDiffers, dataToVerify
		why.B, why.D, why.Baseline = sb, sd, true
	}
	out.DetailReason = why
	return out
}
