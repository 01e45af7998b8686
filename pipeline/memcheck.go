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
	var biggest monitorInput
	var biggestPeak int64
	known := false
	for _, in := range inputs {
		if in.path == "" {
			continue
		}
		n, ok := ingest.EstimateMonitorRows(ctx, in.path, in.format)
		if !ok {
			continue
		}
		peak, ok := memlimit.PeakBytes(in.format, n)
		if !ok {
			continue
		}
		known = true
		total += peak
		rows += n
		if peak >= biggestPeak {
			biggest, biggestPeak = in, peak
		}
	}
	if !known {
		return "", nil
	}
	what := fmt.Sprintf("about %s monitor rows, which need about %s of memory", rowsText(rows), memlimit.Text(total))
	if len(inputs) > 1 && biggestPeak < total-memlimit.BaseBytes {
		what += " with the baseline"
	}
	if total > b.Bytes {
		return "", &ingest.InputError{Path: biggest.path, Problem: fmt.Sprintf(
			"%s at the peak, more than %s: not read. Give --mem-limit a larger size if you know more memory is free, or point spikescope at a part of the run (%s)",
			what, b.Describe(), subsetAdvice(biggest.format))}
	}
	if float64(total) > memlimit.Near*float64(b.Bytes) {
		return fmt.Sprintf("%s holds %s at the peak, close to %s: the run may run out of memory", biggest.path, what, b.Describe()), nil
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
