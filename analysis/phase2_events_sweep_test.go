package analysis

import (
	"fmt"
	"slices"
	"testing"

	"spikescope/testdata/synth"
)

// A small sweep of the two-spike runs: ranks, window, kernel-spike size,
// order and distance of the two spikes, seeds. Always two events with
// their extents; on step-level data the root is the earlier spike,
// whichever kind it is. The weaker kernel spike is 4×: a 3× one shows as
// 2.7× its median, 8.5 spreads of the run's step-to-step noise, within what
// real gradient noise reaches (tailSpreads).
func TestEventsSweepTwoSpikes(t *testing.T) {
	t.Parallel()
	for _, ranks := range []int{4, 8, 16} {
		for _, w := range []int{1, 4} {
			for _, ks := range []float64{4, 6} {
				for _, pos := range [][2]int{{3, 9}, {5, 6}, {1, 12}, {10, 4}} {
					c := synth.DefaultConfig()
					c.Ranks, c.Window, c.OptSteps, c.NoFault, c.Seed = ranks, w, 16, true, uint64(ranks+w)
					c.Spikes = []synth.Spike{{OptStep: pos[0], MicroStep: min(1, w-1), Ranks: []int{1}, Kernel: true, Layer: 2, Scale: ks},
						{OptStep: pos[1], Ranks: []int{ranks - 1}, All: true, Scale: 25}}
					name := fmt.Sprintf("ranks %d W %d kernel %.0f× at %d, data at %d", ranks, w, ks, pos[0], pos[1])
					_, p2 := evPhases(t, synth.Generate(c).Monitor(synth.Anomalous), nil)
					if len(p2.Events) != 2 {
						t.Errorf("%s: %d events %s", name, len(p2.Events), jsn(p2.Events))
						continue
					}
					k, d := p2.Events[0], p2.Events[1]
					if pos[1] < pos[0] {
						k, d = d, k
					}
					if k.RootStep != pos[0] || k.Extent != extentKernel || d.RootStep != pos[1] || d.Extent != extentData {
						t.Errorf("%s: events %s", name, jsn(p2.Events))
					}
					co := p2.RootCauseCoordinate
					if w == 1 && (co == nil || pv(co.OptimizerStep) != min(pos[0], pos[1]) || !p2.Events[0].Root) {
						t.Errorf("%s: root %s, want the earlier spike", name, jsn(co))
					}
				}
			}
		}
	}
}

// A small sweep of fp16 runs with a baseline: overflow period, which
// gradients overflow (one to three, on every rank or two of them), window,
// ranks, and a kernel or data spike before, between, right after or on an
// overflow step. The root is the spike; every overflow step not holding
// the spike is a shared event. Without the spike the root is the first
// overflow, every event shared.
func TestEventsSweepFp16(t *testing.T) {
	t.Parallel()
	names := [][]string{{"output_layer.weight"}, {"layers.0.mlp.linear_fc1.weight", "layers.3.mlp.linear_fc2.weight", "output_layer.weight"}}
	n := 0
	for _, ranks := range []int{4, 16} {
		for _, w := range []int{1, 4} {
			for _, period := range []int{3, 5} {
				for ni, nm := range names {
					for _, sp := range []int{-1, 0, 7, 8} {
						n++
						c := synth.DefaultConfig()
						c.Ranks, c.Window, c.OptSteps, c.NoFault, c.Seed = ranks, w, 16, true, uint64(ranks*100+w*10+period+ni)
						var ovs []int
						for k := 2; k < 16; k += period {
							s := synth.Spike{OptStep: k, MicroStep: min(1, w-1), Overflow: true, Shared: true, Names: nm}
							if n%2 == 0 {
								s.Ranks = []int{0, 2}
							}
							c.Spikes = append(c.Spikes, s)
							ovs = append(ovs, k)
						}
						if sp >= 0 {
							spike := synth.Spike{OptStep: sp, MicroStep: min(2, w-1), Ranks: []int{ranks - 1}, Kernel: true, Layer: 1, Scale: 5}
							if n%3 == 0 {
								spike.Kernel, spike.All, spike.Scale = false, true, 20
							}
							c.Spikes = append(c.Spikes, spike)
						}
						r := synth.Generate(c)
						_, p2 := evPhases(t, r.Monitor(synth.Anomalous), r.Monitor(synth.Baseline))
						name := fmt.Sprintf("ranks %d W %d period %d names %d spike %d", ranks, w, period, ni, sp)
						co := p2.RootCauseCoordinate
						shared := 0
						for _, e := range p2.Events {
							if e.Baseline == eventShared {
								shared++
							}
						}
						switch {
						case sp < 0:
							if co == nil || pv(co.OptimizerStep) != 2 || shared != len(ovs) || len(p2.Events) != len(ovs) || !p2.Events[0].Root {
								t.Errorf("%s: root %s, events %s", name, jsn(co), jsn(p2.Events))
							}
						case co == nil || pv(co.OptimizerStep) != sp || co.Rank != ranks-1:
							t.Errorf("%s: root %s, want the spike", name, jsn(co))
						case !slices.Contains(ovs, sp) && shared != len(ovs):
							t.Errorf("%s: %d shared events, want %d: %s", name, shared, len(ovs), jsn(p2.Events))
						}
					}
				}
			}
		}
	}
}
