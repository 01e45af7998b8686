package pipeline

import (
	"context"
	"fmt"

	"spikescope/ingest"
	"spikescope/memlimit"
	"spikescope/model"
)

// monitorInput is one monitor input of the memory check.
type monitorInput struct {
	path   string
	format model.Format // detected
}

// checkMemory estimates the peak memory of reading the monitor inputs
// (dump trees are small and not estimated) before a row is read. Over the
// budget it is an *ingest.InputError naming the input, the estimate, the
// limit and what to do; within memlimit.Near of it, a warning for the run's
// warnings. A budget of 0 or an input whose rows cannot be estimated is
// never refused.
func checkMemory(ctx context.Context, b memlimit.Budget, inputs ...monitorInput) (warning string, err error) {
	if b.Bytes <= 0 {
		return "", nil
	}
	total := int64(memlimit.BaseBytes)
	var rows int64
	var named []monitorInput // the inputs estimated, PATH first
	seen := map[string]bool{}
	for _, in := range inputs {
		if in.path == "" || seen[in.path] { // a path given twice is read once
			continue
		}
		seen[in.path] = true
		n, ok := ingest.EstimateMonitorRows(ctx, in.path, in.format)
		if !ok {
			continue
		}
		peak, ok := memlimit.PeakBytes(in.format, n)
		if !ok {
			continue
		}
		total += peak
		rows += n
		named = append(named, in)
	}
	if len(named) == 0 {
		return "", nil
	}
	what := fmt.Sprintf("about %s monitor rows, which need about %s of memory at the peak", rowsText(rows), memlimit.Text(total))
	if total > b.Bytes {
		problem := what
		if len(named) > 1 {
			problem = "together with the baseline " + named[1].path + ", " + what
		}
		return "", &ingest.InputError{Path: named[0].path, Problem: fmt.Sprintf(
			"%s, more than %s: not read. Give --mem-limit a larger size if you know more memory is free, or point spikescope at a part of the run (%s)",
			problem, b.Describe(), subsetAdvice(named[0].format))}
	}
	if float64(total) > memlimit.Near*float64(b.Bytes) {
		subject := named[0].path + " holds"
		if len(named) > 1 {
			subject = named[0].path + " and its baseline " + named[1].path + " hold"
		}
		return fmt.Sprintf("%s %s, close to %s: the run may run out of memory", subject, what, b.Describe()), nil
	}
	return "", nil
}

// subsetAdvice says how to read less of an input of format f.
func subsetAdvice(f model.Format) string {
	if f == model.FormatCSV {
		return "one rank folder, or a folder holding the CSV files of a range of steps"
	}
	return "a trend.db converted from fewer ranks or steps of the monitor output"
}

// rowsText prints a row count for a sentence: "16.0 million", "850,000".
func rowsText(n int64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.1f billion", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.1f million", float64(n)/1e6)
	}
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// checkMonitorMemory is checkMemory of one monitor path of format f (auto:
// detected; a format the reader will refuse is not estimated).
func checkMonitorMemory(ctx context.Context, path string, f model.Format, b memlimit.Budget) (string, error) {
	if b.Bytes <= 0 {
		return "", nil
	}
	df, err := detect(path, f)
	if err != nil {
		return "", nil // the reader words it
	}
	return checkMemory(ctx, b, monitorInput{monitorPath(path, df), df})
}

// CheckMemory is Load's memory check of in on its own, for a face that
// wants a refusal before it starts (the TUI: one line on the terminal, not
// a load error screen); Load checks again and adds the warning. Inputs it
// cannot detect are left to Load to word.
func CheckMemory(ctx context.Context, in Inputs) error {
	if in.Mem.Bytes <= 0 {
		return nil
	}
	pf, err := detect(in.Path, in.Format)
	if err != nil {
		return nil
	}
	bf, err := detect(in.Baseline, "")
	if err != nil {
		return nil
	}
	_, err = checkMemory(ctx, in.Mem, monitorInput{monitorPath(in.Path, pf), pf}, monitorInput{monitorPath(in.Baseline, bf), bf})
	return err
}
