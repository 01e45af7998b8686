package pipeline

import (
	"cmp"
	"math"
	"slices"

	"spikescope/model"
	"spikescope/report"
)

// rootSeries is the norm series of the parameter the report's Phase 1 plots
// show: the verdict's (the Phase 2 root coordinate's), else the earliest candidate's; nil
// without monitor rows for it.
func (s *Session) rootSeries() *report.Series {
	if s.Monitor == nil || s.P1 == nil || len(s.P1.Anomalies) == 0 {
		return nil
	}
	a := &s.P1.Anomalies[0]
	for i := range s.P1.Anomalies {
		b := &s.P1.Anomalies[i]
		if c := cmp.Or(cmp.Compare(b.OptStep(), a.OptStep()), cmp.Compare(b.Micro(), a.Micro())); c < 0 {
			a = b
		}
	}
	param, metric := a.TargetName, a.Metric
	switch {
	case s.Verdict.Parameter() != "": // the verdict's parameter: what every face names
		param = s.Verdict.Parameter()
	case s.P2 != nil && s.P2.RootCauseCoordinate != nil && s.P2.RootCauseCoordinate.TargetName != "":
		param = s.P2.RootCauseCoordinate.TargetName
	}
	return seriesOf(s.Monitor, param, metric)
}

// seriesOf collects param's norm in metric on every rank, step by step.
func seriesOf(m *model.MonitorData, param, metric string) *report.Series {
	mi := slices.Index(m.Metrics, metric)
	if mi < 0 && len(m.Metrics) == 1 {
		mi = 0
	}
	if mi < 0 {
		return nil
	}
	targets := make([]bool, len(m.Targets))
	for i, t := range m.Targets {
		if t.Name == param {
			targets[i] = true
		}
	}
	type pos struct{ step, micro int32 }
	type cellKey struct {
		rank int32
		p    pos
	}
	vals := map[cellKey]float64{}
	posSet, rankSet := map[pos]bool{}, map[int32]bool{}
	rows := &m.Rows
	for run := range rows.Runs() {
		if !targets[run.Target] || int(run.Metric) != mi {
			continue
		}
		for i := run.Lo; i < run.Hi; i++ {
			p := pos{rows.Step[i], rows.MicroOf(i)}
			posSet[p], rankSet[run.Rank] = true, true
			vals[cellKey{run.Rank, p}] = rows.Decimal(model.StatNorm, i)
		}
	}
	if len(posSet) == 0 {
		return nil
	}
	ps := make([]pos, 0, len(posSet))
	for p := range posSet {
		ps = append(ps, p)
	}
	slices.SortFunc(ps, func(a, b pos) int { return cmp.Or(cmp.Compare(a.step, b.step), cmp.Compare(a.micro, b.micro)) })
	ranks := make([]int32, 0, len(rankSet))
	for r := range rankSet {
		ranks = append(ranks, r)
	}
	slices.Sort(ranks)
	out := &report.Series{Param: param, Metric: m.Metrics[mi]}
	explicit := false
	for _, p := range ps {
		out.Steps = append(out.Steps, int(p.step))
		explicit = explicit || p.micro != model.NoMicro
	}
	if explicit {
		for _, p := range ps {
			out.Micro = append(out.Micro, int(p.micro))
		}
	}
	for _, r := range ranks {
		out.Ranks = append(out.Ranks, int(r))
		row, has := make([]float64, len(ps)), make([]bool, len(ps))
		for j, p := range ps {
			v, ok := vals[cellKey{r, p}]
			if !ok {
				v = math.NaN()
			}
			row[j], has[j] = v, ok
		}
		out.Norm, out.Has = append(out.Norm, row), append(out.Has, has)
	}
	return out
}
