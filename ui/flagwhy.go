package ui

import (
	"strings"

	"spikescope/model"
)

// bandLookup returns the band a direction ("fwd"/"bwd") of the metric shown
// was judged against; ok is false when there is none to show.
// unusable is true when a band exists that is not used for flags (its
// control ratios scatter, or there are none).
type bandLookup func(dir string) (lo, hi model.Float, ok, unusable bool)

// flagWhy is the line under a four-group table that says what decided the
// selected row's marks on the metric shown: for each direction, its anomaly
// degree against the band, or why it was not judged. "" without a row.
// "Norm · fwd 2.013 above the band 0.971–1.030: F! · bwd 0.998 within 0.962–1.040".
func flagWhy(metric string, row *model.MetricRow, band bandLookup, dirs ...string) string {
	if row == nil {
		return ""
	}
	if len(dirs) == 0 {
		dirs = []string{"fwd", "bwd"}
	}
	var parts []string
	for _, d := range []struct {
		dir, mark string
		deg       *model.Float
		flag, nf  bool
	}{
		{"fwd", "F!", row.FAnomaly, row.FFlag, row.FNonFinite},
		{"bwd", "B!", row.BAnomaly, row.BFlag, row.BNonFinite},
	} {
		if !strings.Contains(strings.Join(dirs, " "), d.dir) {
			continue
		}
		parts = append(parts, d.dir+" "+flagWhyOne(d.deg, d.flag, d.nf, d.mark, d.dir, band))
	}
	return metric + " · " + strings.Join(parts, " · ")
}

func flagWhyOne(deg *model.Float, flag, nonFinite bool, mark, dir string, band bandLookup) string {
	if nonFinite {
		return "NaN/Inf in A where the baseline is finite: " + mark + "∞"
	}
	if deg == nil || !model.Finite(float64(*deg)) {
		return "not compared"
	}
	v := fmtRatio(deg)
	lo, hi, ok, unusable := model.Float(0), model.Float(0), false, false
	if band != nil {
		lo, hi, ok, unusable = band(dir)
	}
	switch {
	case !ok && flag:
		return v + ": " + mark
	case !ok && unusable:
		return v + " (this metric's control ratios cannot set a band: not used for flags)"
	case !ok:
		return v
	}
	rng := fmtRatio(&lo) + "–" + fmtRatio(&hi)
	switch {
	case flag && *deg > hi:
		return v + " above the band " + rng + ": " + mark
	case flag && *deg < lo:
		return v + " below the band " + rng + ": " + mark
	case flag:
		return v + ": " + mark
	}
	return v + " within " + rng
}

// bandOf looks a direction's band up in a metric → direction map; only a
// usable band explains a flag.
func bandOf(th map[string]map[string]model.Band, metric string) bandLookup {
	return func(dir string) (model.Float, model.Float, bool, bool) {
		b, ok := th[metric][dir]
		if !ok || !b.Usable {
			return 0, 0, false, ok
		}
		return b.Lower, b.Upper, true, false
	}
}

// boundsOf looks an operator's band up in its own bounds (the drill-down's,
// which without a control group are not the layer table's).
func boundsOf(op *model.DrillOp, metric string, dirOfOp string) bandLookup {
	return func(dir string) (model.Float, model.Float, bool, bool) {
		if op == nil || dir != dirOfOp {
			return 0, 0, false, false
		}
		b, ok := op.Bounds[metric]
		if !ok {
			return 0, 0, false, op.Bounds != nil
		}
		return b[0], b[1], true, false
	}
}
