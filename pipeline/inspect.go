package pipeline

// The inspect subcommand's report: what was loaded, summarised by ingest,
// with the run's pipeline stages from analysis (hence here, the one package
// that joins the two), and its text form.

import (
	"context"
	"fmt"
	"io"
	"strings"

	"spikescope/analysis"
	"spikescope/ingest"
	"spikescope/memlimit"
	"spikescope/model"
	"spikescope/words"
)

// InspectReport is what `spikescope inspect --json` prints.
type InspectReport struct {
	Path     string                `json:"path"`
	Format   model.Format          `json:"format"`
	ReadMode string                `json:"read_mode,omitempty"` // how a trend.db was opened
	Monitor  *ingest.MonitorReport `json:"monitor,omitempty"`
	Dump     *ingest.DumpReport    `json:"dump,omitempty"`
	// Alignment: with --against, how many records align.
	Alignment *AlignReport `json:"alignment,omitempty"`
	Warnings  []string     `json:"warnings"`

	lang Lang // the texts' language (--lang), the alignment's too
}

// Inspect loads path and summarises it (the inspect subcommand); a monitor
// input over mem is refused before it is read (see Inputs.Mem).
func Inspect(ctx context.Context, path string, f model.Format, mem memlimit.Budget, lang Lang) (*InspectReport, error) {
	if f == model.FormatAuto {
		var err error
		if f, err = ingest.DetectFormat(path); err != nil {
			return nil, err
		}
	}
	rep := &InspectReport{Path: path, Format: f, Warnings: []string{}, lang: lang}
	if f == model.FormatDump {
		t, err := ingest.LoadDumpTree(ctx, path, nil)
		if err != nil {
			return nil, err
		}
		rep.Dump = ingest.SummariseDumps(t, inferStagesIn(lang))
		words.DumpTree(t, lang)
		rep.Warnings = append(rep.Warnings, t.Warnings...) // repeats the dumps' own
		return rep, nil
	}
	plan, err := checkMemory(ctx, mem, true, monitorInput{path, f})
	if err != nil {
		return nil, err
	}
	notify(ctx, plan.notice)
	if plan.warning != nil {
		rep.Warnings = append(rep.Warnings, words.Say(plan.warning, lang))
	}
	d, err := readMonitorPlanned(ctx, plan, path, f, nil)
	if err != nil {
		return nil, err
	}
	rep.Monitor = ingest.SummariseMonitor(d, inferStagesIn(lang))
	rep.ReadMode = d.ReadMode
	words.Monitor(d, lang)
	rep.Warnings = append(rep.Warnings, d.Warnings...)
	rep.Warnings = append(rep.Warnings, words.All(ingest.StepCoverage(d), lang)...)
	return rep, nil
}

// inferStagesIn is analysis.InferStages with its method and note said in
// lang.
func inferStagesIn(lang Lang) func(d *model.MonitorData) *model.StageLayout {
	return func(d *model.MonitorData) *model.StageLayout {
		p := analysis.InferStages(d)
		words.Stages(p, lang)
		return p
	}
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
	if p := m.Stages; p != nil && p.Inferred {
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
func WriteInspectText(w io.Writer, rep *InspectReport) {
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

// EscapeLines escapes control characters (an ESC in a file or parameter
// name) in each line of text, keeping the line breaks.
func EscapeLines(text string) string {
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
func writeAlignText(w io.Writer, r *AlignReport) {
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

// InspectText is WriteInspectText's text with control characters escaped
// line by line (see EscapeLines).
func InspectText(rep *InspectReport) string {
	var b strings.Builder
	WriteInspectText(&b, rep)
	return EscapeLines(b.String())
}
