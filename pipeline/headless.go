package pipeline

import (
	"context"

	"spikescope/analysis"
	"spikescope/ingest"
	"spikescope/memlimit"
	"spikescope/model"
	"spikescope/words"
)

// DetectSummaryCap is how many anomalies a summary Detect keeps (reference:
// 50); summary.anomaly_count stays the full count.
const DetectSummaryCap = 50

// Detect is the headless Phase 1 of `spikescope detect`: it loads the
// monitor at path and runs Phase 1 with opt. opt.Metric may be a name or a
// reference id, 1 (grad_unreduced) or 2 (grad_reduced); a metric not found
// is a warning. summary keeps the first DetectSummaryCap anomalies. Its
// texts are said in lang (--lang; Default: English).
func Detect(ctx context.Context, path string, f model.Format, opt analysis.Phase1Options, summary bool, mem memlimit.Budget, lang Lang) (*model.Phase1Result, error) {
	switch opt.Metric {
	case "1":
		opt.Metric = "grad_unreduced"
	case "2":
		opt.Metric = "grad_reduced"
	}
	plan, err := checkMonitorMemory(ctx, path, f, mem, true)
	if err != nil {
		return nil, err
	}
	notify(ctx, plan.notice)
	memWarning := plan.warning
	d, err := readMonitorPlanned(ctx, plan, path, f, nil)
	if err != nil {
		return nil, err
	}
	if memWarning != nil {
		d.WarningsReasons = append([]model.Reason{memWarning}, d.WarningsReasons...)
	}
	words.Monitor(d, lang)
	restore := roomForAnalysis(d.Rows.Len())
	res := analysis.Phase1(d, opt)
	restore()
	res.DBPath = path
	if opt.Metric != "" && res.Metric != opt.Metric {
		res.WarningsReasons = append(res.WarningsReasons, model.MetricNotFound{Asked: opt.Metric, Analysed: res.Metric})
	}
	words.Phase1(res, lang)
	if summary && len(res.Anomalies) > DetectSummaryCap {
		res.Anomalies = res.Anomalies[:DetectSummaryCap]
	}
	return res, nil
}

// Select is the headless Phase 2 of `spikescope select`: it reads the saved
// Phase 1 (and the baseline's, when baseline is not "") and runs Phase 2,
// its texts in lang (--lang; Default keeps the drop-in JSON's languages). A pin that matches nothing is an *analysis.PinError.
func Select(phase1, baseline string, pin *model.Coord, opt analysis.Phase2Options, lang Lang) (*model.Phase2Result, error) {
	p1, err := ingest.ReadPhase1(phase1)
	if err != nil {
		return nil, err
	}
	var bp1 *model.Phase1Result
	if baseline != "" {
		if bp1, err = ingest.ReadPhase1(baseline); err != nil {
			return nil, err
		}
	}
	res, err := phase2(p1, bp1, pin, opt, lang)
	if err != nil {
		return nil, err
	}
	// what the monitor data can tell
	res.Verdict = analysis.Verdict(analysis.VerdictInput{P1: p1, P1Baseline: bp1, P2: res})
	words.Verdict(res.Verdict, lang)
	return res, nil
}
