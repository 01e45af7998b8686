package analysis

import (
	"fmt"
	"math"
	"sort"

	"spikescope/model"
)

// Divergence start and direction verdict (seed Steps 3.4–3.6).

// metricOrder lists the metrics in output order; metricPrimary is the one
// the metric iteration starts from (the seed's example: Norm first).
var metricOrder = []model.Stat{model.StatMax, model.StatMin, model.StatMean, model.StatNorm}

const metricPrimary = model.StatNorm

// metricName is the dump.json spelling ("Norm").
func metricName(s model.Stat) string { return model.DumpStatNames[s] }

// earlier reports whether layer a comes before layer b in the propagation
// order of the direction: forward runs shallow → deep, backward deep →
// shallow.
func earlier(dir string, a, b int) bool {
	if dir == "bwd" {
		return a > b
	}
	return a < b
}

// divergenceStart is the seed's start of a divergence: the FIRST flagged
// layer in propagation order (forward: the shallowest, backward: the
// deepest). The reference takes the start of the longest run instead
// (bug 3; kept as mainSegment). nil when nothing is flagged.
func divergenceStart(flagged []int, dir string) *int {
	if len(flagged) == 0 {
		return nil
	}
	s := flagged[0]
	for _, l := range flagged[1:] {
		if earlier(dir, l, s) {
			s = l
		}
	}
	return &s
}

// mainSegment is the reference's "main divergence segment": the longest
// run of consecutive flagged layers (the shallowest of equally long runs).
// Its start (forward: first layer, backward: last layer) is what the
// reference reports as the metric start.
func mainSegment(flagged []int) []int {
	if len(flagged) == 0 {
		return nil
	}
	ls := append([]int(nil), flagged...)
	sort.Ints(ls)
	var best, cur []int
	for i, l := range ls {
		if i > 0 && l-ls[i-1] > 1 {
			cur = nil
		}
		cur = append(cur, l)
		if len(cur) > len(best) {
			best = append([]int(nil), cur...)
		}
	}
	return best
}

// iterateMetrics is Step 3.6: start from the primary metric's start (Norm,
// else the first metric that has one); whenever another metric starts
// earlier in propagation order, move there (several earlier: the one that
// starts earliest) and look again, until no metric starts earlier. Each move
// only goes earlier, so it terminates. It returns the converged start, the
// path taken ("Norm→L4", "Min→L2") and the disagreements: metrics whose
// start lies later than the converged one ("Max→L5").
func iterateMetrics(starts map[model.Stat]*int, dir string) (final *int, path, disagreements []string) {
	order := []model.Stat{metricPrimary, model.StatMax, model.StatMin, model.StatMean}
	var cur *int
	for _, m := range order {
		if s := starts[m]; s != nil {
			v := *s
			cur = &v
			path = append(path, fmt.Sprintf("%s→L%d", metricName(m), v))
			break
		}
	}
	if cur == nil {
		return nil, nil, nil
	}
	for {
		var next *int
		var nextM model.Stat
		for _, m := range order {
			s := starts[m]
			if s == nil || !earlier(dir, *s, *cur) {
				continue
			}
			if next == nil || earlier(dir, *s, *next) {
				v := *s
				next, nextM = &v, m
			}
		}
		if next == nil {
			break
		}
		cur = next
		path = append(path, fmt.Sprintf("%s→L%d", metricName(nextM), *next))
	}
	for _, m := range order {
		if s := starts[m]; s != nil && *s != *cur {
			disagreements = append(disagreements, fmt.Sprintf("%s→L%d", metricName(m), *s))
		}
	}
	return cur, path, disagreements
}

// Verdicts.
const (
	verdictDivergent    = "divergent"
	verdictConsistent   = "consistent"
	verdictUndetermined = "undetermined"
)

// directionVerdict judges one direction: "consistent" only when no layer is
// flagged AND every layer could be compared AND some band was usable;
// flagged layers make it "divergent"; otherwise "undetermined" (unaligned
// layers are not normal). The peak is the layer of the largest |log degree|
// among flagged layers (the biggest divergence, usually propagation).
func directionVerdict(dir string, flagged, unaligned []int, usable bool, start *int, peak *int, peakValue float64) model.DirectionVerdict {
	v := model.DirectionVerdict{Direction: dir, Flagged: nonNilInts(flagged), Unaligned: nonNilInts(unaligned), Start: start}
	switch {
	case len(flagged) > 0:
		v.Verdict = verdictDivergent
		v.Peak = peak
		if peak != nil {
			pv := model.Float(peakValue)
			v.PeakValue = &pv
		}
		if len(unaligned) > 0 {
			v.NoteReasons = addNote(v.NoteReasons, model.P3DirUncompared{Layers: unaligned})
		}
	case len(unaligned) > 0:
		v.Verdict = verdictUndetermined
		v.NoteReasons = addNote(v.NoteReasons, model.P3DirUndetermined{Layers: unaligned})
	case !usable:
		v.Verdict = verdictUndetermined
		v.NoteReasons = addNote(v.NoteReasons, model.P3DirNoBand{})
	default:
		v.Verdict = verdictConsistent
	}
	return v
}

// chooseP0 marks the direction to trace first: any forward divergence is
// the P0 (forward runs first and feeds the backward), even when the
// backward diverges more; only a backward divergence with a consistent
// forward means the backward produced it itself.
func chooseP0(fwd, bwd *model.DirectionVerdict) {
	switch {
	case fwd.Verdict == verdictDivergent:
		fwd.P0 = true
		if bwd.Verdict == verdictDivergent {
			bwd.Amplified = true
			bwd.NoteReasons = addNote(bwd.NoteReasons, model.P3DirAmplified{Layer: *fwd.Start})
		}
	case bwd.Verdict == verdictDivergent && fwd.Verdict == verdictConsistent:
		bwd.P0 = true
		bwd.NoteReasons = addNote(bwd.NoteReasons, model.P3DirBackwardItself{})
	case bwd.Verdict == verdictDivergent:
		bwd.P0 = true
		bwd.NoteReasons = addNote(bwd.NoteReasons, model.P3DirForwardUnsure{})
	}
}

// peakOf returns the layer and degree with the largest |log degree|.
func peakOf(degrees map[int]float64) (*int, float64) {
	var best *int
	bestV, bestAbs := math.NaN(), -1.0
	for l, d := range degrees {
		if !model.Finite(d) || d == 0 {
			continue
		}
		a := math.Abs(math.Log(math.Abs(d)))
		if a > bestAbs || (a == bestAbs && best != nil && l < *best) {
			v := l
			best, bestV, bestAbs = &v, d, a
		}
	}
	return best, bestV
}

// addNote returns rs with r added, never writing into rs's array (bands
// and verdicts are copied by value and share it).
func addNote(rs []model.Reason, r ...model.Reason) []model.Reason {
	return append(rs[:len(rs):len(rs)], r...)
}

func nonNilInts(x []int) []int {
	if x == nil {
		return []int{}
	}
	return x
}
