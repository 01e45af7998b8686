package ingest

import (
	"fmt"
	"sort"

	"spikescope/model"
)

// badCellExamples is how many cells a data-problem warning names.
const badCellExamples = 3

// badCellLog counts the cells of one statistic column of trend_data that
// are not numbers (text that does not parse, a blob) and keeps the first
// few, in row order, for the warning. Such a cell is a data problem, never
// a measurement: a norm cell drops its row, another statistic reads as NaN.
type badCellLog struct {
	n     int64
	first [badCellExamples]badCellAt
	kept  int
}

// badCellAt is where a bad cell is.
type badCellAt struct {
	row        int
	rank, step int32
	tid        int64
}

func (b *badCellLog) add(row int, rank, step int32, tid int64) {
	b.n++
	at := badCellAt{row, rank, step, tid}
	if b.kept < badCellExamples {
		b.first[b.kept] = at
		b.kept++
		return
	}
	// chunks are scanned in row order, but keep the earliest anyway
	last := &b.first[badCellExamples-1]
	if row < last.row {
		*last = at
		b.sort()
	}
}

func (b *badCellLog) sort() {
	s := b.first[:b.kept]
	sort.Slice(s, func(i, j int) bool { return s[i].row < s[j].row })
}

// merge adds o's counts and examples to b.
func (b *badCellLog) merge(o *badCellLog) {
	n := b.n + o.n
	for _, at := range o.first[:o.kept] {
		b.add(at.row, at.rank, at.step, at.tid)
	}
	b.n = n
	b.sort()
}

// warning words the data problem: "3 cells in trend_data.norm are not
// numbers: rank 2 step 1 (layers.0.mlp.weight), …; their rows were left out".
func (b *badCellLog) warning(st model.Stat, name func(int64) string) model.TrendBadCells {
	r := model.TrendBadCells{Cells: b.n, Stat: st.String(), More: b.n > int64(b.kept)}
	for _, at := range b.first[:b.kept] {
		r.At = append(r.At, model.CellAt{Rank: int64(at.rank), Step: int64(at.step), Target: name(at.tid)})
	}
	return r
}

// targetName names a target_id for a message.
func (s *trendScanner) targetName(tid int64) string {
	if idx, ok := s.r.targetOf[tid]; ok && int(idx) < len(s.r.d.Targets) {
		return s.r.d.Targets[idx].Name
	}
	return fmt.Sprintf("target_id %d", tid)
}
