package analysis

import (
	"math"
	"slices"
	"strings"
	"testing"

	"spikescope/model"
	"spikescope/testdata/synth"
)

// newP3 indexes a quad the way NewTracer does, for the rules' own tests.
func newP3(a, b, c, d *model.Dump) *p3 {
	p := &p3{opt: DefaultPhase3Options(), grads: map[gradKey]float64{}, p3Groups: p3Groups{nameB: "B", hasCD: c != nil && d != nil}}
	dumps := []*model.Dump{a, b}
	if p.hasCD {
		dumps = append(dumps, c, d)
	}
	p.scheme = learnLayerScheme(dumps...)
	p.ia, p.ib = indexDump(a, p.scheme), indexDump(b, p.scheme)
	if p.hasCD {
		p.ic, p.id = indexDump(c, p.scheme), indexDump(d, p.scheme)
	}
	_, p.fixedOps = learnFixedKinds(&p.p3Groups)
	return p
}

// A softmax's Max, Min and Mean and a finite mask's Min are fixed by kind;
// the softmax's Norm and a linear's statistics vary, and are not.
func TestFixedKinds(t *testing.T) {
	q := synth.TraceQuad{Layers: 4, Noise: 0.01, Bias: 1, Seed: 2, ConstStats: true}
	p := newP3(q.Build())
	kinds, _ := learnFixedKinds(&p.p3Groups)
	fixed := func(kind string, m model.Stat) bool { return kinds[kindKey{kind, model.Forward}][m] }
	for _, m := range []model.Stat{model.StatMax, model.StatMin, model.StatMean} {
		if !fixed("Tensor.softmax", m) {
			t.Errorf("softmax %s not fixed", metricName(m))
		}
	}
	if !fixed("Tensor.masked_fill", model.StatMin) {
		t.Error("the mask's Min not fixed")
	}
	if fixed("Tensor.softmax", model.StatNorm) || fixed("Tensor.masked_fill", model.StatMax) {
		t.Error("a statistic that varies with the data is taken as fixed")
	}
	for _, m := range metricOrder {
		if fixed("Functional.linear", m) {
			t.Errorf("linear %s fixed", metricName(m))
		}
	}
	// without the constant ops nothing is fixed at all
	p = newP3(synth.TraceQuad{Layers: 4, Noise: 0.01, Bias: 1, Seed: 2}.Build())
	kinds, _ = learnFixedKinds(&p.p3Groups)
	for k, f := range kinds {
		for m, v := range f {
			if v {
				t.Errorf("%s %s fixed without constant statistics", k.kind, metricName(model.Stat(m)))
			}
		}
	}
}

// Ratios of fixed statistics are no samples; when they are all there is,
// the band is the floor and usable.
func TestFixedRatiosBand(t *testing.T) {
	in := bandInputs{hasCD: true, iqrMult: bandIQRMult, floor: bandSpreadFloor}
	b := noiseBand(in, []float64{fixedSample, fixedSample, math.NaN()})
	if !b.Usable || math.Abs(float64(b.Upper)-1.03) > 1e-12 || !slices.Equal(b.NoteReasons, []model.Reason{model.P3BandAllFixed{N: 2}}) {
		t.Errorf("all fixed: %+v, want the usable 3%% floor band", b)
	}
	with := noiseBand(in, []float64{fixedSample, fixedSample, fixedSample, 0.9, 1.1, 1.05, 0.95})
	without := noiseBand(in, []float64{0.9, 1.1, 1.05, 0.95})
	if with.Samples != 4 || with.Upper != without.Upper {
		t.Errorf("fixed ratios changed the band: %+v against %+v", with, without)
	}
	ones := noiseBand(in, []float64{1, 1, 1, 0.9, 1.1, 1.05, 0.95})
	if !(ones.Upper < without.Upper) {
		t.Errorf("the exact ones would narrow the band (the reason to leave them out): %v vs %v", ones.Upper, without.Upper)
	}
}

// ownSpreadGuard: an anchor whose own control ratios scatter beyond the
// pooled band gets a band at least as wide as they allow (their scale's
// one-standard-error upper bound); quiet ones leave the band as it is.
func TestOwnSpreadGuard(t *testing.T) {
	if v := chi2Lower(2); math.Abs(v-0.3487) > 0.005 {
		t.Errorf("χ²(0.16; 2) = %v, want 0.349", v)
	}
	if v := chi2Lower(30); math.Abs(v-22.377) > 0.05 { // exact 22.377
		t.Errorf("χ²(0.16; 30) = %v, want 22.377", v)
	}
	in := bandInputs{hasCD: true, iqrMult: bandIQRMult, floor: bandSpreadFloor, comparisons: 40}
	pooled := model.Band{Median: 1, Lower: 1 / 1.05, Upper: 1.05, Usable: true}
	own := []float64{0.9, 1.01}
	b := ownSpreadGuard(in, pooled, own)
	sigma := math.Sqrt((math.Log(0.9)*math.Log(0.9) + math.Log(1.01)*math.Log(1.01)) / chi2Lower(2))
	want := math.Exp(math.Sqrt2 * 3 * familyFactor(3, 40) * iqrPerSigma * sigma)
	if math.Abs(float64(b.Upper)-want) > 1e-9 || !slices.Contains(b.NoteReasons, model.Reason(model.P3BandWidened{N: 2})) {
		t.Errorf("widened band %+v, want upper %v", b, want)
	}
	if q := ownSpreadGuard(in, pooled, []float64{1.0001, 0.9999}); q.Upper != pooled.Upper {
		t.Errorf("quiet own ratios changed the band: %+v", q)
	}
	in.hasCD = false
	if q := ownSpreadGuard(in, pooled, own); q.Upper != pooled.Upper {
		t.Errorf("degraded (A/B is what is judged): band changed %+v", q)
	}
}

// maskedPair: the same null or non-finite statistics on both sides are a
// mask; a value on one side only, or a different non-finite value, is not.
func TestMaskedPair(t *testing.T) {
	tensor := func(st [model.NumStats]float64, has [model.NumStats]bool) model.TensorStat {
		return model.TensorStat{Name: "output.0", Dtype: "torch.float32", Shape: []int64{8}, Elements: 8, Stat: st, Has: has}
	}
	all := [model.NumStats]bool{true, true, true, true}
	inf, ninf := math.Inf(1), math.Inf(-1)
	st := func(mx, mn, mean, norm float64) [model.NumStats]float64 {
		var v [model.NumStats]float64
		v[model.StatMax], v[model.StatMin], v[model.StatMean], v[model.StatNorm] = mx, mn, mean, norm
		return v
	}
	mk := func(outs ...model.TensorStat) *dumpIndex {
		d := &model.Dump{Ops: []model.Op{{Key: "Tensor.masked_fill.0.forward", Kind: model.KindAPI, Outputs: outs}}, Index: map[string]int{"Tensor.masked_fill.0.forward": 0}}
		return &dumpIndex{d: d}
	}
	maskA := mk(tensor(st(1.2, ninf, ninf, inf), all))
	cases := []struct {
		name string
		y    *dumpIndex
		want bool
	}{
		{"same −inf mask", mk(tensor(st(1.3, ninf, ninf, inf), all)), true},
		{"finite on the other side", mk(tensor(st(1.3, -1e4, -3, 1e5), all)), false},
		{"other infinity", mk(tensor(st(1.3, inf, ninf, inf), all)), false},
	}
	for _, c := range cases {
		if got := maskedPair(maskA, 0, c.y, 0); got != c.want {
			t.Errorf("%s: masked %v, want %v", c.name, got, c.want)
		}
	}
	// msprobe's ignore list writes the whole tensor as null: no output
	null := mk()
	if !maskedPair(null, 0, mk(), 0) {
		t.Error("null on both sides is not masked")
	}
	if maskedPair(null, 0, mk(tensor(st(1, -1, 0.1, 3), all)), 0) {
		t.Error("null on one side only is masked")
	}
	finite := mk(tensor(st(1, -1, 0.1, 3), all))
	if maskedPair(finite, 0, finite, 0) {
		t.Error("a finite pair is masked")
	}
}

// dtypeWarning: A in bfloat16 against B in float32 (and C against D) is
// said, with how many records; one dtype everywhere says nothing.
func TestDtypeWarning(t *testing.T) {
	p := newP3(synth.TraceQuad{Layers: 4, Noise: 0.01, Bias: 1, Seed: 3, BF16VsFP32: true}.Build())
	w := say(dtypeWarning(&p.p3Groups))
	if !strings.Contains(w, "A has bfloat16 where B has float32") || !strings.Contains(w, "C has bfloat16 where D has float32") || !strings.Contains(w, "precision") {
		t.Errorf("warning %q", w)
	}
	p = newP3(synth.TraceQuad{Layers: 4, Noise: 0.01, Bias: 1, Seed: 3}.Build())
	if w := dtypeWarning(&p.p3Groups); w != nil {
		t.Errorf("one dtype, yet %v", w)
	}
}
