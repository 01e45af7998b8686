package analysis

import (
	"runtime"
	"testing"

	"spikescope/model"
)

// benchQuad builds four dumps of about ops operators each (48 layers, as
// many micro-batches as needed), A with a forward fault in layer 20's MLP.
func benchQuad(ops int) (a, b, c, d *model.Dump) {
	const layers = 48
	perCall := 1 + layers*(len(tFwd)+len(tBwd)+4) // embedding + passes + 4 parameters_grad
	calls := max(1, (ops+perCall/2)/perCall)
	kfc1 := tFind(tFwd, "mlp.linear_fc1", "ColumnParallelLinear")
	fault := func(dir model.Direction, layer, k int, s model.Stat) float64 {
		if dir == model.Forward && (layer > 20 || layer == 20 && k >= kfc1) {
			return 1.5
		}
		return 1
	}
	a = buildDump("A", tSpec{Layers: layers, Calls: calls, Mul: fault})
	b = buildDump("B", tSpec{Layers: layers, Calls: calls, Class: func(c string) string { return "TE" + c }, APIBase: 3})
	c = buildDump("C", tSpec{Layers: layers, Calls: calls, Mul: tNoise(5)})
	d = buildDump("D", tSpec{Layers: layers, Calls: calls, CallBase: 1})
	return
}

func benchPhase3(bm *testing.B, ops int) {
	a, b, c, d := benchQuad(ops)
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	dumpsMiB := float64(ms.HeapAlloc) / (1 << 20) // the four dumps held in memory
	bm.ResetTimer()
	for bm.Loop() {
		r := phase3T(Phase3Input{A: a, B: b, C: c, D: d}, DefaultPhase3Options())
		if r.DivergenceSummary.EarliestFwdDivergence == nil || *r.DivergenceSummary.EarliestFwdDivergence != 20 {
			bm.Fatalf("fwd start %v", r.DivergenceSummary.EarliestFwdDivergence)
		}
	}
	bm.ReportMetric(float64(len(a.Ops)), "ops/dump") // after the loop: ResetTimer drops metrics
	bm.ReportMetric(dumpsMiB, "dumps-MiB")
}

// BenchmarkPhase3_6144: four dumps of 6,144 operators, 48 layers (the
// reference needs ~43 s).
func BenchmarkPhase3_6144(b *testing.B) { benchPhase3(b, 6144) }

// BenchmarkPhase3_200k: four dumps of 200,000 operators.
func BenchmarkPhase3_200k(b *testing.B) { benchPhase3(b, 200000) }
