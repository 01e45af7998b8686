package sweeps

import (
	"fmt"

	"spikescope/testdata/synth"
)

// swCases is the sweep matrix: every variant changes the base in one way,
// the last ones combine several.
// Planted faults that real gradient noise can match (analysis' tailSpreads:
// a candidate stands ≥ 9 spreads of the run's step-to-step noise above its
// median; noise-only TrainerMon runs reach 7.4).
const (
	weakLimit  = "a 2.5× fault on one parameter of one rank shows as 2.2–2.3× its median, 8.3–8.5 spreads of the run's step-to-step noise (≈ 0.1 per step): real noise-only runs reach 1.8–2.4× (up to 7.4 spreads), so it is not told from a heavy-tailed batch (floor 9 spreads)"
	batchLimit = "±25% log-normal batch noise: the run's step-to-step noise is 0.25–0.29 per step, and the 4× fault (5.0–5.2× its median) is 5.7–6.5 spreads of it — within what real noise of that spread reaches (7.4), not told from a heavy-tailed batch (floor 9 spreads)"
)

func swCases() []synth.Sweep {
	cs := []synth.Sweep{synth.SweepWith("base", func(c *synth.Sweep) {})}
	for _, w := range []int{1, 2, 3, 8, 16} {
		cs = append(cs, synth.SweepWith(fmt.Sprintf("W=%d", w), func(c *synth.Sweep) {
			c.W = w
			c.Fault.Micro = min(c.Fault.Micro, w-1)
		}))
	}
	cs = append(cs,
		synth.SweepWith("skip1", func(c *synth.Sweep) { c.Skip = 1 }),
		synth.SweepWith("skip3-resumed1000", func(c *synth.Sweep) { c.Skip = 3; c.First = 1000 }),
		synth.SweepWith("W8-skip5", func(c *synth.Sweep) { c.W = 8; c.Skip = 5; c.Fault.Micro = 6 }),
		synth.SweepWith("ranks4", func(c *synth.Sweep) { c.Ranks = 4; c.Fault.Rank = 1 }),
		synth.SweepWith("ranks16", func(c *synth.Sweep) { c.Ranks = 16; c.Fault.Rank = 9 }),
		synth.SweepWith("ranks32", func(c *synth.Sweep) { c.Ranks = 32; c.Fault.Rank = 20 }),
		synth.SweepWith("params206", func(c *synth.Sweep) { c.Layers = 34 }),
		synth.SweepWith("pp2", func(c *synth.Sweep) { c.PP = 2 }),
		synth.SweepWith("pp4-ranks16", func(c *synth.Sweep) { c.PP = 4; c.Ranks = 16; c.Fault.Rank = 6 }),
		synth.SweepWith("pp2-vpp2", func(c *synth.Sweep) { c.PP = 2; c.VPP = 2 }),
		synth.SweepWith("fault-first-step", func(c *synth.Sweep) { c.Fault.T = 0 }),
		synth.SweepWith("fault-last-step", func(c *synth.Sweep) { c.Fault.T = c.Steps - 1 }),
		synth.SweepWith("fault-ms0", func(c *synth.Sweep) { c.Fault.Micro = 0 }),
		synth.SweepWith("fault-ms-last", func(c *synth.Sweep) { c.Fault.Micro = c.W - 1 }),
		synth.SweepWith("fault-small-param", func(c *synth.Sweep) { c.Fault.Param = "small" }),
		synth.SweepWith("fault-large-param", func(c *synth.Sweep) { c.Fault.Param = "large"; c.Fault.Rank = 0 }),
		synth.SweepWith("nan", func(c *synth.Sweep) { c.Fault.NaN = true }),
		synth.SweepWith("trunc2", func(c *synth.Sweep) { c.Trunc = 2 }),
		synth.SweepWith("trunc3-skip2-W8", func(c *synth.Sweep) { c.W, c.Trunc, c.Skip, c.Fault.Micro = 8, 3, 2, 6 }),
		synth.SweepWith("W=32", func(c *synth.Sweep) { c.W, c.Steps, c.Fault.Micro, c.Layers = 32, 8, 20, 4 }),
		synth.SweepWith("scale100", func(c *synth.Sweep) { c.Fault.Scale = 100 }),
		synth.SweepWith("nan-propagates", func(c *synth.Sweep) { c.Fault.NaN, c.Explode = true, 3 }),
		synth.SweepWith("nan-propagates-W1-base", func(c *synth.Sweep) { c.Fault.NaN, c.Explode, c.W, c.Fault.Micro, c.Baseline = true, 3, 1, 0, 1 }),
		synth.SweepWith("inf", func(c *synth.Sweep) { c.Fault.NaN, c.Fault.Inf = true, true }),
		synth.SweepWith("inf-W1", func(c *synth.Sweep) { c.Fault.NaN, c.Fault.Inf, c.W, c.Fault.Micro = true, true, 1, 0 }),
		synth.SweepWith("skip2-fault-first-step-ms3", func(c *synth.Sweep) { c.Skip, c.Fault.T, c.Fault.Micro = 2, 0, 3 }),
		synth.SweepWith("fault-t0-ms0", func(c *synth.Sweep) { c.Fault.T, c.Fault.Micro = 0, 0 }),
		synth.SweepWith("nan-no-explosion", func(c *synth.Sweep) { c.Fault.NaN = true; c.Explode = 0 }),
		synth.SweepWith("no-explosion", func(c *synth.Sweep) { c.Explode = 0 }),
		synth.SweepWith("explosion-spares-fault", func(c *synth.Sweep) { c.Explode = 2 }),
		synth.SweepWith("explosion-third-of-ranks", func(c *synth.Sweep) {
			c.ExplodeHalf = true
			c.Limit = "explosion on < 60% of ranks: no qualifying pair, the seed's fallback takes the step of the largest deviation (the explosion); the fault stays the first candidate"
		}),
		synth.SweepWith("fault-all-ranks", func(c *synth.Sweep) { c.Fault.AllRanks = true }),
		synth.SweepWith("fault-all-ranks-W1", func(c *synth.Sweep) { c.Fault.AllRanks, c.W, c.Fault.Micro = true, 1, 0 }),
		synth.SweepWith("fault-all-ranks-no-explosion", func(c *synth.Sweep) { c.Fault.AllRanks, c.Explode = true, 0 }),
		synth.SweepWith("two-ranks", func(c *synth.Sweep) { c.Fault.Rank2 = 6 }),
		synth.SweepWith("no-fault", func(c *synth.Sweep) { c.Fault = nil; c.Explode = 0 }),
		synth.SweepWith("no-fault-trend", func(c *synth.Sweep) { c.Fault = nil; c.Explode = 0; c.Trend = 3 }),
		synth.SweepWith("no-fault-lossscale", func(c *synth.Sweep) { c.Fault = nil; c.Explode = 0; c.LossScale = 3 }),
		synth.SweepWith("no-fault-W1-trend", func(c *synth.Sweep) { c.Fault = nil; c.Explode = 0; c.W = 1; c.Trend = 3; c.Steps = 40 }),
		synth.SweepWith("no-fault-W1-lossscale", func(c *synth.Sweep) { c.Fault = nil; c.Explode = 0; c.W = 1; c.LossScale = 5; c.Steps = 40 }),
		synth.SweepWith("warmup", func(c *synth.Sweep) { c.Warmup = 10 }),
		synth.SweepWith("warmup-W1", func(c *synth.Sweep) { c.Warmup = 10; c.W = 1; c.Fault.Micro = 0 }),
		synth.SweepWith("no-fault-warmup", func(c *synth.Sweep) { c.Fault = nil; c.Explode = 0; c.Warmup = 10 }),
		synth.SweepWith("no-fault-warmup-W1", func(c *synth.Sweep) { c.Fault = nil; c.Explode = 0; c.Warmup = 10; c.W = 1; c.Steps = 30 }),
		synth.SweepWith("baseline", func(c *synth.Sweep) { c.Baseline = 1 }),
		synth.SweepWith("baseline-shared", func(c *synth.Sweep) { c.Baseline = 2 }),
		synth.SweepWith("reduced", func(c *synth.Sweep) { c.Reduced = true }),
		synth.SweepWith("reduced-skip2", func(c *synth.Sweep) { c.Reduced = true; c.Skip = 2 }),
		synth.SweepWith("W1-weak2.5", func(c *synth.Sweep) {
			c.W, c.Ranks, c.Fault.Scale, c.Fault.Micro = 1, 16, 2.5, 0
			c.Limit = weakLimit
		}),
		synth.SweepWith("pp4-W1-weak2.5", func(c *synth.Sweep) { c.W, c.Ranks, c.PP, c.Fault.Scale, c.Fault.Micro = 1, 16, 4, 2.5, 0 }),
		synth.SweepWith("pp4-W4-weak2.5", func(c *synth.Sweep) { c.Ranks, c.PP, c.Fault.Scale = 16, 4, 2.5 }),
		synth.SweepWith("W4-weak2.5", func(c *synth.Sweep) { c.Ranks, c.Fault.Scale = 16, 2.5 }),
		synth.SweepWith("degrade-W1", func(c *synth.Sweep) {
			c.W, c.Fault.Micro, c.Fault.Scale, c.Fault.Persist, c.Explode, c.Fault.T = 1, 0, 3, true, 0, 3
		}),
		synth.SweepWith("degrade-W4", func(c *synth.Sweep) {
			c.Fault.Scale, c.Fault.Persist, c.Explode, c.Fault.T = 3, true, 0, 3
			c.Limit = "the first faulty micro-batch's increment is 2.3× its median, 8.4 spreads of the run's step-to-step noise: within what real noise reaches (up to 7.4 on noise-only TrainerMon runs, floor 9); the root step is found, at the next micro step, where the fault has grown"
		}),
		synth.SweepWith("steps3", func(c *synth.Sweep) { c.Steps, c.Fault.T = 3, 1 }),
		synth.SweepWith("steps5-W1", func(c *synth.Sweep) { c.Steps, c.Fault.T, c.W, c.Fault.Micro = 5, 2, 1, 0 }),
		synth.SweepWith("steps5-W8", func(c *synth.Sweep) { c.Steps, c.Fault.T, c.W, c.Fault.Micro = 5, 2, 8, 3 }),
		synth.SweepWith("no-fault-W1-long", func(c *synth.Sweep) { c.Fault, c.Explode, c.W, c.Steps = nil, 0, 1, 200 }),
		synth.SweepWith("no-fault-W4-long", func(c *synth.Sweep) { c.Fault, c.Explode, c.Steps = nil, 0, 60 }),
		synth.SweepWith("no-fault-noise30", func(c *synth.Sweep) { c.Fault, c.Explode, c.Noise = nil, 0, 0.3 }),
		synth.SweepWith("no-fault-W1-noise30", func(c *synth.Sweep) { c.Fault, c.Explode, c.Noise, c.W, c.Steps = nil, 0, 0.3, 1, 40 }),
		synth.SweepWith("noise30-scale6", func(c *synth.Sweep) {
			c.Noise, c.Fault.Scale = 0.3, 6
			c.Limit = "a 6× fault in ±30% noise is 6.4 spreads of the run's step-to-step noise (0.30 per step): real gradient noise of that spread reaches 7.4 spreads, so 6× is not told from a heavy-tailed batch (floor 9 spreads)"
		}),
		synth.SweepWith("ranks1", func(c *synth.Sweep) { c.Ranks, c.Fault.Rank = 1, 0 }),
		synth.SweepWith("ranks1-W1", func(c *synth.Sweep) { c.Ranks, c.Fault.Rank, c.W, c.Fault.Micro = 1, 0, 1, 0 }),
		synth.SweepWith("ranks1-W1-long", func(c *synth.Sweep) {
			c.Ranks, c.Fault.Rank, c.W, c.Fault.Micro, c.Steps, c.Fault.T = 1, 0, 1, 0, 40, 20
		}),
		synth.SweepWith("ranks1-W1-no-fault", func(c *synth.Sweep) { c.Ranks, c.Fault, c.Explode, c.W, c.Steps = 1, nil, 0, 1, 40 }),
		synth.SweepWith("warmup-W1-ranks1", func(c *synth.Sweep) {
			c.Ranks, c.Fault.Rank, c.W, c.Fault.Micro, c.Warmup = 1, 0, 1, 0, 10
			c.Limit = "one rank, one value per step: no common level to tell a warm-up from a spike (a level across parameters would be needed)"
		}),
		synth.SweepWith("ranks2-W1-no-fault", func(c *synth.Sweep) { c.Ranks, c.Fault, c.Explode, c.W, c.Steps = 2, nil, 0, 1, 40 }),
		synth.SweepWith("ranks2-W1", func(c *synth.Sweep) { c.Ranks, c.Fault.Rank, c.W, c.Fault.Micro = 2, 1, 1, 0 }),
		synth.SweepWith("late-fault-long-W1", func(c *synth.Sweep) { c.W, c.Steps, c.Fault.T, c.Fault.Micro, c.Trend = 1, 100, 90, 0, 2 }),
		synth.SweepWith("batchnoise25-no-fault", func(c *synth.Sweep) { c.Fault, c.Explode, c.BatchNoise = nil, 0, 0.25 }),
		synth.SweepWith("batchnoise25-W1-no-fault", func(c *synth.Sweep) { c.Fault, c.Explode, c.BatchNoise, c.W, c.Steps = nil, 0, 0.25, 1, 40 }),
		synth.SweepWith("batchnoise15-W1-no-fault", func(c *synth.Sweep) { c.Fault, c.Explode, c.BatchNoise, c.W, c.Steps = nil, 0, 0.15, 1, 40 }),
		synth.SweepWith("batchnoise25", func(c *synth.Sweep) { c.BatchNoise, c.Limit = 0.25, batchLimit }),
		synth.SweepWith("batchnoise25-W1", func(c *synth.Sweep) { c.BatchNoise, c.W, c.Fault.Micro, c.Limit = 0.25, 1, 0, batchLimit }),
		synth.SweepWith("interval10", func(c *synth.Sweep) { c.Interval = 10 }),
		synth.SweepWith("warmup-interval100-W1-r4", func(c *synth.Sweep) {
			c.Interval, c.W, c.Fault.Micro, c.Warmup, c.Ranks, c.Fault.Rank, c.Steps = 100, 1, 0, 10, 4, 1, 30
		}),
		synth.SweepWith("interval5-W1", func(c *synth.Sweep) { c.Interval, c.W, c.Fault.Micro = 5, 1, 0 }),
		synth.SweepWith("combo-W8-pp2-vpp2-r16-skip3-warm-base", func(c *synth.Sweep) {
			c.W, c.PP, c.VPP, c.Ranks, c.Skip, c.First, c.Warmup, c.Baseline, c.Layers = 8, 2, 2, 16, 3, 1000, 6, 1, 16
			c.Fault.Rank, c.Fault.Micro = 10, 5
		}),
		synth.SweepWith("combo-W16-r32-nan-2ranks", func(c *synth.Sweep) {
			c.W, c.Ranks, c.Layers = 16, 32, 4
			c.Fault.Rank, c.Fault.Rank2, c.Fault.Micro, c.Fault.NaN = 7, 30, 15, true
		}),
		synth.SweepWith("combo-W1-r16-pp4-trend-first", func(c *synth.Sweep) {
			c.W, c.Ranks, c.PP, c.Trend, c.Steps = 1, 16, 4, 2, 30
			c.Fault.T, c.Fault.Micro, c.Fault.Rank, c.Fault.Param = 0, 0, 13, "small"
		}),
		synth.SweepWith("combo-W2-r4-large-noexpl-base", func(c *synth.Sweep) {
			c.W, c.Ranks, c.Explode, c.Baseline = 2, 4, 0, 1
			c.Fault.Rank, c.Fault.Param, c.Fault.Micro = 0, "large", 1
		}),
	)
	return cs
}
