package report

import (
	"strconv"
	"strings"

	"spikescope/model"
)

// eventsDict is the wording of the Phase 2 events table (zh, en).
var eventsDict = map[string][2]string{
	"p2.t3":          {"**表 3 — 独立尖刺事件**（按时间最早排序；每个事件 = 根因 step + 其传导到的后续 step）:", "**Table 3 — Independent spike events** (earliest first; each event is a root step plus the steps it conducts into):"},
	"p2.noevents":    {"无尖刺事件。", "No spike events."},
	"h.event":        {"事件", "Event"},
	"h.rootstep":     {"根因 opt_step", "Root optimizer step"},
	"h.coordinate":   {"根因坐标", "Root coordinate"},
	"h.extent":       {"范围", "Extent"},
	"h.conducts":     {"传导", "Conducts"},
	"h.baseline":     {"标杆", "Baseline"},
	"h.maxdev":       {"最大偏离", "Max deviation"},
	"ext.kernel":     {"单 rank 少数参数", "few parameters of one rank"},
	"ext.data":       {"少数 rank 的大部分参数", "most parameters of few ranks"},
	"h.cause":        {"原因", "Cause"},
	"ext.runwide":    {"大多数 rank（全局）", "most ranks (run-wide)"},
	"ext.partial":    {"少数 rank 的少数参数", "few parameters of few ranks"},
	"ext.notjudged":  {"单 step dump，未判定", "one dumped step, not judged"},
	"ext.counts":     {"%d/%d 个 rank，%d 个参数", "%d/%d ranks, %d parameter(s)"},
	"conducts.into":  {"传导到 opt_step %s", "into optimizer step %s"},
	"conducts.no":    {"否", "no"},
	"nonfinite":      {"NaN/Inf", "NaN/Inf"},
	"root.mark":      {"← 根因", "← root cause"},
	"p2c.events":     {"共 %d 个独立尖刺事件，根因取事件 %d（opt_step %d）；其余事件见表 3。", "%d independent spike events; the root cause is event %d (optimizer step %d); the others are listed in Table 3."},
	"p2c.events.lat": {"更晚的事件 %s 偏离更大，但最早的异常才是根因。", "The later event(s) %s deviate more, but the earliest anomaly is the root cause."},
	"p2c.sharedroot": {"所有事件在标杆上同样出现（双端共有）：根因取最早的事件，属数据或数值问题，非设备特异。", "Every event is on the baseline too (shared): the root is the earliest one, a data or numerics issue both devices have, not a device-specific one."},
	"p2c.sharedskip": {"%d 个更早的事件双端共有（如 fp16 loss scale 溢出），已列出但不作根因。", "%d earlier event(s) are on the baseline too (shared, e.g. fp16 loss-scale overflows): listed, not the root cause."},
}

func init() {
	for k, v := range eventsDict {
		dict[k] = v
	}
}

// extentText is the report's wording of an event's extent.
func (r *renderer) extentText(e *model.SpikeEvent) string {
	key := map[string]string{"one-rank-few": "ext.kernel", "few-ranks-all": "ext.data", "run-wide": "ext.runwide",
		"partial": "ext.partial", "not judged": "ext.notjudged"}[e.Extent]
	s := e.Extent
	if key != "" {
		s = r.t(key)
	}
	s += "; " + r.tf("ext.counts", len(e.Ranks), e.RanksTotal, e.Parameters)
	if e.NonFinite {
		s += ", " + r.t("nonfinite")
	}
	return s
}

// phase2Events writes Table 3, the independent spike events.
func (r *renderer) phase2Events(p2 *model.Phase2Result) {
	if len(p2.Events) == 0 {
		return
	}
	r.line(r.t("p2.t3"))
	header := []string{r.t("h.event"), r.t("h.rootstep"), r.t("h.coordinate"), r.t("h.extent"), r.t("h.cause"), r.t("h.conducts"), r.t("h.maxdev")}
	withBase := false
	for _, e := range p2.Events {
		withBase = withBase || e.Baseline != ""
	}
	if withBase {
		header = append(header, r.t("h.baseline"))
	}
	t := &table{header: header}
	shown := 0
	for i := range p2.Events {
		e := &p2.Events[i]
		if shown >= r.max && !e.Root {
			continue
		}
		shown++
		id := strconv.Itoa(e.ID)
		if e.Root {
			id += " " + r.t("root.mark")
		}
		co := r.t("none")
		if e.Coordinate != nil {
			co = r.coordinateText(e.Coordinate)
		}
		cond := r.t("conducts.no")
		if e.Conducts {
			cond = r.tf("conducts.into", model.JoinInts(e.ConductsInto, ", "))
		}
		dev := ratio(float64(e.MaxDeviation))
		if !model.Finite(float64(e.MaxDeviation)) {
			dev = r.t("nonfinite")
		}
		cause := model.CauseWord(e.Cause, r.lang())
		if e.Likely != "" {
			cause = (&model.Verdict{Cause: e.Cause, Likely: e.Likely}).CauseText(r.lang())
		}
		row := []string{id, strconv.Itoa(e.RootStep), co, r.extentText(e), cause, cond, dev}
		if withBase {
			b := r.t("none")
			switch e.Baseline {
			case "shared":
				b = r.t("shared")
			case "device-specific":
				b = r.t("devspecific")
			}
			row = append(row, b)
		}
		t.add(row...)
	}
	r.table(t)
	if shown < len(p2.Events) {
		r.line(r.tf("more.rows", shown, len(p2.Events), len(p2.Events)-shown))
	}
}

// eventsEvidence is what the events add to the Phase 2 conclusion.
func (r *renderer) eventsEvidence(p2 *model.Phase2Result) []string {
	root := -1
	for i := range p2.Events {
		if p2.Events[i].Root {
			root = i
		}
	}
	if root < 0 {
		return nil
	}
	var out []string
	if len(p2.Events) > 1 {
		out = append(out, r.tf("p2c.events", len(p2.Events), p2.Events[root].ID, p2.Events[root].RootStep))
		var larger []string
		for i := root + 1; i < len(p2.Events); i++ {
			if e := &p2.Events[i]; e.Baseline != "shared" && model.Finite(float64(e.MaxDeviation)) && e.MaxDeviation > p2.Events[root].MaxDeviation {
				larger = append(larger, strconv.Itoa(p2.Events[i].ID))
			}
		}
		if len(larger) > 0 {
			out = append(out, r.tf("p2c.events.lat", strings.Join(larger, ", ")))
		}
	}
	switch {
	case p2.Events[root].Baseline == "shared":
		out = append(out, r.t("p2c.sharedroot"))
	case p2.Events[root].Baseline == "device-specific":
		n := 0
		for i := 0; i < root; i++ {
			if p2.Events[i].Baseline == "shared" {
				n++
			}
		}
		if n > 0 {
			out = append(out, r.tf("p2c.sharedskip", n))
		}
	}
	return out
}
