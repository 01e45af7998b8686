package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"spikescope/analysis"
	"spikescope/ingest"
	"spikescope/model"
)

const inspectUsage = `usage: spikescope inspect PATH [--json] [--format auto|trenddb|csv|dump]
                         [--against DUMP [--layer-mapping FILE]]

Loads PATH (a trend.db, a monitor CSV file or folder tree, or a dump tree) and
says what was read: format, ranks, steps, micro steps, parameters, metrics,
row counts, non-finite values and warnings. With --against, PATH is a dump and
inspect also says how many of its records align with DUMP's (the baseline
device's dump, another framework's too: --layer-mapping is msprobe's
layer-mapping YAML, else a built-in name map is used). Flags may follow PATH.
`

// inspectExamples is how many parameter names inspect lists.
const inspectExamples = 5

// InspectReport is what `spikescope inspect --json` prints.
type InspectReport struct {
	Path     string         `json:"path"`
	Format   model.Format   `json:"format"`
	ReadMode string         `json:"read_mode,omitempty"` // how a trend.db was opened
	Monitor  *MonitorReport `json:"monitor,omitempty"`
	Dump     *DumpReport    `json:"dump,omitempty"`
	// Alignment: with --against, how many records align.
	Alignment *AlignReport `json:"alignment,omitempty"`
	Warnings  []string     `json:"warnings"`
}

// IntRange is a range of integers with the number of distinct values seen.
type IntRange struct {
	Min   int `json:"min"`
	Max   int `json:"max"`
	Count int `json:"count"`
}

// NonFinite counts non-finite values of one statistic.
type NonFinite struct {
	NaN    int `json:"nan"`
	PosInf int `json:"pos_inf"`
	NegInf int `json:"neg_inf"`
}

func (n NonFinite) total() int { return n.NaN + n.PosInf + n.NegInf }

// MetricReport summarises one monitor metric.
type MetricReport struct {
	Name      string               `json:"name"`
	Rows      int                  `json:"rows"`
	NonFinite map[string]NonFinite `json:"non_finite"` // by statistic, only those recorded
	// AllNaN lists statistics that are NaN in every row of the metric: not
	// recorded for it (another metric's files had them) or all NaN.
	AllNaN []string `json:"stats_all_nan,omitempty"`
}

// MonitorReport summarises monitor data.
type MonitorReport struct {
	Rows          int       `json:"rows"`
	Ranks         []int     `json:"ranks"`
	Steps         *IntRange `json:"steps,omitempty"`
	StepMeaning   string    `json:"step_meaning"`
	ExplicitMicro bool      `json:"explicit_micro"`
	MicroSteps    *IntRange `json:"micro_steps,omitempty"`
	Window        int       `json:"window,omitempty"` // micro steps per optimizer step, when explicit
	VPPStages     []int     `json:"vpp_stages"`
	// Pipeline is the pipeline stages read from the ranks' parameter sets
	// (as detect infers them); nil for one stage.
	Pipeline   *model.PipelineStages `json:"pipeline,omitempty"`
	Parameters int                   `json:"parameters"`
	Examples   []string              `json:"parameter_examples"`
	Stats      []string              `json:"stats"`
	Metrics    []*MetricReport       `json:"metrics"`
}

// DumpReport summarises a dump tree.
type DumpReport struct {
	Dumps      int                  `json:"dumps"`
	Steps      []int                `json:"steps"`
	Ranks      []int                `json:"ranks"`
	Task       string               `json:"task,omitempty"`
	Level      string               `json:"level,omitempty"`
	Framework  string               `json:"framework,omitempty"`
	Ops        int                  `json:"ops"`
	Forward    int                  `json:"forward"`
	Backward   int                  `json:"backward"`
	ParamGrads int                  `json:"parameters_grad"`
	Tensors    int                  `json:"tensors"`
	NonFinite  map[string]NonFinite `json:"non_finite"`
	Gradients  *MonitorReport       `json:"gradients,omitempty"` // parameters_grad seen as monitor rows
}

// runInspect implements `spikescope inspect`.
func runInspect(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("inspect", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	asJSON := fs.Bool("json", false, "print JSON")
	format := fs.String("format", "auto", "input format: auto, trenddb, csv or dump")
	against := fs.String("against", "", "a dump to align PATH's dump with")
	mapping := fs.String("layer-mapping", "", "msprobe layer-mapping YAML for --against")
	paths, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, inspectUsage)
		return 0
	}
	if err != nil {
		return exitCode(usageError{"inspect: " + err.Error()}, stderr)
	}
	if len(paths) != 1 {
		return exitCode(usageError{fmt.Sprintf("inspect: want exactly one PATH, got %d (see spikescope inspect -h)", len(paths))}, stderr)
	}
	f := model.Format(*format)
	if err := checkFormat("inspect", f, *format); err != nil {
		return exitCode(err, stderr)
	}
	if *mapping != "" && *against == "" {
		return exitCode(usageError{"inspect: --layer-mapping goes with --against"}, stderr)
	}
	rep, err := inspect(context.Background(), paths[0], f)
	if err != nil {
		return exitCode(err, stderr)
	}
	if *against != "" {
		if rep.Dump == nil {
			return exitCode(usageError{fmt.Sprintf("inspect: --against needs a dump as PATH, %s is %s", paths[0], rep.Format)}, stderr)
		}
		if rep.Alignment, err = inspectAgainst(context.Background(), paths[0], *against, *mapping); err != nil {
			return exitCode(err, stderr)
		}
	}
	if *asJSON {
		return exitCode(writeResultJSON(rep, "", stdout, stderr), stderr)
	}
	var text strings.Builder
	writeInspectText(&text, rep)
	_, err = io.WriteString(stdout, escapeLines(text.String()))
	return exitCode(err, stderr)
}

// inspect loads path and summarises it.
func inspect(ctx context.Context, path string, f model.Format) (*InspectReport, error) {
	if f == model.FormatAuto {
		var err error
		if f, err = ingest.DetectFormat(path); err != nil {
			return nil, err
		}
	}
	rep := &InspectReport{Path: path, Format: f, Warnings: []string{}}
	if f == model.FormatDump {
		t, err := ingest.LoadDumpTree(ctx, path, nil)
		if err != nil {
			return nil, err
		}
		rep.Dump = summariseDumps(t)
		rep.Warnings = append(rep.Warnings, t.Warnings...) // repeats the dumps' own
		return rep, nil
	}
	d, err := ingest.LoadMonitor(ctx, path, f, nil)
	if err != nil {
		return nil, err
	}
	rep.Monitor = summariseMonitor(d)
	rep.ReadMode = d.ReadMode
	rep.Warnings = append(rep.Warnings, d.Warnings...)
	rep.Warnings = append(rep.Warnings, stepCoverage(d)...)
	return rep, nil
}

// stepCoverage warns about ranks that lack steps the others have (a rank
// whose monitor files were lost or cut short): the analysis then judges
// those steps without that rank.
func stepCoverage(d *model.MonitorData) []string {
	perRank := map[int32]map[int32]struct{}{}
	all := map[int32]struct{}{}
	lastRank, lastStep := int32(math.MinInt32), int32(math.MinInt32)
	for i := range d.Rows.Rank {
		rk, st := d.Rows.Rank[i], d.Rows.Step[i]
		if rk == lastRank && st == lastStep {
			continue
		}
		lastRank, lastStep = rk, st
		m := perRank[rk]
		if m == nil {
			m = map[int32]struct{}{}
			perRank[rk] = m
		}
		m[st] = struct{}{}
		all[st] = struct{}{}
	}
	var ranks []int
	for rk, m := range perRank {
		if len(m) < len(all) {
			ranks = append(ranks, int(rk))
		}
	}
	sort.Ints(ranks)
	var out []string
	for i, rk := range ranks {
		if i == inspectExamples {
			out = append(out, fmt.Sprintf("… and %d more rank(s) missing steps", len(ranks)-i))
			break
		}
		var missing []int
		for st := range all {
			if _, ok := perRank[int32(rk)][st]; !ok {
				missing = append(missing, int(st))
			}
		}
		sort.Ints(missing)
		out = append(out, fmt.Sprintf("rank %d has %d of %d steps (missing %s)", rk, len(all)-len(missing), len(all), compactInts(missing)))
	}
	return out
}

// countNonFinite adds v to n when it is NaN or ±Inf.
func countNonFinite(n *NonFinite, v float64) {
	switch {
	case math.IsNaN(v):
		n.NaN++
	case math.IsInf(v, 1):
		n.PosInf++
	case math.IsInf(v, -1):
		n.NegInf++
	}
}

// intSet collects distinct integers.
type intSet map[int]struct{}

func (s intSet) add(v int) { s[v] = struct{}{} }

func (s intSet) sorted() []int {
	out := make([]int, 0, len(s))
	for v := range s {
		out = append(out, v)
	}
	sort.Ints(out)
	return out
}

func (s intSet) rangeOf() *IntRange {
	if len(s) == 0 {
		return nil
	}
	v := s.sorted()
	return &IntRange{Min: v[0], Max: v[len(v)-1], Count: len(v)}
}

// summariseMonitor counts what a MonitorData holds.
func summariseMonitor(d *model.MonitorData) *MonitorReport {
	r := &MonitorReport{Rows: d.Rows.Len(), ExplicitMicro: d.ExplicitMicro, Parameters: len(d.Targets)}
	ranks, steps, micros, vpps := intSet{}, intSet{}, intSet{}, intSet{}
	metrics := make([]*MetricReport, len(d.Metrics))
	for i, name := range d.Metrics {
		metrics[i] = &MetricReport{Name: name, NonFinite: map[string]NonFinite{}}
	}
	var nf = make([][model.NumStats]NonFinite, len(d.Metrics))
	lastRank, lastStep := int32(math.MinInt32), int32(math.MinInt32)
	for i := range d.Rows.Rank {
		if rk := d.Rows.Rank[i]; rk != lastRank {
			ranks.add(int(rk))
			lastRank = rk
		}
		if st := d.Rows.Step[i]; st != lastStep {
			steps.add(int(st))
			lastStep = st
		}
		if m := d.Rows.Micro[i]; m != model.NoMicro {
			micros.add(int(m) + d.MicroBase(int(d.Rows.Metric[i]))) // as the input numbers it
		}
		mi := d.Rows.Metric[i]
		if int(mi) < len(metrics) {
			metrics[mi].Rows++
			for s := model.Stat(0); s < model.NumStats; s++ {
				if d.HasStat[s] {
					countNonFinite(&nf[mi][s], d.Rows.Val[s][i])
				}
			}
		}
	}
	for _, t := range d.Targets {
		vpps.add(t.VPPStage)
	}
	for mi, m := range metrics {
		for s := model.Stat(0); s < model.NumStats; s++ {
			if !d.HasStat[s] {
				continue
			}
			if m.Rows > 0 && nf[mi][s].NaN == m.Rows {
				m.AllNaN = append(m.AllNaN, model.StatNames[s])
				continue
			}
			m.NonFinite[model.StatNames[s]] = nf[mi][s]
		}
	}
	r.Metrics = metrics
	r.Ranks = ranks.sorted()
	r.Steps = steps.rangeOf()
	r.VPPStages = vpps.sorted()
	r.Pipeline = analysis.InferPipeline(d)
	switch {
	case d.Format == model.FormatDump:
		r.StepMeaning = "training step (step folder)"
	case d.ExplicitMicro:
		r.StepMeaning = "optimizer step (micro steps recorded)"
		r.MicroSteps = micros.rangeOf()
		if r.MicroSteps != nil {
			r.Window = r.MicroSteps.Max - r.MicroSteps.Min + 1
		}
	case d.Format == model.FormatTrendDB:
		r.StepMeaning = "as stored: a global micro-step index unless each step is one optimizer step (the window is derived by detect)"
	default:
		r.StepMeaning = "optimizer step"
	}
	for s := model.Stat(0); s < model.NumStats; s++ {
		if d.HasStat[s] {
			r.Stats = append(r.Stats, model.StatNames[s])
		}
	}
	for i := 0; i < len(d.Targets) && i < inspectExamples; i++ {
		r.Examples = append(r.Examples, d.Targets[i].Name)
	}
	if r.Ranks == nil {
		r.Ranks = []int{}
	}
	return r
}

// summariseDumps counts what a dump tree holds.
func summariseDumps(t *model.DumpTree) *DumpReport {
	r := &DumpReport{Dumps: len(t.Dumps), NonFinite: map[string]NonFinite{}}
	steps, ranks := intSet{}, intSet{}
	var nf [model.NumStats]NonFinite
	count := func(ts []model.TensorStat) {
		for i := range ts {
			r.Tensors++
			for s := model.Stat(0); s < model.NumStats; s++ {
				if ts[i].Has[s] {
					countNonFinite(&nf[s], ts[i].Stat[s])
				}
			}
		}
	}
	for _, d := range t.Dumps {
		steps.add(d.Step)
		ranks.add(d.Rank)
		if r.Task == "" {
			r.Task, r.Level, r.Framework = d.Task, d.Level, d.Framework
		}
		r.Ops += len(d.Ops)
		for i := range d.Ops {
			op := &d.Ops[i]
			switch op.Direction {
			case model.Forward:
				r.Forward++
			case model.Backward:
				r.Backward++
			case model.ParamGrad:
				r.ParamGrads++
			}
			count(op.Inputs)
			count(op.Outputs)
			count(op.Params)
		}
	}
	for s := model.Stat(0); s < model.NumStats; s++ {
		r.NonFinite[model.StatNames[s]] = nf[s]
	}
	r.Steps = steps.sorted()
	r.Ranks = ranks.sorted()
	if g := ingest.GradientsFromDumps(t); g != nil && g.Rows.Len() > 0 {
		r.Gradients = summariseMonitor(g)
	}
	return r
}

// compactInts prints sorted integers with runs shortened: "0-7, 9".
func compactInts(v []int) string {
	var parts []string
	for i := 0; i < len(v); {
		j := i
		for j+1 < len(v) && v[j+1] == v[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", v[i], v[j]))
		} else {
			parts = append(parts, strconv.Itoa(v[i]))
		}
		i = j + 1
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

func rangeText(r *IntRange, unit string) string {
	if r == nil {
		return "none"
	}
	return fmt.Sprintf("%d..%d (%d distinct %s)", r.Min, r.Max, r.Count, unit)
}

// nonFiniteText prints the non-zero counts of a stat → counts map.
func nonFiniteText(m map[string]NonFinite) string {
	var parts []string
	for _, s := range model.StatNames {
		n, ok := m[s]
		if !ok || n.total() == 0 {
			continue
		}
		var kinds []string
		if n.NaN > 0 {
			kinds = append(kinds, fmt.Sprintf("NaN %d", n.NaN))
		}
		if n.PosInf > 0 {
			kinds = append(kinds, fmt.Sprintf("+Inf %d", n.PosInf))
		}
		if n.NegInf > 0 {
			kinds = append(kinds, fmt.Sprintf("-Inf %d", n.NegInf))
		}
		parts = append(parts, s+": "+strings.Join(kinds, ", "))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "; ")
}

func writeMonitorText(w io.Writer, m *MonitorReport, indent string) {
	fmt.Fprintf(w, "%srows:        %d\n", indent, m.Rows)
	fmt.Fprintf(w, "%sranks:       %d (%s)\n", indent, len(m.Ranks), compactInts(m.Ranks))
	fmt.Fprintf(w, "%ssteps:       %s — %s\n", indent, rangeText(m.Steps, "steps"), m.StepMeaning)
	if m.ExplicitMicro {
		fmt.Fprintf(w, "%smicro steps: %s, window %d\n", indent, rangeText(m.MicroSteps, "micro steps"), m.Window)
	} else {
		fmt.Fprintf(w, "%smicro steps: not recorded\n", indent)
	}
	fmt.Fprintf(w, "%svpp stages:  %s\n", indent, compactInts(m.VPPStages))
	if p := m.Pipeline; p != nil && p.Inferred {
		fmt.Fprintf(w, "%spipeline:    PP %d (%s); same-named parameters of different stages are analysed apart (pp1:…)\n", indent, p.Stages, strings.Join(p.StageSummary("stage", "ranks", "layers"), "; "))
	} else if p != nil {
		fmt.Fprintf(w, "%spipeline:    %s\n", indent, p.Note)
	}
	fmt.Fprintf(w, "%sparameters:  %d", indent, m.Parameters)
	if len(m.Examples) > 0 {
		fmt.Fprintf(w, " (e.g. %s)", strings.Join(m.Examples, ", "))
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%sstatistics:  %s\n", indent, strings.Join(m.Stats, ", "))
	fmt.Fprintf(w, "%smetrics:\n", indent)
	for _, mt := range m.Metrics {
		fmt.Fprintf(w, "%s  %-16s %8d rows   non-finite: %s", indent, mt.Name, mt.Rows, nonFiniteText(mt.NonFinite))
		if len(mt.AllNaN) > 0 {
			fmt.Fprintf(w, "   (all NaN or not recorded: %s)", strings.Join(mt.AllNaN, ", "))
		}
		fmt.Fprintln(w)
	}
}

// writeInspectText prints the report for people.
func writeInspectText(w io.Writer, rep *InspectReport) {
	fmt.Fprintf(w, "path:        %s\n", rep.Path)
	fmt.Fprintf(w, "format:      %s\n", rep.Format)
	if rep.ReadMode != "" {
		fmt.Fprintf(w, "opened:      %s\n", rep.ReadMode)
	}
	if m := rep.Monitor; m != nil {
		writeMonitorText(w, m, "")
	}
	if d := rep.Dump; d != nil {
		fmt.Fprintf(w, "dumps:       %d (task %s, level %s, framework %s)\n", d.Dumps, d.Task, d.Level, d.Framework)
		fmt.Fprintf(w, "steps:       %s\n", compactInts(d.Steps))
		fmt.Fprintf(w, "ranks:       %s\n", compactInts(d.Ranks))
		fmt.Fprintf(w, "ops:         %d (forward %d, backward %d, parameters_grad %d), %d tensors\n", d.Ops, d.Forward, d.Backward, d.ParamGrads, d.Tensors)
		fmt.Fprintf(w, "non-finite:  %s\n", nonFiniteText(d.NonFinite))
		if d.Gradients != nil {
			fmt.Fprintf(w, "parameter gradients as monitor rows:\n")
			writeMonitorText(w, d.Gradients, "  ")
		}
	}
	if rep.Alignment != nil {
		writeAlignText(w, rep.Alignment)
	}
	if len(rep.Warnings) == 0 {
		fmt.Fprintf(w, "warnings:    none\n")
		return
	}
	fmt.Fprintf(w, "warnings:\n")
	for _, x := range rep.Warnings {
		fmt.Fprintf(w, "  - %s\n", x)
	}
}

// escapeLines escapes control characters (an ESC in a file or parameter
// name) in each line of text, keeping the line breaks.
func escapeLines(text string) string {
	lines := strings.SplitAfter(text, "\n")
	for i, l := range lines {
		body := strings.TrimSuffix(l, "\n")
		if e, ok := ingest.EscapeControl(body); ok {
			lines[i] = e + l[len(body):]
		}
	}
	return strings.Join(lines, "")
}
