package analysis

import (
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

// unflag reports a would-be candidate of a series of n values: it is
// appended to short, never a candidate.
func (h *historyScratch) unflag(short []model.ShortHistory, a model.Anomaly, n int) []model.ShortHistory {
	h.shortUnflagged++
	return append(short, model.ShortHistory{Anomaly: a, Samples: n, MinSamples: minHistory})
}

// historyNotes says the reasoning and the warning about short series
// (pools: (parameter, micro step) pools, else parameters); it orders the
// would-be candidates s.short earliest first.
func historyNotes(h *historyScratch, pools bool, s *p1said) {
	s.threshold("min_history", minHistory)
	if h.short == 0 {
		return
	}
	earliestFirstShort(s.short)
	s.reason(model.HistoryTooShort{Short: h.short, Series: h.series, Pools: pools,
		MinN: h.minN, MaxN: h.maxN, Need: minHistory, Unflagged: h.shortUnflagged})
	w := model.HistoryTooShortWarning{Short: h.short, Series: h.series, Pools: pools, MinN: h.minN, MaxN: h.maxN, Need: minHistory}
	for i := range s.short {
		if i == 3 {
			w.More = len(s.short) - 3
			break
		}
		sh := &s.short[i]
		w.Examples = append(w.Examples, model.HistoryExample{Target: sh.TargetName, Step: sh.Step, Rank: sh.Rank, Ratio: float64(sh.DeviationRatio)})
	}
	s.warnings = append(s.warnings, w)
}
