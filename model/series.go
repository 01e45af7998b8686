package model

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
// target, metric). Columnar storage keeps a 10M-row run near 50 bytes a row.
// Values are NaN where the source had NULL/nan; ±Inf where it had inf or the
// trend.db clamp ±(1e9+1).
type Rows struct {
	Rank   []int32
	Step   []int32 // the source's step column (trend.db: often a global micro-step index)
	Micro  []int32 // explicit micro step, or NoMicro
	Target []int32 // index into MonitorData.Targets
	Metric []uint8 // index into MonitorData.Metrics
	Val    [NumStats][]float64
}

// Len is the number of rows.
func (r *Rows) Len() int { return len(r.Rank) }

// Grow reserves room for n more rows.
func (r *Rows) Grow(n int) {
	grow32 := func(s []int32) []int32 {
		if cap(s)-len(s) >= n {
			return s
		}
		t := make([]int32, len(s), len(s)+n)
		copy(t, s)
		return t
	}
	r.Rank, r.Step, r.Micro, r.Target = grow32(r.Rank), grow32(r.Step), grow32(r.Micro), grow32(r.Target)
	if cap(r.Metric)-len(r.Metric) < n {
		t := make([]uint8, len(r.Metric), len(r.Metric)+n)
		copy(t, r.Metric)
		r.Metric = t
	}
	for i := range r.Val {
		if cap(r.Val[i])-len(r.Val[i]) < n {
			t := make([]float64, len(r.Val[i]), len(r.Val[i])+n)
			copy(t, r.Val[i])
			r.Val[i] = t
		}
	}
}

// Append adds one row; vals is indexed by Stat.
func (r *Rows) Append(rank, step, micro, target int32, metric uint8, vals [NumStats]float64) {
	r.Rank = append(r.Rank, rank)
	r.Step = append(r.Step, step)
	r.Micro = append(r.Micro, micro)
	r.Target = append(r.Target, target)
	r.Metric = append(r.Metric, metric)
	for i := range r.Val {
		r.Val[i] = append(r.Val[i], vals[i])
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
	// 1 (monitor v2 weight_grad: 1..W). Rows.Micro is always the 0-based
	// position of the micro-batch in its optimizer step; the numbers the
	// input wrote are what coordinates report (MicroBase).
	MicroOneBased map[string]bool
	// DumpCallNumbers: a dump tree whose parameters_grad calls are micro
	// steps — per (rank, step), the N of parameters_grad.N of each call in
	// call order (Rows.Micro is the position in this list). nil when the
	// keys carry no counter or the counters differ between modules.
	DumpCallNumbers map[RankStep][]int
	Rows            Rows
	// Pipeline is set once the targets were split by pipeline stage
	// (names "pp<s>:<name>"): the stages Phase 1 inferred.
	Pipeline *PipelineStages
	// Warnings are problems that did not stop the load (skipped files,
	// missing columns, ...): the output repeats them.
	Warnings []string
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
}

// ProgressFunc receives progress reports; it must be cheap and safe to call
// from any goroutine.
type ProgressFunc func(Progress)
