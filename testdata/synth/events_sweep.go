package synth

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"spikescope/model"
)

// EventPhasesFunc is Phase 1 and 2 under test on the device's monitor
// data and, when b is not nil, the baseline's (synth cannot import
// analysis, whose tests import synth).
type EventPhasesFunc func(t *testing.T, a, b *model.MonitorData) *model.Phase2Result

// EventCase is one run of the Phase 2 event sweeps and what Phase 2 must
// find in it.
type EventCase struct {
	Name     string
	Cfg      Config
	Baseline bool // Phase 2 compares with the baseline device's run
	check    func(p2 *model.Phase2Result) string
}

// Check generates the case's run, runs phases on it and says what is
// wrong with the result; "" = pass.
func (c EventCase) Check(t *testing.T, phases EventPhasesFunc) string {
	r := Generate(c.Cfg)
	var b *model.MonitorData
	if c.Baseline {
		b = r.Monitor(Baseline)
	}
	return c.check(phases(t, r.Monitor(Anomalous), b))
}

// RunEventCases checks every case in a parallel subtest and returns how
// many failed.
func RunEventCases(t *testing.T, cases []EventCase, phases EventPhasesFunc) int {
	return RunCases(t, cases, func(c EventCase) string { return c.Name },
		func(t *testing.T, c EventCase) string { return c.Check(t, phases) })
}

// EventsTwoSpikesCases are the two-spike runs: ranks, window, kernel-spike
// size, order and distance of the two spikes, seeds. Always two events
// with their extents; on step-level data the root is the earlier spike,
// whichever kind it is. The weaker kernel spike is 4×: a 3× one shows as
// 2.7× its median, 8.5 spreads of the run's step-to-step noise, within
// what real gradient noise reaches.
func EventsTwoSpikesCases() []EventCase {
	var cs []EventCase
	for _, ranks := range []int{4, 8, 16} {
		for _, w := range []int{1, 4} {
			for _, ks := range []float64{4, 6} {
				for _, pos := range [][2]int{{3, 9}, {5, 6}, {1, 12}, {10, 4}} {
					c := DefaultConfig()
					c.Ranks, c.Window, c.OptSteps, c.NoFault, c.Seed = ranks, w, 16, true, uint64(ranks+w)
					c.Spikes = []Spike{{OptStep: pos[0], MicroStep: min(1, w-1), Ranks: []int{1}, Kernel: true, Layer: 2, Scale: ks},
						{OptStep: pos[1], Ranks: []int{ranks - 1}, All: true, Scale: 25}}
					cs = append(cs, EventCase{Name: fmt.Sprintf("ranks %d W %d kernel %.0f× at %d, data at %d", ranks, w, ks, pos[0], pos[1]), Cfg: c,
						check: func(p2 *model.Phase2Result) string {
							if len(p2.Events) != 2 {
								return fmt.Sprintf("%d events %s", len(p2.Events), jsonOf(p2.Events))
							}
							k, d := p2.Events[0], p2.Events[1]
							if pos[1] < pos[0] {
								k, d = d, k
							}
							if k.RootStep != pos[0] || k.Extent != "one-rank-few" || d.RootStep != pos[1] || d.Extent != "few-ranks-all" {
								return "events " + jsonOf(p2.Events)
							}
							co := p2.RootCauseCoordinate
							if w == 1 && (co == nil || intOr(co.OptimizerStep) != min(pos[0], pos[1]) || !p2.Events[0].Root) {
								return fmt.Sprintf("root %s, want the earlier spike", jsonOf(co))
							}
							return ""
						}})
				}
			}
		}
	}
	return cs
}

// EventsFP16Cases are fp16 runs with a baseline: overflow period, which
// gradients overflow (one to three, on every rank or two of them), window,
// ranks, and a kernel or data spike before, between, right after or on an
// overflow step. The root is the spike; every overflow step not holding
// the spike is a shared event. Without the spike the root is the first
// overflow, every event shared.
func EventsFP16Cases() []EventCase {
	var cs []EventCase
	names := [][]string{{"output_layer.weight"}, {"layers.0.mlp.linear_fc1.weight", "layers.3.mlp.linear_fc2.weight", "output_layer.weight"}}
	n := 0
	for _, ranks := range []int{4, 16} {
		for _, w := range []int{1, 4} {
			for _, period := range []int{3, 5} {
				for ni, nm := range names {
					for _, sp := range []int{-1, 0, 7, 8} {
						n++
						c := DefaultConfig()
						c.Ranks, c.Window, c.OptSteps, c.NoFault, c.Seed = ranks, w, 16, true, uint64(ranks*100+w*10+period+ni)
						var ovs []int
						for k := 2; k < 16; k += period {
							s := Spike{OptStep: k, MicroStep: min(1, w-1), Overflow: true, Shared: true, Names: nm}
							if n%2 == 0 {
								s.Ranks = []int{0, 2}
							}
							c.Spikes = append(c.Spikes, s)
							ovs = append(ovs, k)
						}
						if sp >= 0 {
							spike := Spike{OptStep: sp, MicroStep: min(2, w-1), Ranks: []int{ranks - 1}, Kernel: true, Layer: 1, Scale: 5}
							if n%3 == 0 {
								spike.Kernel, spike.All, spike.Scale = false, true, 20
							}
							c.Spikes = append(c.Spikes, spike)
						}
						cs = append(cs, EventCase{Name: fmt.Sprintf("ranks %d W %d period %d names %d spike %d", ranks, w, period, ni, sp), Cfg: c, Baseline: true,
							check: func(p2 *model.Phase2Result) string {
								co := p2.RootCauseCoordinate
								shared := 0
								for _, e := range p2.Events {
									if e.Baseline == "shared" {
										shared++
									}
								}
								switch {
								case sp < 0:
									if co == nil || intOr(co.OptimizerStep) != 2 || shared != len(ovs) || len(p2.Events) != len(ovs) || !p2.Events[0].Root {
										return fmt.Sprintf("root %s, events %s", jsonOf(co), jsonOf(p2.Events))
									}
								case co == nil || intOr(co.OptimizerStep) != sp || co.Rank != ranks-1:
									return fmt.Sprintf("root %s, want the spike", jsonOf(co))
								case !slices.Contains(ovs, sp) && shared != len(ovs):
									return fmt.Sprintf("%d shared events, want %d: %s", shared, len(ovs), jsonOf(p2.Events))
								}
								return ""
							}})
					}
				}
			}
		}
	}
	return cs
}

// jsonOf is v in JSON, for failure messages.
func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// intOr is *p, or -99 for a missing number (never a valid step).
func intOr(p *int) int {
	if p == nil {
		return -99
	}
	return *p
}
