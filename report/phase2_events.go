package report

import (
	"strconv"
	"strings"

	"spikescope/model"
	"spikescope/words"
)

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
		cause := words.CauseText(e.Cause, e.Likely, words.Of(r.lang()))
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
