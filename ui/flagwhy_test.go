package ui

import (
	"strings"
	"testing"

	"spikescope/model"
)

// The line under a four-group table gives the numbers that decided a row's
// marks: the degree and the band it left or stayed within, per direction.
func TestFlagWhy(t *testing.T) {
	f := func(v float64) *model.Float { x := model.Float(v); return &x }
	th := map[string]map[string]model.Band{"Norm": {
		"fwd": {Lower: 0.9709, Upper: 1.03, Usable: true},
		"bwd": {Lower: 0.9709, Upper: 1.03, Usable: true}},
		"Mean": {"fwd": {Usable: false}}}
	cases := []struct {
		metric string
		row    model.MetricRow
		want   []string
	}{
		{"Norm", model.MetricRow{FAnomaly: f(0.987), BAnomaly: f(0.959), BFlag: true},
			[]string{"fwd 0.987 within 0.971–1.030", "bwd 0.959 below the band 0.971–1.030: B!"}},
		{"Norm", model.MetricRow{FAnomaly: f(2.013), FFlag: true},
			[]string{"fwd 2.013 above the band 0.971–1.030: F!", "bwd not compared"}},
		{"Norm", model.MetricRow{FNonFinite: true, FFlag: true}, []string{"fwd NaN/Inf in A where the baseline is finite: F!∞"}},
		{"Mean", model.MetricRow{FAnomaly: f(0.418)}, []string{"fwd 0.418 (this metric's control ratios cannot set a band"}},
	}
	for _, c := range cases {
		got := flagWhy(c.metric, &c.row, bandOf(th, c.metric))
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s %+v: %q lacks %q", c.metric, c.row, got, w)
			}
		}
		if !strings.HasPrefix(got, c.metric+" · ") {
			t.Errorf("%q does not name the metric first", got)
		}
	}
	// a drill-down operator is judged in one direction against its own bounds
	op := &model.DrillOp{Bounds: map[string][2]model.Float{"Norm": {0.5, 2}}}
	got := flagWhy("Norm", &model.MetricRow{FAnomaly: f(2.5), FFlag: true}, boundsOf(op, "Norm", "fwd"), "fwd")
	if got != "Norm · fwd 2.500 above the band 0.500–2.000: F!" {
		t.Errorf("drill-down line %q", got)
	}
}

// Phase 1's line under the table gives the selected candidate's numbers:
// its norm against its own median, the test that flagged it and the
// thresholds it had to pass; a NaN/Inf says it is a candidate by itself.
func TestPhase1FlagWhy(t *testing.T) {
	a := &model.Anomaly{Norm: 9.5, DeviationRatio: 7.92, BaselineMedian: 1.2, Trigger: "iqr+mad"}
	got := strings.Join(p1FlagWhy(a, map[string]float64{"min_effect": 1.5, "tail_spreads": 9}), " · ")
	for _, w := range []string{"norm 9.5 = 7.92× its own median 1.2", "flagged: ", "needs ≥ 1.5× its median and ≥ 9 noise spreads"} {
		if !strings.Contains(got, w) {
			t.Errorf("%q lacks %q", got, w)
		}
	}
	a.NonFinite = true
	if got := p1FlagWhy(a, nil); len(got) != 1 || !strings.Contains(got[0], "NaN/Inf") {
		t.Errorf("non-finite: %q", got)
	}
}
