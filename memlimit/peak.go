package memlimit

import "spikescope/model"

// Peak memory of a run per monitor row, from the peak RSS of `spikescope
// detect` on generated inputs (docs/benchmarks.md, "Scale" sections). A
// reader or model change that moves these figures must update them here.
const (
	// BaseBytes is the peak RSS of detect on a tiny input
	// (testdata/monitor/formats21.trend.db: 11.1–11.5 MB) plus what a large
	// input adds whatever its rows: the pages of spilled min, max and mean
	// that the kernel maps in around the candidates' rows (64 KB a fault:
	// 6.2–6.5 MB at 2M and 16M rows, "min/max/mean off the heap" in
	// docs/benchmarks.md), rounded up.
	BaseBytes = 24 << 20
	// TrendDBPeakBytesPerRow: trend.db detect above the base, 23.5–23.6
	// B/row at 4M and 21.0 at 16M rows ("Peak memory to ≤ 24 B/row",
	// 2026-12-02, in docs/benchmarks.md; 22.1–22.4 at 4M since, "The sort
	// parks the step column"), rounded up: Phase 1's end — its heap held
	// near the rows (12 B/row: step and norm) and its scratch, with the
	// spill file's pages it reads — above the load's 16 B/row (a series
	// key, step and norm; no micro-step column without micro steps; the
	// sort's scratch is the parked step's array). Below
	// ingest.SpillStatsMinRows rows min, max and mean stay in the heap
	// (≈ 32 B/row at the load; at most 6 MB more, inside BaseBytes'
	// margin).
	TrendDBPeakBytesPerRow = 26
	// CSVPeakBytesPerRow: v1 CSV tree detect above the base, 22.4–22.5
	// B/row at 4M rows (docs/benchmarks.md, "The sort parks the step
	// column"), rounded up: the merge's end (its columns with their 5%
	// growth room and the parse's garbage) and Phase 1's end on the rows
	// (step, micro step, norm and that room), the two within 1 MB of each
	// other; the sort, with the step parked instead of a scratch column,
	// stays below both.
	CSVPeakBytesPerRow = 25
)

// Near is the share of the budget above which a run that fits is still
// warned about: the estimate's error is of this order.
const Near = 0.8

// PeakBytes is the expected peak memory of reading rows monitor rows of
// format f and analysing them; false when the format has no figure (a dump
// tree: small, not estimated).
func PeakBytes(f model.Format, rows int64) (int64, bool) {
	switch f {
	case model.FormatTrendDB:
		return rows * TrendDBPeakBytesPerRow, true
	case model.FormatCSV:
		return rows * CSVPeakBytesPerRow, true
	}
	return 0, false
}
