package analysis

import (
	"testing"

	"spikescope/model"
)

// BenchmarkNonFiniteOverhead_200k: the work the non-finite rules add to a
// Phase 3 run of four 200,000-op dumps without NaN/Inf — the scan of A's
// outputs for a NaN/Inf and the non-finite check of every anchor cell —
// for comparison with BenchmarkPhase3_200k when the machine is too busy
// for a stable A/B.
func BenchmarkNonFiniteOverhead_200k(bm *testing.B) {
	a, b, c, d := benchQuad(200000)
	tr := newTracerT(Phase3Input{A: a, B: b, C: c, D: d}, DefaultPhase3Options())
	p := tr.p
	anchors := tr.Result().AnchorsUsed
	layers := layerIDs(p.ia, p.ib, p.ic, p.id)
	bm.ResetTimer()
	for bm.Loop() {
		if o := nonFiniteOrigins(&p.p3Groups); o[0] != nil || o[1] != nil {
			bm.Fatal("origin in a finite run")
		}
		for _, dir := range []model.Direction{model.Forward, model.Backward} {
			for _, an := range anchors {
				for _, l := range layers {
					if _, _, _, ok := nonFiniteAnchor(&p.p3Groups, p.opt.Call, anchorKey{l, an, dir}); ok {
						bm.Fatal("non-finite anchor in a finite run")
					}
				}
			}
		}
	}
}
