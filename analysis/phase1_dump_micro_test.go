package analysis

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"spikescope/model"
)

// singleDumpCalls builds a single-step dump tree seen as monitor rows
// (GradientsFromDumps' shape): per (rank, parameter) the cumulative norms
// of 4 parameters_grad calls as micro rows and the last one as the step's
// row. Normal parameters add uncorrelated micro-batches of ~±10%; "big"
// is 6× larger and grows evenly; "jumpy" has a 5× micro-batch at call 2.
func singleDumpCalls(seed uint64) *monBuilder {
	b := newMon(model.FormatDump, "grad_norm")
	b.d.ExplicitMicro = true
	rng := rand.New(rand.NewPCG(seed, 7))
	for r := 0; r < 2; r++ {
		for p := 0; p < 30; p++ {
			name := fmt.Sprintf("Module.decoder.layers.%d.mlp.linear_fc%d.Linear.weight", p/2, 1+p%2)
			base := 1 + 0.5*float64(p%5)
			switch {
			case p == 7:
				name, base = "Module.embedding.word_embeddings.Embedding.weight", 12 // big
			case p == 11 && r == 1:
				name = "Module.decoder.layers.5.mlp.linear_fc2.Linear.weight" // jumpy below
			}
			sq := 0.0
			for k := 0; k < 4; k++ {
				g := base * (1 + 0.1*rng.NormFloat64())
				if p == 11 && r == 1 && k == 2 {
					g *= 5
				}
				sq += g * g
				b.add(r, 7, k, name, 0, math.Sqrt(sq))
			}
			b.add(r, 7, int(model.NoMicro), name, 0, math.Sqrt(sq))
		}
	}
	return b
}

// A single-step dump names the call where a gradient jumps (call 2 of
// rank 1's fc2 of layer 5) and no call for gradients that grew evenly,
// however large; the jump comes first in Phase 1 and is Phase 2's
// coordinate, where the old rule took the largest norm (the embedding).
func TestSingleDumpCallJump(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		res := singleDumpCalls(seed).run(t)
		if res.DataKind != kindDump || !res.Sharding.HasMicroStep || res.Sharding.AccumulationWindow != 4 {
			t.Fatalf("seed %d: kind %s sharding %+v", seed, res.DataKind, res.Sharding)
		}
		jumpy := "Module.decoder.layers.5.mlp.linear_fc2.Linear.weight"
		first := res.Anomalies[0]
		if first.Rank != 1 || first.TargetName != jumpy || pv(first.MicroStep) != 2 || pv(first.MicroIndex) != 2 || first.Increment == nil {
			t.Fatalf("seed %d: first candidate %s", seed, jsn(&first))
		}
		biggest := first
		for _, a := range res.Anomalies[1:] {
			if a.MicroStep != nil {
				t.Fatalf("seed %d: %s rank %d names call %d without a jump", seed, a.TargetName, a.Rank, *a.MicroStep)
			}
			if a.Norm > biggest.Norm {
				biggest = a
			}
		}
		if biggest.TargetName == jumpy {
			t.Fatalf("seed %d: the test needs a larger, even gradient", seed)
		}
		p2, err := phase2Said(res, nil, nil, DefaultPhase2Options())
		if err != nil {
			t.Fatal(err)
		}
		if co := p2.RootCauseCoordinate; co == nil || co.TargetName != jumpy || co.Rank != 1 || pv(co.MicroStep) != 2 {
			t.Fatalf("seed %d: coordinate %s (largest norm %s)", seed, jsn(co), biggest.TargetName)
		}
	}
}
