package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"spikescope/analysis"
	"spikescope/ingest"
	"spikescope/model"
	"spikescope/pipeline"
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

// InspectReport is what `spikescope inspect --json` prints.
type InspectReport struct {
	Path     string                `json:"path"`
	Format   model.Format          `json:"format"`
	ReadMode string                `json:"read_mode,omitempty"` // how a trend.db was opened
	Monitor  *ingest.MonitorReport `json:"monitor,omitempty"`
	Dump     *ingest.DumpReport    `json:"dump,omitempty"`
	// Alignment: with --against, how many records align.
	Alignment *pipeline.AlignReport `json:"alignment,omitempty"`
	Warnings  []string              `json:"warnings"`
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
		if rep.Alignment, err = pipeline.AlignDumpTrees(context.Background(), paths[0], *against, *mapping); err != nil {
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
		rep.Dump = ingest.SummariseDumps(t, analysis.InferPipeline)
		rep.Warnings = append(rep.Warnings, t.Warnings...) // repeats the dumps' own
		return rep, nil
	}
	d, err := ingest.LoadMonitor(ctx, path, f, nil)
	if err != nil {
		return nil, err
	}
	rep.Monitor = ingest.SummariseMonitor(d, analysis.InferPipeline)
	rep.ReadMode = d.ReadMode
	rep.Warnings = append(rep.Warnings, d.Warnings...)
	rep.Warnings = append(rep.Warnings, ingest.StepCoverage(d)...)
	return rep, nil
}

func rangeText(r *ingest.IntRange, unit string) string {
	if r == nil {
		return "none"
	}
	return fmt.Sprintf("%d..%d (%d distinct %s)", r.Min, r.Max, r.Count, unit)
}

// nonFiniteText prints the non-zero counts of a stat → counts map.
func nonFiniteText(m map[string]ingest.NonFinite) string {
	var parts []string
	for _, s := range model.StatNames {
		n, ok := m[s]
		if !ok || n.Total() == 0 {
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

func writeMonitorText(w io.Writer, m *ingest.MonitorReport, indent string) {
	fmt.Fprintf(w, "%srows:        %d\n", indent, m.Rows)
	fmt.Fprintf(w, "%sranks:       %d (%s)\n", indent, len(m.Ranks), ingest.CompactInts(m.Ranks))
	fmt.Fprintf(w, "%ssteps:       %s — %s\n", indent, rangeText(m.Steps, "steps"), m.StepMeaning)
	if m.ExplicitMicro {
		fmt.Fprintf(w, "%smicro steps: %s, window %d\n", indent, rangeText(m.MicroSteps, "micro steps"), m.Window)
	} else {
		fmt.Fprintf(w, "%smicro steps: not recorded\n", indent)
	}
	fmt.Fprintf(w, "%svpp stages:  %s\n", indent, ingest.CompactInts(m.VPPStages))
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
		fmt.Fprintf(w, "steps:       %s\n", ingest.CompactInts(d.Steps))
		fmt.Fprintf(w, "ranks:       %s\n", ingest.CompactInts(d.Ranks))
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

// inspectAlignReasons is how many reasons the text output lists.
const inspectAlignReasons = 5

// writeAlignText prints the alignment for people.
func writeAlignText(w io.Writer, r *pipeline.AlignReport) {
	fmt.Fprintf(w, "aligned:     %d of %d records of A (%s) have a comparable record in B (%s)\n", r.Aligned, r.Records, r.A, r.B)
	if r.Note != "" {
		fmt.Fprintf(w, "             %s\n", r.Note)
	}
	for i, rc := range r.Reasons {
		if i == inspectAlignReasons {
			fmt.Fprintf(w, "             … %d more reasons\n", len(r.Reasons)-i)
			break
		}
		fmt.Fprintf(w, "  %6d not aligned: %s\n", rc.Count, rc.Reason)
	}
}
