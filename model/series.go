package model

import (
	"math"
	"strconv"
)

// Format names an input format.
type Format string

const (
	FormatAuto    Format = "auto"
	FormatTrendDB Format = "trenddb"
	FormatCSV     Format = "csv"
	FormatDump    Format = "dump"
)

// Known reports whether f is one of the formats above.
func (f Format) Known() bool {
	return f == FormatAuto || f == FormatTrendDB || f == FormatCSV || f == FormatDump
}

// Stat indexes the four statistics that msprobe records for every tensor.
type Stat int

const (
	StatNorm Stat = iota
	StatMin
	StatMax
	StatMean
	NumStats
)

// StatNames are the lower-case names used by the monitor (trend.db columns,
// CSV headers), indexed by Stat.
var StatNames = [NumStats]string{"norm", "min", "max", "mean"}

// DumpStatNames are the capitalised names used in dump.json, indexed by Stat.
var DumpStatNames = [NumStats]string{"Norm", "Min", "Max", "Mean"}

func (s Stat) String() string { return StatNames[s] }

// Target is one monitored parameter (or activation) of one pipeline chunk.
type Target struct {
	Name     string
	VPPStage int
	// MicroStep is monitoring_targets.micro_step: 0 unless the trend.db was
	// built with --micro_step false, where it is part of target identity.
	MicroStep int
}

// NoMicro marks a row whose micro step was not recorded.
const NoMicro int32 = -1

// Rows holds monitor rows column by column: one entry per (rank, step,
// target, metric), 37 bytes a row — 28 once in series order (SortSeries),
// when rank, target and metric move into the series table, and 16 in the
// heap once a large load moved min, max and mean to a spill file (Mapped).
// The norm, which every rule computes with, is float64 exactly as read:
// float32 would move the micro-step increments sqrt(N_k² − N_{k−1}²) of
// nearly equal cumulative norms, and with them borderline verdicts. Min,
// max and mean are only reported (and counted when non-finite): float32
// holds them to the precision of the fp32/bf16/fp16 tensors they
// describe, NaN and ±Inf exactly. Values are NaN where the source had
// NULL/nan; ±Inf where it had inf or the trend.db clamp ±(1e9+1) (a
// min/max/mean beyond float32's ±3.4e38, which no such tensor holds
// finitely, reads as ±Inf).
type Rows struct {
	// Rank, Target and Metric are per-row while rows are appended; nil
	// once Table holds them (read them with RankOf, TargetOf, MetricOf or
	// Runs, which serve both).
	Rank []int32
	Step []int32 // the source's step column (trend.db: often a global micro-step index)
	// micro is the explicit micro step of each row, or NoMicro; nil while
	// every row is NoMicro (a trend.db without micro steps, a CSV tree
	// without a micro_step column: 4 bytes a row not held). Read it with
	// MicroOf or Micros; a row with a micro step makes the column.
	micro  []int32
	Target []int32 // index into MonitorData.Targets
	Metric []uint8 // index into MonitorData.Metrics
	Norm   []float64
	// Stats holds min, max and mean by Stat; Stats[StatNorm] stays nil.
	Stats [NumStats][]float32
	// Lacks marks a statistic the input has in no row (a trend.db built
	// with ops ["norm"]): it is not stored (12 bytes a row for all three)
	// and reads as NaN. Append stores it again once a row has a number.
	Lacks [NumStats]bool
	// Table is the series table of rows in series order (SortSeries), nil
	// while rows carry their own rank, target and metric.
	Table []Series
	// key is each row's series key while a reader loads keyed rows
	// (KeyBy, series_keyed.go): then Rank, Target and Metric are nil.
	key   []int32
	space *KeySpace
	// Mapped says the columns are views of a spill file's mapping (package
	// spill), not heap: min, max and mean once ingest moved them out of the
	// heap, every column for rows loaded out of core. Whoever maps sets it
	// (and Counted, so that a summary does not read mapped columns back),
	// and a later step that would spill leaves such rows as they are. The
	// columns read and write as plain slices (a write changes memory only;
	// an append copies the column to the heap, and Mapped stays set).
	Mapped bool
	// Counted is the non-finite counts of min, max and mean, taken over
	// every row (CountStats) before the columns left memory, so that a
	// summary need not read them back; every method that changes rows drops
	// it (NonFiniteStats checks the row count as well).
	Counted *StatCounts
}

// Len is the number of rows.
func (r *Rows) Len() int { return len(r.Step) }

// Value is statistic s of row i as float64: what the rules compute with.
func (r *Rows) Value(s Stat, i int) float64 {
	if s == StatNorm {
		return r.Norm[i]
	}
	if r.Lacks[s] {
		return math.NaN()
	}
	return float64(r.Stats[s][i])
}

// Decimal is Value with min, max and mean as the shortest decimal that
// reads back as the stored float32 (-0.02713, not -0.027130000665783882):
// what outputs show. It formats the number: for the few values a user
// reads.
func (r *Rows) Decimal(s Stat, i int) float64 {
	if s == StatNorm {
		return r.Norm[i]
	}
	if r.Lacks[s] {
		return math.NaN()
	}
	return Widen32(r.Stats[s][i])
}

// SetValue stores statistic s of row i (NaN for a statistic it lacks is
// already what it reads).
func (r *Rows) SetValue(s Stat, i int, v float64) {
	r.uncount()
	switch {
	case s == StatNorm:
		r.Norm[i] = v
	case r.Lacks[s] && math.IsNaN(v):
	default:
		r.store(s)
		r.Stats[s][i] = float32(v)
	}
}

// store makes a lacking statistic stored again (NaN in every row so far).
func (r *Rows) store(s Stat) {
	if !r.Lacks[s] {
		return
	}
	r.Stats[s], r.Lacks[s] = nanColumn(len(r.Norm), cap(r.Norm)), false
}

// uncount drops the kept counts (Counted). It writes only when there are
// some: readers fill disjoint rows of one Rows from several goroutines
// (Place, SetValue), which must not race on the field.
func (r *Rows) uncount() {
	if r.Counted != nil {
		r.Counted = nil
	}
}

// Lack drops statistic s from storage: every row reads NaN.
func (r *Rows) Lack(s Stat) {
	if !r.Counted.allNaN(s) { // else every row counts NaN as before
		r.uncount()
	}
	if s != StatNorm {
		r.Stats[s], r.Lacks[s] = nil, true
	}
}

// Widen32 is f as the float64 of its shortest decimal form; NaN and ±Inf
// stay as they are.
func Widen32(f float32) float64 {
	v := float64(f)
	if v != v || v > math.MaxFloat32 || v < -math.MaxFloat32 {
		return v
	}
	var buf [32]byte
	w, err := strconv.ParseFloat(string(strconv.AppendFloat(buf[:0], v, 'g', -1, 32)), 64)
	if err != nil {
		return v
	}
	return w
}

func grow[T any](s []T, n int) []T {
	if cap(s)-len(s) >= n {
		return s
	}
	t := make([]T, len(s), len(s)+n)
	copy(t, s)
	return t
}

// Grow reserves room for n more rows.
func (r *Rows) Grow(n int) {
	r.uncount()
	r.expand()
	if r.space != nil {
		r.key = grow(r.key, n)
	} else {
		r.Rank, r.Target, r.Metric = grow(r.Rank, n), grow(r.Target, n), grow(r.Metric, n)
	}
	r.Step = grow(r.Step, n)
	if r.micro != nil {
		r.micro = grow(r.micro, n)
	}
	r.Norm = grow(r.Norm, n)
	for s := StatMin; s < NumStats; s++ {
		if !r.Lacks[s] {
			r.Stats[s] = grow(r.Stats[s], n)
		}
	}
}

// Resize makes the rows exactly n long (new rows zero, their micro step
// NoMicro unless the column is held), reusing the
// columns' room: a reader that knows its row count fills them in place.
func (r *Rows) Resize(n int) {
	r.Grow(n - r.Len())
	r.Truncate(n)
}

// Append adds one row; vals is indexed by Stat.
func (r *Rows) Append(rank, step, micro, target int32, metric uint8, vals [NumStats]float64) {
	r.uncount()
	r.expand()
	r.Unkey()
	r.Rank = append(r.Rank, rank)
	r.appendMicro(micro)
	r.Step = append(r.Step, step)
	r.Target = append(r.Target, target)
	r.Metric = append(r.Metric, metric)
	for s := StatMin; s < NumStats; s++ {
		if r.Lacks[s] {
			if math.IsNaN(vals[s]) {
				continue
			}
			r.store(s) // the first number of a statistic the rows lacked
		}
		r.Stats[s] = append(r.Stats[s], float32(vals[s]))
	}
	r.Norm = append(r.Norm, vals[StatNorm]) // after: store counts the rows by Norm
}

func nanColumn(n, c int) []float32 {
	col := make([]float32, n, max(n, c))
	nan := float32(math.NaN())
	for i := range col {
		col[i] = nan
	}
	return col
}

// AppendRows appends all of src, its targets and metrics renumbered by
// tmap and mmap (nil: unchanged).
// Rows keyed by found series (KeyBySeries) append keys; other keyed rows
// get their per-row columns back first.
func (r *Rows) AppendRows(src *Rows, tmap []int32, mmap []uint8) {
	r.uncount()
	r.expand()
	if r.space == nil || r.space.index == nil {
		r.Unkey()
	}
	if src.Table != nil || src.space != nil {
		c := *src
		c.expand()
		c.Unkey()
		src = &c
	}
	r.appendMicros(src)
	r.Step = append(r.Step, src.Step...)
	if r.space != nil {
		r.appendKeys(src, tmap, mmap)
	} else {
		r.Rank = append(r.Rank, src.Rank...)
		if tmap == nil {
			r.Target = append(r.Target, src.Target...)
		} else {
			for _, t := range src.Target {
				r.Target = append(r.Target, tmap[t])
			}
		}
		if mmap == nil {
			r.Metric = append(r.Metric, src.Metric...)
		} else {
			for _, m := range src.Metric {
				r.Metric = append(r.Metric, mmap[m])
			}
		}
	}
	n := len(r.Norm)
	r.Norm = append(r.Norm, src.Norm...)
	for s := StatMin; s < NumStats; s++ {
		switch {
		case r.Lacks[s] && src.Lacks[s]:
		case src.Lacks[s]:
			for range src.Len() {
				r.Stats[s] = append(r.Stats[s], float32(math.NaN()))
			}
		default:
			if r.Lacks[s] {
				r.Stats[s], r.Lacks[s] = nanColumn(n, len(r.Norm)), false
			}
			r.Stats[s] = append(r.Stats[s], src.Stats[s]...)
		}
	}
}

// Place copies all rows of src over rows off… (src stores the same
// statistics; keyed rows take src's series keys, src must fit: Fits).
func (r *Rows) Place(off int, src *Rows) {
	r.uncount()
	r.expand()
	if src.Table != nil || src.space != nil {
		c := *src
		c.expand()
		c.Unkey()
		src = &c
	}
	if r.space != nil {
		r.placeKeys(off, src)
	} else {
		copy(r.Rank[off:], src.Rank)
		copy(r.Target[off:], src.Target)
		copy(r.Metric[off:], src.Metric)
	}
	copy(r.Step[off:], src.Step)
	r.placeMicros(off, src)
	copy(r.Norm[off:], src.Norm)
	for s := StatMin; s < NumStats; s++ {
		if !r.Lacks[s] {
			copy(r.Stats[s][off:], src.Stats[s])
		}
	}
}

// Move copies row src over row dst (compaction).
func (r *Rows) Move(dst, src int) {
	r.uncount()
	r.expand()
	if r.space != nil {
		r.key[dst] = r.key[src]
	} else {
		r.Rank[dst], r.Target[dst], r.Metric[dst] = r.Rank[src], r.Target[src], r.Metric[src]
	}
	r.Step[dst] = r.Step[src]
	if r.micro != nil {
		r.micro[dst] = r.micro[src]
	}
	r.Norm[dst] = r.Norm[src]
	for s := StatMin; s < NumStats; s++ {
		if !r.Lacks[s] {
			r.Stats[s][dst] = r.Stats[s][src]
		}
	}
}

// Truncate keeps the first n rows.
func (r *Rows) Truncate(n int) {
	r.uncount()
	r.expand()
	if r.space != nil {
		r.key = r.key[:n]
	} else {
		r.Rank, r.Target, r.Metric = r.Rank[:n], r.Target[:n], r.Metric[:n]
	}
	r.Step = r.Step[:n]
	if r.micro != nil {
		r.micro = r.micro[:n]
	}
	r.Norm = r.Norm[:n]
	for s := StatMin; s < NumStats; s++ {
		if !r.Lacks[s] {
			r.Stats[s] = r.Stats[s][:n]
		}
	}
}

// MonitorData is everything read from one monitor source (trend.db or CSV
// tree), or the parameter gradients of a dump tree seen as monitor rows.
type MonitorData struct {
	Path    string
	Format  Format
	Targets []Target
	Metrics []string // metric names, e.g. "grad_unreduced", "grad_reduced"
	// HasStat says which statistics the source had at all (a trend.db built
	// with ops ["norm"] has no min/max/mean).
	HasStat [NumStats]bool
	// ExplicitMicro is true when the source recorded micro steps itself (CSV
	// micro_step column); then Step is the optimizer step.
	ExplicitMicro bool
	// MicroOneBased names the metrics whose input numbers micro steps from
	// 1 (monitor v2 weight_grad: 1..W). Rows.MicroOf is always the 0-based
	// position of the micro-batch in its optimizer step; the numbers the
	// input wrote are what coordinates report (MicroBase).
	MicroOneBased map[string]bool
	// DumpCallNumbers: a dump tree whose parameters_grad calls are micro
	// steps — per (rank, step), the N of parameters_grad.N of each call in
	// call order (Rows.MicroOf is the position in this list). nil when the
	// keys carry no counter or the counters differ between modules.
	DumpCallNumbers map[RankStep][]int
	Rows            Rows
	// Stages is set once the targets were split by pipeline stage
	// (names "pp<s>:<name>"): the stages Phase 1 inferred.
	Stages *StageLayout
	// Warnings are problems that did not stop the load (skipped files,
	// missing columns, ...): the output repeats them. The readers (ingest)
	// write WarningsReasons; package words says them into Warnings
	// (the pipeline, right after the load).
	Warnings        []string
	WarningsReasons []Reason
	// ReadMode says how a trend.db was opened (ingest.ReadModeReadOnly or
	// ReadModeImmutable, with why); "" for other formats.
	ReadMode string
}

// RankStep identifies one dump (one rank at one step).
type RankStep struct{ Rank, Step int32 }

// MicroBase is the number the input gives the first micro step of an
// optimizer step in the rows of metric (an index into Metrics): 1 for
// monitor v2 weight gradients, else 0.
func (m *MonitorData) MicroBase(metric int) int {
	if metric >= 0 && metric < len(m.Metrics) && m.MicroOneBased[m.Metrics[metric]] {
		return 1
	}
	return 0
}

// MetricIndex returns the index of the named metric, or -1.
func (m *MonitorData) MetricIndex(name string) int {
	for i, n := range m.Metrics {
		if n == name {
			return i
		}
	}
	return -1
}

// Progress reports how far a load is: Done of Total units (bytes or rows).
// Total is 0 when unknown.
type Progress struct {
	Input string // which input (path)
	Done  int64
	Total int64
	Unit  string // "bytes" or "rows"
	// Stage names work after the read ("" while reading): an input read
	// through temporary files reports its sort into series order as a
	// stage of its own, in rows.
	Stage string
}

// StageSorting is the stage of an input larger than the memory budget
// whose rows, read, are put into series order through temporary files.
const StageSorting = "sorting"

// StageCounting is the stage before a large database's rows are read:
// they are counted first (Total unknown, Done the rows counted so far).
const StageCounting = "counting"

// ProgressFunc receives progress reports; it must be cheap and safe to call
// from any goroutine.
type ProgressFunc func(Progress)
