package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"spikescope/analysis"
	"spikescope/ingest"
	"spikescope/model"
	"spikescope/pipeline"
	"spikescope/report"
)

const reportUsage = `usage:
  spikescope report [PATH] [--baseline PATH] [--dump-a A --dump-b B --dump-c C --dump-d D]
                    [--step N --rank R] [--pin COORD] [--format auto|trenddb|csv|dump]
                    [--layer-mapping FILE] [--lang en|zh] [--as md|html] [-o FILE]
  spikescope report --phase1 P1.json [--baseline-phase1 P1B.json] [--phase2 P2.json] [--phase3 P3.json]
                    [--lang en|zh] [--as md|html] [-o FILE]

Runs the phases on the inputs (no PATH: the embedded demo run) and writes the
Markdown report (-o FILE.html or --as html: one self-contained HTML page
with plots), or renders saved detect/select/trace JSON. --lang defaults to
the LANG environment variable (zh_* → zh, else en).
`

// reportFlags are the parsed flags of `spikescope report`.
type reportFlags struct {
	in                          pipeline.Inputs
	format                      string
	step, rank                  string
	lang, out, as               string
	phase1, phase1B, phase2, p3 string
}

// runReport is `spikescope report`.
func runReport(args []string, stdout, stderr io.Writer) int {
	var f reportFlags
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&f.in.Baseline, "baseline", "", "baseline device's monitor or dump path")
	fs.StringVar(&f.in.DumpA, "dump-a", "", "dump of the anomalous coordinate (A)")
	fs.StringVar(&f.in.DumpB, "dump-b", "", "A's baseline dump (B)")
	fs.StringVar(&f.in.DumpC, "dump-c", "", "nearby normal dump (C)")
	fs.StringVar(&f.in.DumpD, "dump-d", "", "C's baseline dump (D)")
	fs.StringVar(&f.step, "step", "", "step of A inside its dump tree")
	fs.StringVar(&f.rank, "rank", "", "rank of A inside its dump tree")
	fs.StringVar(&f.in.Pin, "pin", "", "pin the root-cause coordinate, e.g. opt=3,ms=2,rank=5,param=NAME")
	fs.StringVar(&f.in.LayerMapping, "layer-mapping", "", "msprobe layer-mapping YAML `FILE` for dumps of two frameworks")
	fs.StringVar(&f.format, "format", "auto", "format of PATH: auto, trenddb, csv or dump")
	fs.StringVar(&f.lang, "lang", "", "report language: en or zh (default from LANG)")
	fs.StringVar(&f.out, "o", "", "write the report to FILE instead of stdout (FILE.html: the HTML report)")
	fs.StringVar(&f.as, "as", "", "report format: md or html (default: html for -o *.html, else md)")
	fs.StringVar(&f.phase1, "phase1", "", "render from a saved Phase 1 JSON (detect)")
	fs.StringVar(&f.phase1B, "baseline-phase1", "", "the baseline's Phase 1 JSON")
	fs.StringVar(&f.phase2, "phase2", "", "saved Phase 2 JSON (select)")
	fs.StringVar(&f.p3, "phase3", "", "saved Phase 3 JSON (trace)")
	paths, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, reportUsage)
		return 0
	}
	if err != nil {
		return exitCode(usageError{"report: " + err.Error()}, stderr)
	}
	if err := refuseOutputOnInput(f.out, append(paths, f.in.Baseline, f.in.DumpA, f.in.DumpB, f.in.DumpC, f.in.DumpD, f.phase1, f.phase1B, f.phase2, f.p3)...); err != nil {
		return exitCode(err, stderr)
	}
	s, cleanup, err := f.session(paths)
	if cleanup != nil {
		defer cleanup()
	}
	if err != nil {
		return exitCode(err, stderr)
	}
	asHTML, err := f.html()
	if err != nil {
		return exitCode(err, stderr)
	}
	render := report.Render
	if asHTML {
		render = report.RenderHTML
	}
	md := render(s.ReportInput(), reportLang(f.lang))
	if f.out == "" {
		_, err = io.WriteString(stdout, md)
		return exitCode(err, stderr)
	}
	if err := writeOutputFile(f.out, "report", []byte(md)); err != nil {
		return exitCode(err, stderr)
	}
	return 0
}

// html reports whether to write HTML: --as, else the -o extension.
func (f *reportFlags) html() (bool, error) {
	switch f.as {
	case "html":
		return true, nil
	case "md":
		return false, nil
	case "":
		ext := strings.ToLower(filepath.Ext(f.out))
		return ext == ".html" || ext == ".htm", nil
	}
	return false, usageError{"report: --as must be md or html (got " + strconv.Quote(f.as) + ")"}
}

// rootCause is the last part of an os error ("permission denied").
func rootCause(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// session builds the analysis session from the flags: saved JSON, the
// given paths, or the embedded demo run (cleanup then removes its copy).
func (f *reportFlags) session(paths []string) (*pipeline.Session, func(), error) {
	if len(paths) > 1 {
		return nil, nil, usageError{"report: one PATH at most (got " + strconv.Itoa(len(paths)) + ")"}
	}
	if f.phase1 != "" || f.phase2 != "" || f.p3 != "" {
		if len(paths) > 0 {
			return nil, nil, usageError{"report: give either PATH or --phase1/--phase2/--phase3, not both"}
		}
		s, err := f.fromJSON()
		return s, nil, err
	}
	in := f.in
	var err error
	if in.StepA, err = optInt("--step", f.step); err != nil {
		return nil, nil, err
	}
	if in.RankA, err = optInt("--rank", f.rank); err != nil {
		return nil, nil, err
	}
	switch model.Format(f.format) {
	case model.FormatAuto, model.FormatTrendDB, model.FormatCSV, model.FormatDump:
		in.Format = model.Format(f.format)
	default:
		return nil, nil, usageError{"report: --format must be auto, trenddb, csv or dump (got " + strconv.Quote(f.format) + ")"}
	}
	var cleanup func()
	if len(paths) == 1 {
		in.Path = paths[0]
	} else if in.DumpA == "" {
		dir, clean, err := extractDemo()
		if err != nil {
			return nil, nil, err
		}
		cleanup = clean
		demo := demoInputs(dir)
		demo.Pin, demo.StepA, demo.RankA = in.Pin, in.StepA, in.RankA
		in = demo
	}
	in.P1 = analysis.DefaultPhase1Options()
	in.P2 = analysis.DefaultPhase2Options()
	in.P3 = analysis.DefaultPhase3Options()
	s, err := pipeline.Load(context.Background(), in, nil)
	return s, cleanup, err
}

// fromJSON reads saved results of detect/select/trace.
func (f *reportFlags) fromJSON() (*pipeline.Session, error) {
	var p1, p1b *model.Phase1Result
	var p2 *model.Phase2Result
	var p3 *model.Phase3Result
	for _, x := range []struct {
		path, what string
		dst        any
	}{
		{f.phase1, "Phase 1", &p1}, {f.phase1B, "Phase 1", &p1b}, {f.phase2, "Phase 2", &p2}, {f.p3, "Phase 3", &p3},
	} {
		if x.path == "" {
			continue
		}
		if err := readResultJSON(x.path, x.what+" JSON", x.dst); err != nil {
			return nil, err
		}
	}
	for _, x := range []struct {
		path string
		p1   *model.Phase1Result
	}{{f.phase1, p1}, {f.phase1B, p1b}} {
		if x.p1 != nil {
			if err := checkPhase1Coordinates(x.path, x.p1); err != nil {
				return nil, err
			}
		}
	}
	if p1 != nil && p1.Phase != 0 && p1.Phase != 1 {
		return nil, &ingest.InputError{Path: f.phase1, Problem: fmt.Sprintf("holds phase %d, not a Phase 1 result", p1.Phase)}
	}
	if p2 != nil && p2.Phase != 0 && p2.Phase != 2 {
		return nil, &ingest.InputError{Path: f.phase2, Problem: fmt.Sprintf("holds phase %d, not a Phase 2 result", p2.Phase)}
	}
	if p3 != nil && p3.Phase != 0 && p3.Phase != 3 {
		return nil, &ingest.InputError{Path: f.p3, Problem: fmt.Sprintf("holds phase %d, not a Phase 3 result", p3.Phase)}
	}
	return pipeline.FromResults(pipeline.Inputs{}, p1, p1b, p2, p3), nil
}

// optInt parses an optional integer flag ("" = not given).
func optInt(name, v string) (*int, error) {
	if v == "" {
		return nil, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > math.MaxInt32 {
		return nil, usageError{name + " needs an integer from 0 to 2147483647 (got " + strconv.Quote(v) + ")"}
	}
	return &n, nil
}

// reportLang is --lang, else the language of LANG (zh_* → zh), else en.
func reportLang(flagLang string) string {
	if flagLang != "" {
		if report.IsChinese(flagLang) {
			return "zh"
		}
		return "en"
	}
	for _, v := range []string{"LC_ALL", "LANG"} {
		if l := os.Getenv(v); l != "" {
			if report.IsChinese(l) {
				return "zh"
			}
			return "en"
		}
	}
	return "en"
}

// parseInterspersed parses flags that may come before or after positional
// arguments (`report PATH --lang zh` as well as `report --lang zh PATH`).
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// demoInputs maps the embedded demo run extracted at dir
// (testdata/demo/README.md) to session inputs: the anomalous device's
// trend.db, the baseline device's, and the dump trees of both.
func demoInputs(dir string) pipeline.Inputs {
	return pipeline.Inputs{
		Path:     filepath.Join(dir, "npu", "trend.db"),
		Baseline: filepath.Join(dir, "gpu", "trend.db"),
		DumpA:    filepath.Join(dir, "npu", "dump"),
		DumpB:    filepath.Join(dir, "gpu", "dump"),
		P1:       analysis.DefaultPhase1Options(),
		P2:       analysis.DefaultPhase2Options(),
		P3:       analysis.DefaultPhase3Options(),
	}
}
