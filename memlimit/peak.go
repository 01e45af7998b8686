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
	// TrendDBPeakBytesPerRow: trend.db detect above the base, 36.5–37.7
	// B/row at 4M and 34.4 at 16M rows ("Peak memory: min, max and mean
	// streamed", 2026-12-02, in docs/benchmarks.md), rounded up: Phase 1's
	// heap — the rows' 16 B/row, its noise-floor changes (12 B/row) and
	// the collector's room — now that the reader writes min, max and mean
	// to the spill file as it reads (ingest.statStream) and the load holds
	// 25 B/row. Below ingest.SpillStatsMinRows rows they stay in the heap
	// (≈ 45 B/row; at most 8 MB more, inside BaseBytes' margin).
	TrendDBPeakBytesPerRow = 40
	// CSVPeakBytesPerRow: v1 CSV tree detect above the base, 37.7–37.9
	// B/row at 4M rows (the same section), rounded up: as trend.db, the
	// merge streaming min, max and mean out (45–49 B/row before).
	CSVPeakBytesPerRow = 40
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
