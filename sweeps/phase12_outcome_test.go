package sweeps

import (
	"encoding/json"
	"fmt"
	"strings"

	"spikescope/analysis"
	"spikescope/model"
	"spikescope/testdata/synth"
)

// swOutcome runs Phase 1 and 2 and checks the planted coordinate; it
// returns "" when the answer is right, else what was wrong.
func swOutcome(r *synth.SweepRun, a, b *model.MonitorData, numbered, dump bool) (string, *model.Phase1Result, *model.Phase2Result) {
	c := r.C
	p1 := analysis.Phase1(a, analysis.DefaultPhase1Options())
	var pb *model.Phase1Result
	if b != nil {
		pb = analysis.Phase1(b, analysis.DefaultPhase1Options())
	}
	// Phase 2 reads Phase 1 as JSON (spikescope select): round-trip it
	j1, err := viaJSON(p1)
	if err != nil {
		return "phase1 JSON: " + err.Error(), p1, nil
	}
	if pb != nil {
		if pb, err = viaJSON(pb); err != nil {
			return "baseline JSON: " + err.Error(), p1, nil
		}
	}
	p2, err := phase2Said(analysis.Phase2(j1, pb, nil, analysis.DefaultPhase2Options()))
	if err != nil {
		return "phase2 error: " + err.Error(), p1, p2
	}
	if c.Fault == nil {
		if len(p1.Anomalies) > 0 {
			x := p1.Anomalies[0]
			return fmt.Sprintf("expected no candidate, got %d; first opt %d ms %d rank %d %s dev %.3g",
				len(p1.Anomalies), x.OptStep(), x.Micro(), x.Rank, x.TargetName, float64(x.DeviationRatio)), p1, p2
		}
		if p2.RootCauseCoordinate != nil {
			return "no candidate but a coordinate", p1, p2
		}
		return "", p1, p2
	}
	f := c.Fault
	wantOpt := f.T // trend.db --micro_step true renumbers optimizer steps from 0
	if numbered {
		wantOpt = c.OptNum(f.T)
	}
	wantMs := f.Micro
	if c.W == 1 || dump {
		wantMs = -1
	}
	name := r.FaultName()
	// micro steps are reported as the input numbers them (monitor v2 from
	// 1, a dump's parameters_grad.N); the truth is the 0-based position
	oneBased := a.Format == model.FormatCSV && a.MicroBase(a.MetricIndex("grad_unreduced")) == 1
	match := func(opt, ms, pos, rank int, target string) string {
		var bad []string
		if opt != wantOpt {
			bad = append(bad, fmt.Sprintf("opt %d≠%d", opt, wantOpt))
		}
		if pos != wantMs && !(wantMs == -1 && pos <= 0) {
			bad = append(bad, fmt.Sprintf("ms position %d≠%d", pos, wantMs))
		}
		if oneBased && pos >= 0 && ms != pos+1 {
			bad = append(bad, fmt.Sprintf("ms %d: not the v2 file's number %d", ms, pos+1))
		}
		if !oneBased && a.DumpCallNumbers == nil && ms != pos {
			bad = append(bad, fmt.Sprintf("ms %d≠position %d", ms, pos))
		}
		if rank != f.Rank && rank != f.Rank2 && !f.AllRanks {
			bad = append(bad, fmt.Sprintf("rank %d≠%d", rank, f.Rank))
		}
		if !strings.Contains(target, strings.TrimSuffix(name, ".weight")) {
			bad = append(bad, fmt.Sprintf("param %s≠%s", target, name))
		}
		return strings.Join(bad, ", ")
	}
	var out []string
	co := p2.RootCauseCoordinate
	if co == nil {
		out = append(out, fmt.Sprintf("no coordinate (%d candidates)", len(p1.Anomalies)))
	} else if m := match(intOr(co.OptimizerStep), intOr(co.MicroStep), coordPos(co), co.Rank, co.TargetName); m != "" {
		out = append(out, "root: "+m)
	}
	if len(p1.Anomalies) > 0 {
		x := p1.Anomalies[0]
		if m := match(x.OptStep(), x.Micro(), x.MicroPos(), x.Rank, x.TargetName); m != "" {
			out = append(out, "first candidate: "+m)
		}
	}
	if c.Baseline == 2 && co != nil && !strings.Contains(p2.CrossDeviceVerification, "双端共有") {
		out = append(out, "baseline shares the fault but verdict is "+p2.CrossDeviceVerification)
	}
	if c.Baseline == 1 && co != nil && !strings.Contains(p2.CrossDeviceVerification, "NPU") {
		out = append(out, "healthy baseline but verdict is "+p2.CrossDeviceVerification)
	}
	return strings.Join(out, "; "), p1, p2
}

// coordPos is a coordinate's micro-step position (its number when unknown).
func coordPos(co *model.Coordinate) int {
	if co.MicroIndex != nil {
		return *co.MicroIndex
	}
	return intOr(co.MicroStep)
}

// viaJSON round-trips a result through JSON, as spikescope select reads a
// saved Phase 1.
func viaJSON[T any](v *T) (*T, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	out := new(T)
	return out, json.Unmarshal(b, out)
}

// intOr is *p, or -99 for a missing number (never a valid step).
func intOr(p *int) int {
	if p == nil {
		return -99
	}
	return *p
}
