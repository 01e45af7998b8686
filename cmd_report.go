package main

import (
	"flag"
	"io"
	"strconv"

	"spikescope/cliflags"
	"spikescope/outfile"
	"spikescope/pipeline"
)

const reportUsage = `usage:
  spikescope report [PATH] [--baseline PATH] [--dump-a A --dump-b B --dump-c C --dump-d D]
                    [--step N --rank R] [--pin COORD] [--format auto|trenddb|csv|dump]
                    [--layer-mapping FILE] [--mem-limit SIZE] [--lang en|zh] [--as md|html] [-o FILE]
  spikescope report --phase1 P1.json [--baseline-phase1 P1B.json] [--phase2 P2.json] [--phase3 P3.json]
                    [--lang en|zh] [--as md|html] [-o FILE]

Runs the phases on the inputs (no PATH: the embedded demo run) and writes the
Markdown report (-o FILE.html or --as html: one self-contained HTML page
with plots), or renders saved detect/select/trace JSON. --lang defaults to
the LANG environment variable (zh_* → zh, else en).
`

// reportFlags are the parsed flags of `spikescope report`.
type reportFlags struct {
	inputFlags
	lang                        cliflags.Lang
	out, as                     string
	phase1, phase1B, phase2, p3 string
}

// runReport is `spikescope report`.
func runReport(args []string, stdout, stderr io.Writer) int {
	var f reportFlags
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f.register(fs)
	f.lang.Register(fs, "from LANG, zh_* → zh, else en")
	fs.StringVar(&f.out, "o", "", "write the report to FILE instead of stdout (FILE.html: the HTML report)")
	fs.StringVar(&f.as, "as", "", "report format: md or html (default: html for -o *.html, else md)")
	fs.StringVar(&f.phase1, "phase1", "", "render from a saved Phase 1 JSON (detect)")
	fs.StringVar(&f.phase1B, "baseline-phase1", "", "the baseline's Phase 1 JSON")
	fs.StringVar(&f.phase2, "phase2", "", "saved Phase 2 JSON (select)")
	fs.StringVar(&f.p3, "phase3", "", "saved Phase 3 JSON (trace)")
	paths, code, ok := parseArgs(fs, args, reportUsage, stdout, stderr)
	if !ok {
		return code
	}
	lang, err := f.lang.Value("report")
	if err != nil {
		return exitCode(err, stderr)
	}
	if err := outfile.RefuseInput(f.out, append(append(paths, f.paths()...), f.phase1, f.phase1B, f.phase2, f.p3)...); err != nil {
		return exitCode(err, stderr)
	}
	s, cleanup, err := f.session(paths, stderr)
	if cleanup != nil {
		defer cleanup()
	}
	if err != nil {
		return exitCode(err, stderr)
	}
	render := pipeline.ReportRenderer(f.as, f.out)
	if render == nil {
		return exitCode(cliflags.CmdError("report", "--as must be md or html (got "+strconv.Quote(f.as)+")"), stderr)
	}
	md := render(s, lang)
	if f.out == "" {
		_, err = io.WriteString(stdout, md)
		return exitCode(err, stderr)
	}
	return exitCode(outfile.Write(f.out, "report", []byte(md)), stderr)
}

// session builds the analysis session from the flags: saved JSON, the
// given paths, or the embedded demo run (cleanup then removes its copy).
func (f *reportFlags) session(paths []string, stderr io.Writer) (*pipeline.Session, func(), error) {
	if f.phase1 != "" || f.phase2 != "" || f.p3 != "" {
		if len(paths) > 0 {
			return nil, nil, cliflags.CmdError("report", "give either PATH or --phase1/--phase2/--phase3, not both")
		}
		s, err := pipeline.FromResultFiles(f.phase1, f.phase1B, f.phase2, f.p3)
		return s, nil, err
	}
	in, _, cleanup, err := f.inputs("report", paths)
	if err != nil {
		return nil, cleanup, err
	}
	s, err := pipeline.LoadWithin(noticeCtx(stderr), in)
	return s, cleanup, err
}
