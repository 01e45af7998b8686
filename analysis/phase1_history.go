package analysis

import (
	"fmt"
	"strings"

	"spikescope/model"
)

// minHistory is the least number of comparable values (the judged one
// included) in a series — a parameter's pool over ranks and steps at step
// level, a (parameter, micro step) pool of increments — for Phase 1 to call
// any of them a spike. Below it a value that passes the thresholds is
// reported as "too little history" (Phase1Result.TooLittleHistory), never a
// candidate, so Phase 2 and 3 never take it as the root. Non-finite values
// are candidates whatever the history (nonFiniteCandidates).
//
// Why 12: the thresholds (median + 10·MAD·1.4826, q3 + 5·IQR) mean "many
// spreads above the median" only when the spread is known. The MAD of m
// values from normal noise falls below half the true spread with
// probability 47% at m = 3, 33% at m = 4, 14% at m = 8, 10% at m = 10 and
// 7% at m = 11 (simulated, 20 000 draws each); when it does, the 10-spread
// threshold drops under 5 true spreads and the 1.5× effect floor alone
// decides. Real gradient norms vary by about 15–23% per batch (robust
// spread of log(norm) on noise-only TrainerMon runs), so 1.5× is only ~2–3
// spreads: a floor that noise reaches. With m = 11 baseline values (n = 12)
// the spread is known within a factor of 2 at ≥ 93%, and on simulated
// log-normal noise of that spread a series of 12 gets a false flag in about
// 1% of series (4 values: 10%).
const minHistory = 12

// beyondShortHistory: in a series too short to know its spread, a value is
// still a candidate when it is ≥ zeroSpreadMult × its baseline median — the
// reference's own rule when the spread is unknown (a zero IQR or MAD). Real
// per-batch noise (a spread of ~0.2 in log(norm)) would need > 10 spreads
// to get there.
func beyondShortHistory(v, median float64) bool {
	return median > 0 && v >= zeroSpreadMult*median
}

// historyScratch counts the series of one Phase 1 run that were too short.
type historyScratch struct {
	series, short  int // series judged, of which too short
	minN, maxN     int // sample counts of the short series
	shortUnflagged int // would-be candidates reported instead
}

// tooShort reports whether a pool of n comparable values is below
// minHistory, and counts it.
func (h *historyScratch) tooShort(n int) bool {
	h.series++
	if n >= minHistory {
		return false
	}
	if h.short == 0 || n < h.minN {
		h.minN = n
	}
	if h.short == 0 || n > h.maxN {
		h.maxN = n
	}
	h.short++
	return true
}

// shortHistory reports a would-be candidate of a series of n values.
func (c *p1) shortHistory(a model.Anomaly, n int) {
	c.hist.shortUnflagged++
	c.res.TooLittleHistory = append(c.res.TooLittleHistory, model.ShortHistory{Anomaly: a, Samples: n, MinSamples: minHistory})
}

// historyNotes adds the reasoning and the warning about short series.
func (c *p1) historyNotes(unit string) {
	h := &c.hist
	c.res.Thresholds["min_history"] = minHistory
	if h.short == 0 {
		return
	}
	earliestFirstShort(c.res.TooLittleHistory)
	count := fmt.Sprintf("%d", h.minN)
	if h.maxN != h.minN {
		count = fmt.Sprintf("%d–%d", h.minN, h.maxN)
	}
	c.res.Reasoning = append(c.res.Reasoning, fmt.Sprintf(
		"too little history: %d of %d %s have %s values to compare, fewer than the %d a spike test needs (below that the spread of the baseline is not known within a factor of 2): not judged, %d value(s) that passed the thresholds reported under too_little_history instead of as candidates",
		h.short, h.series, unit, count, minHistory, h.shortUnflagged))
	w := fmt.Sprintf("too little history to call a spike: %d of %d %s have only %s values to compare (at least %d needed)", h.short, h.series, unit, count, minHistory)
	if n := len(c.res.TooLittleHistory); n > 0 {
		var parts []string
		for i := range c.res.TooLittleHistory {
			if i == 3 {
				parts = append(parts, fmt.Sprintf("%d more", n-3))
				break
			}
			s := &c.res.TooLittleHistory[i]
			parts = append(parts, fmt.Sprintf("%s step %d rank %d (%.3g× its median)", s.TargetName, s.Step, s.Rank, float64(s.DeviationRatio)))
		}
		w += "; not flagged: " + strings.Join(parts, ", ")
	}
	c.res.Warnings = append(c.res.Warnings, w)
}
