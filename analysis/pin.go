package analysis

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"spikescope/model"
)

// PinError is a pin that matches no data.
type PinError struct{ Msg string }

func (e *PinError) Error() string { return e.Msg }

// applyPin checks the pin against what Phase 1 saw (ranks, steps, optimizer
// steps, micro steps, parameter names: exact or unique suffix) and makes it
// the coordinate. Free fields come from the earliest candidate that agrees
// with the pin. Returns the coordinate, the cross-device verification (nil:
// none made) and what the rule said; or the pin's error.
func applyPin(p1, baseline *model.Phase1Result, pin *model.Coord, kind string) (co *model.Coordinate, verify model.Reason, s said, err error) {
	fail := func(f string, a ...any) error {
		return &PinError{Msg: "pin " + pin.String() + ": " + fmt.Sprintf(f, a...)}
	}
	if pin.Param != "" {
		names := p1.Targets
		if len(names) == 0 {
			names = knownNames(p1)
		}
		name, err := resolveStageParam(p1, names, pin)
		if err != nil {
			return nil, nil, s, fail("%v", err)
		}
		pin.Param = name
	}
	if pin.Rank != nil && len(p1.Summary.Ranks) > 0 && !slices.Contains(p1.Summary.Ranks, *pin.Rank) {
		return nil, nil, s, fail("rank %d is not in the data (ranks %s)", *pin.Rank, intsString(p1.Summary.Ranks, 8))
	}
	if pin.Step != nil && len(p1.Summary.Steps) > 0 && !slices.Contains(p1.Summary.Steps, *pin.Step) {
		return nil, nil, s, fail("step %d is not in the data (steps %d..%d)", *pin.Step, p1.Summary.Steps[0], p1.Summary.Steps[len(p1.Summary.Steps)-1])
	}
	if pin.OptStep != nil {
		lo, hi, ok := optRange(p1)
		if ok && (*pin.OptStep < lo || *pin.OptStep > hi) {
			return nil, nil, s, fail("optimizer step %d is not in the data (%d..%d)", *pin.OptStep, lo, hi)
		}
	}
	if pin.MicroStep != nil {
		if kind != kindMicro && !p1.Sharding.HasMicroStep { // a single-step dump's calls are micro steps too
			return nil, nil, s, fail("micro step given, but the data has no micro steps (%s data)", kind)
		}
		if r := p1.Sharding.MicroStepRange; len(r) > 0 && !slices.Contains(r, *pin.MicroStep) {
			return nil, nil, s, fail("micro step %d is not in the data (%d..%d)", *pin.MicroStep, r[0], r[len(r)-1])
		}
	}
	// the earliest candidate that agrees with the pin supplies free fields
	var match *model.Anomaly
	for i := range p1.Anomalies {
		a := &p1.Anomalies[i]
		if pinAgrees(pin, a) && (pin.Param == "" || a.TargetName == pin.Param) {
			match = a
			break
		}
	}
	if match != nil {
		co = coordOf(match)
		// step-level data has no micro step to name
		s.decide(model.P2PinAgrees{Rank: match.Rank, Target: match.TargetName, Step: match.Step, OptStep: match.OptStep(), Micro: microOf(match)})
	} else {
		if pin.OptStep == nil && pin.Step == nil {
			return nil, nil, s, fail("no Phase 1 candidate agrees with it; give opt= or step= to place it")
		}
		if pin.Rank == nil || pin.Param == "" {
			return nil, nil, s, fail("no Phase 1 candidate agrees with it; give rank= and param= as well")
		}
		co = &model.Coordinate{Rank: *pin.Rank, TargetName: pin.Param, Norm: model.Float(model.NaN()), DeviationRatio: model.Float(model.NaN())}
		k := 0
		if pin.OptStep != nil {
			k = *pin.OptStep
		} else {
			k = *pin.Step
		}
		if e, ok := p1.TargetRankNorms[strconv.Itoa(k)]; ok && e.TargetName == pin.Param {
			if v, ok := e.Ranks[strconv.Itoa(*pin.Rank)]; ok {
				co.Norm = v
			}
		}
		s.decide(model.P2PinAsGiven{})
	}
	if pin.OptStep != nil {
		co.OptimizerStep = model.IntPtr(*pin.OptStep)
	}
	if pin.MicroStep != nil && (co.MicroStep == nil || *co.MicroStep != *pin.MicroStep) {
		co.MicroStep, co.MicroIndex = model.IntPtr(*pin.MicroStep), nil // as typed, in the input's numbering
	}
	if pin.Rank != nil {
		co.Rank = *pin.Rank
	}
	if pin.Step != nil {
		co.Step = model.IntPtr(*pin.Step)
	}
	if pin.Param != "" {
		co.TargetName = pin.Param
	}
	if co.OptimizerStep == nil && co.Step != nil && kind != kindMicro {
		co.OptimizerStep = model.IntPtr(*co.Step)
	}
	s.reason(model.P2PinnedBrief{})
	s.decide(model.P2Pinned{Pin: pin.String()})
	if baseline != nil {
		verify = model.P2PinnedUnverified{}
	}
	return co, verify, s, nil
}

// pinAgrees: candidate a agrees with the pin's numbers (not its name).
func pinAgrees(pin *model.Coord, a *model.Anomaly) bool {
	return (pin.OptStep == nil || a.OptStep() == *pin.OptStep) && (pin.MicroStep == nil || a.Micro() == *pin.MicroStep) &&
		(pin.Rank == nil || a.Rank == *pin.Rank) && (pin.Step == nil || a.Step == *pin.Step) &&
		(pin.VPP == nil || a.VPPStage == *pin.VPP)
}

// resolveParam matches a parameter name exactly or by a unique suffix.
func resolveParam(names []string, want string) (string, error) {
	var hits []string
	for _, n := range names {
		if n == want {
			return n, nil
		}
		if strings.HasSuffix(n, want) {
			hits = append(hits, n)
		}
	}
	switch len(hits) {
	case 0:
		return "", fmt.Errorf("parameter %q matches no parameter of the data", want)
	case 1:
		return hits[0], nil
	}
	slices.Sort(hits)
	if len(hits) > 3 {
		hits = append(hits[:3], "…")
	}
	return "", fmt.Errorf("parameter %q is ambiguous: %s", want, strings.Join(hits, ", "))
}

func knownNames(p1 *model.Phase1Result) []string {
	seen := map[string]bool{}
	var out []string
	add := func(n string) {
		if n != "" && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	for i := range p1.Anomalies {
		add(p1.Anomalies[i].TargetName)
	}
	for _, e := range p1.TargetRankNorms {
		add(e.TargetName)
	}
	return out
}

// optRange is the optimizer-step range Phase 1 saw.
func optRange(p1 *model.Phase1Result) (lo, hi int, ok bool) {
	if r := p1.OptimizerStepRange; len(r) == 2 {
		return r[0], r[1], true
	}
	if !p1.Sharding.HasMicroStep && len(p1.Summary.Steps) > 0 {
		return p1.Summary.Steps[0], p1.Summary.Steps[len(p1.Summary.Steps)-1], true
	}
	return 0, 0, false
}
