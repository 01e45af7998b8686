package report

import (
	"sort"
	"strconv"
	"strings"
	"unicode"

	"spikescope/model"
	"spikescope/words"
)

func (r *renderer) phase2() {
	r.heading(2, r.t("p2.title"))
	p2 := r.in.P2
	if p2 == nil {
		r.line(r.t("p2.notrun"))
		return
	}
	if p2.Mode != "" {
		r.line(r.t("p2.mode") + " " + r.modeText(p2.Mode))
	}
	if len(p2.Thresholds) > 0 {
		keys := make([]string, 0, len(p2.Thresholds))
		for k := range p2.Thresholds {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = code(k) + " " + num(p2.Thresholds[k])
		}
		r.line(r.t("p2.thresholds") + " " + strings.Join(parts, ", "))
	}

	r.line(r.crossStepTitle())
	if len(p2.CrossStep) == 0 {
		if p2.Pinned { // the pin replaced the rule, whatever the data
			r.line(r.t("p2.nocrosspin"))
		} else {
			r.line(r.t("p2.nocross"))
		}
	} else {
		t := &table{header: []string{r.t("h.turn"), r.t("h.growth"), r.t("h.ranksover"), r.t("h.verdict")}}
		first := -1
		for i, p := range p2.CrossStep {
			if p.Qualifies && (first < 0 || p.From < p2.CrossStep[first].From) {
				first = i
			}
		}
		shown := 0
		for i, p := range p2.CrossStep {
			// Keep the earliest qualifying pair visible even past the cap.
			if shown >= r.max && i != first {
				continue
			}
			shown++
			turn := r.optStep(p.From) + " → " + strconv.Itoa(p.To)
			if p.TargetName != "" {
				turn += " (" + code(p.TargetName) + ")"
			}
			share := strconv.Itoa(p.RanksOver) + "/" + strconv.Itoa(p.RanksTotal) + " (" + strconv.Itoa(int(p.Share*100+0.5)) + "%)"
			var v string
			switch {
			case notJudged(p) && p.RanksTotal > 0 && p.RanksTotal < p.MinCommonRanks:
				v = r.tf("p2.notjudged.n", p.RanksTotal, p.MinCommonRanks)
			case notJudged(p):
				v = r.t("p2.notjudged")
			case p.Qualifies && i == first:
				v = r.tf("p2.root.in", p.From)
			case p.Qualifies:
				v = r.t("p2.later")
			default:
				v = r.t("p2.noturn")
			}
			if p.BaselineGrowth != nil {
				if *p.BaselineGrowth {
					v += " (" + r.t("shared") + ")"
				} else {
					v += " (" + r.t("devspecific") + ")"
				}
			}
			// the growth measured, beside the count it decides on (the
			// seed's four columns stay; a saved result may lack it)
			if p.GrowthMedian != nil && p.GrowthMax != nil {
				share = r.tf("p2.measured", share, ratio(float64(*p.GrowthMedian)), ratio(float64(*p.GrowthMax)))
			}
			t.add(turn, ratio(p.Threshold), share, v)
		}
		r.table(t)
		if shown < len(p2.CrossStep) {
			r.line(r.tf("more.rows", shown, len(p2.CrossStep), len(p2.CrossStep)-shown))
		}
		r.line(r.t("p2.t1.note"))
		r.phase2GrowthFigure(p2)
	}

	r.line(r.t("p2.t2"))
	if len(p2.Candidates) == 0 {
		if p2.Pinned {
			r.line(r.t("p2.nocandpin"))
		} else {
			r.line(r.t("p2.nocand"))
		}
	} else {
		// one device: no baseline columns of "-" and "no baseline", a
		// sentence under the table instead, the chosen row in bold (the
		// Chinese report keeps the seed's eight columns its readers know)
		one := !r.zh && oneDevice(p2)
		t := &table{header: []string{"Opt Step", "Rank", r.t("h.param"), "ms", "delta", r.t("h.bdelta"), r.t("h.ratio"), r.t("h.verdict")}}
		if one {
			t.header = t.header[:5]
		}
		normCompared := false
		shown := 0
		for _, cv := range p2.Candidates {
			if shown >= r.max && !cv.Selected {
				continue
			}
			shown++
			a := &cv.Anomaly
			normCompared = normCompared || a.Delta == nil
			v := r.verdictText(cv.Verdict)
			if cv.Selected {
				v += " ← " + r.t("selected")
			}
			if one {
				name := code(a.TargetName)
				if cv.Selected {
					name = "**" + name + "**"
				}
				t.add(strconv.Itoa(a.OptStep()), strconv.Itoa(a.Rank), name, intOr(a.MicroStep, r.t("none")), num(float64(cv.Value)))
				continue
			}
			// no baseline value beside a device-specific verdict: the
			// baseline has no candidate there (the TUI's "no spike")
			noBase := r.t("none")
			switch cv.Verdict {
			case "device-specific":
				noBase = r.t("c.nospike")
			case "no baseline":
				noBase = r.t("nobaseline")
			}
			t.add(strconv.Itoa(a.OptStep()), strconv.Itoa(a.Rank), code(a.TargetName), intOr(a.MicroStep, r.t("none")),
				num(float64(cv.Value)), numOr(cv.BaselineValue, noBase), ratioOr(cv.Ratio, r.t("none")), v)
		}
		r.table(t)
		if one {
			r.line(r.t("p2.onedevice"))
		}
		if shown < len(p2.Candidates) {
			r.line(r.tf("more.rows", shown, len(p2.Candidates), len(p2.Candidates)-shown))
		}
		if normCompared {
			r.line(r.t("p2.normcompared"))
		}
	}
	r.phase2Events(p2)
	r.phase2EventsFigure(p2)
	r.notes(r.p2Decisions(p2), p2.Warnings)
	r.writeConclusion(r.phase2Conclusion(p2))
}

// crossStepTitle is the title of the cross-step table, saying what data
// it was decided on: the growth rule reads micro-step data only, so on
// step-level or dump data the title says that the rule did not apply.
func (r *renderer) crossStepTitle() string {
	p1 := r.in.P1
	if p1 == nil {
		return r.t("p2.t1any")
	}
	switch dataKind(p1) {
	case "micro_step":
		if p1.Sharding.AccumulationWindow == 1 {
			return r.t("p2.t1w1")
		}
		return r.t("p2.t1")
	case "step":
		return r.t("p2.t1step")
	case "dump":
		return r.t("p2.t1dump")
	}
	return r.t("p2.t1any")
}

// dataKind is what Phase 1 read: its data_kind, or for a result without
// one (made by the reference scripts) what its format and candidates say.
func dataKind(p1 *model.Phase1Result) string {
	if p1.DataKind != "" {
		return p1.DataKind
	}
	if p1.Format == model.FormatDump {
		return "dump"
	}
	for i := range p1.Anomalies {
		if a := &p1.Anomalies[i]; a.Delta != nil || a.MicroStep != nil {
			return "micro_step"
		}
	}
	if p1.Sharding.HasMicroStep {
		return "micro_step"
	}
	return "step"
}

// oneDevice tells a Phase 2 result without a baseline run: the
// reference's single-device mode, and no candidate compared with a
// baseline.
func oneDevice(p2 *model.Phase2Result) bool {
	if !strings.Contains(p2.Mode, "单设备") && !strings.EqualFold(p2.Mode, "single device") {
		return false
	}
	for _, cv := range p2.Candidates {
		if cv.BaselineValue != nil || cv.Ratio != nil {
			return false
		}
	}
	return true
}

// modeText translates the reference's mode strings.
func (r *renderer) modeText(m string) string {
	switch {
	case strings.Contains(m, "单设备") || strings.EqualFold(m, "single device"):
		return r.t("mode.single")
	case strings.Contains(m, "标杆") || strings.Contains(strings.ToLower(m), "baseline"):
		return r.t("mode.cross")
	}
	return m
}

// verdictText translates the Phase 2 candidate verdicts the analysis writes
// (English or the reference's Chinese); unknown ones pass through.
func (r *renderer) verdictText(v string) string {
	l := strings.ToLower(v)
	switch {
	case strings.Contains(l, "device-specific") || strings.Contains(v, "设备特异"):
		return r.t("devspecific")
	case strings.Contains(l, "shared") || strings.Contains(v, "双端共有"):
		return r.t("shared")
	case strings.Contains(l, "no baseline") || strings.Contains(v, "无标杆"):
		return r.t("nobaseline")
	case strings.Contains(l, "only") || strings.Contains(v, "独有"):
		return r.t("baselineonly")
	case strings.Contains(l, "close") || strings.Contains(l, "skip") || strings.Contains(v, "接近"):
		return r.t("close")
	}
	return v
}

func (r *renderer) phase2Conclusion(p2 *model.Phase2Result) conclusion {
	var c conclusion
	rc := p2.RootCauseCoordinate
	if rc == nil {
		c.problem = []string{r.t("p2c.none")}
		if s := oneLine(r.p2Reasoning(p2)); s != "" && !(!r.zh && hasHan(s)) {
			c.evidence = []string{s}
		} else if ds := r.p2Decisions(p2); len(ds) > 0 {
			c.evidence = []string{oneLine(ds[len(ds)-1])}
		}
		c.impact = []string{r.t("p2c.none.impact")}
		c.suggestion = []string{r.t("p2c.none.sugg")}
		return c
	}
	p := r.tf("p2c.problem", r.coordinateText(rc), numOr(rc.Delta, r.t("none")), num(float64(rc.Norm)))
	if p2.Pinned {
		p += " — " + r.t("pinned")
	}
	c.problem = []string{p}
	if p2.Pinned {
		c.evidence = append(c.evidence, r.t("p2c.pinned"))
		switch {
		case p2.Automatic != nil && r.coordinateText(p2.Automatic) != r.coordinateText(rc):
			c.evidence = append(c.evidence, r.tf("p2c.automatic", r.coordinateText(p2.Automatic)))
		case p2.Automatic != nil:
			c.evidence = append(c.evidence, r.t("p2c.autosame"))
		}
	}
	if p2.RootOptStep != nil {
		if p2.Pinned {
			c.evidence = append(c.evidence, r.tf("p2c.rootpin", *p2.RootOptStep))
		} else {
			c.evidence = append(c.evidence, r.tf("p2c.rootstep", *p2.RootOptStep))
		}
	}
	c.evidence = append(c.evidence, r.eventsEvidence(p2)...)
	// The reasoning keeps the reference scripts' Chinese wording; the
	// English report points to the (English) decisions instead.
	foreign := func(s string) bool { return !r.zh && hasHan(s) }
	if s := oneLine(r.p2Reasoning(p2)); s != "" {
		if foreign(s) {
			c.evidence = append(c.evidence, r.t("p2c.seenotes"))
		} else {
			c.evidence = append(c.evidence, r.t("p2c.reasoning")+" "+s)
		}
	}
	if s := oneLine(r.p2Verification(p2)); s != "" && !noBaselineText(s) {
		if !foreign(s) {
			c.evidence = append(c.evidence, r.t("p2c.crossdev")+" "+s)
		}
	} else if r.in.P1Baseline == nil {
		c.evidence = append(c.evidence, r.t("p2c.nobaseline"))
	}
	c.impact = []string{r.t("p2c.impact")}
	if r.in.P3 != nil {
		c.suggestion = []string{r.t("p2c.sugg.p3")}
	} else {
		opt := rc.OptimizerStep
		if opt == nil {
			opt = rc.Step
		}
		c.suggestion = []string{r.tf("p2c.sugg.dump", intOr(opt, r.t("none")), rc.Rank)}
	}
	return c
}

// p2Decisions are the decisions in the report's language: said from their
// reasons in Chinese (the strings, English, otherwise and for a result read
// back from JSON).
func (r *renderer) p2Decisions(p2 *model.Phase2Result) []string {
	if r.zh && p2.DecisionsReasons != nil {
		return words.All(p2.DecisionsReasons, words.Chinese)
	}
	return p2.Decisions
}

// p2Reasoning is the reasoning in the Chinese report said from its
// reasons (some notes are English in the JSON), else as written.
func (r *renderer) p2Reasoning(p2 *model.Phase2Result) string {
	if r.zh && p2.ReasoningReasons != nil {
		return strings.Join(words.All(p2.ReasoningReasons, words.Chinese), "; ")
	}
	return p2.Reasoning
}

// p2Verification is the cross-device verification in the report's
// language (Chinese said from its reason).
func (r *renderer) p2Verification(p2 *model.Phase2Result) string {
	if r.zh && p2.CrossDeviceVerificationReason != nil {
		return words.Say(p2.CrossDeviceVerificationReason, words.Chinese)
	}
	return p2.CrossDeviceVerification
}

// parameterNote is a coordinate's parameter_note in the report's language.
func (r *renderer) parameterNote(co *model.Coordinate) string {
	if r.zh && co.ParameterNoteReason != nil {
		return words.Say(co.ParameterNoteReason, words.Chinese)
	}
	return co.ParameterNote
}

// noBaselineText recognises the analysis's "no baseline data" verification
// (the reference writes 无标杆数据) so that the report can say it in its language.
func noBaselineText(s string) bool {
	l := strings.ToLower(s)
	return strings.HasPrefix(s, "无标杆") || strings.HasPrefix(l, "no baseline")
}

// hasHan reports whether s holds Chinese characters (the reference scripts'
// wording, kept by the analysis for compatibility).
func hasHan(s string) bool {
	for _, c := range s {
		if unicode.Is(unicode.Han, c) {
			return true
		}
	}
	return false
}

// notJudged tells a cross-step pair the rule was not applied to (no data
// at the next step, another parameter there, too few common ranks). A
// saved result from before the judged key lacks it: there only a pair
// without any common rank is known to be unjudged.
func notJudged(p model.CrossStepPair) bool {
	return !p.Judged && (p.MinCommonRanks > 0 || p.RanksTotal == 0)
}
