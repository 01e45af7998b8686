package report

import (
	"strings"

	"spikescope/model"
)

// C in B's place: without a baseline dump, Phase 3 compares A with the
// nearby normal sample C of the same device. Its tables then name that
// column C (F_C, A/C) and leave out the empty control columns.

// standIn reports whether C stands in for B in a Phase 3 result.
func standIn(p3 *model.Phase3Result) bool { return p3 != nil && p3.BaselineGroup == "C" }

// standInTable renames a four-group table's baseline columns to C and drops
// its control columns (C, D, C/D of either pass) when C stands in for B.
func standInTable(t *table, on bool) {
	if !on {
		return
	}
	var keep []int
	for i, h := range t.header {
		switch {
		case h == "C" || h == "D" || h == "C/D" || strings.HasSuffix(h, "_C") || strings.HasSuffix(h, "_D") || strings.HasSuffix(h, "_C/D"):
			continue
		}
		keep = append(keep, i)
	}
	rename := func(h string) string {
		switch {
		case h == "B":
			return "C"
		case strings.HasSuffix(h, "_B"):
			return strings.TrimSuffix(h, "B") + "C"
		case strings.HasSuffix(h, "A/B"):
			return strings.TrimSuffix(h, "B") + "C"
		}
		return h
	}
	pick := func(cells []string) []string {
		out := make([]string, 0, len(keep))
		for _, i := range keep {
			if i < len(cells) {
				out = append(out, cells[i])
			} else {
				out = append(out, "") // the table prints its empty word
			}
		}
		return out
	}
	h := pick(t.header)
	for i := range h {
		h[i] = rename(h[i])
	}
	t.header = h
	for i := range t.rows {
		t.rows[i] = pick(t.rows[i])
	}
}

// nfFlagCell is flagCell with a non-finite divergence shown as `F!∞` /
// `B!∞` (NaN/Inf in A where the baseline is finite: no ratio).
func nfFlagCell(v *model.Float, flag, nonFinite bool, mark, why string) string {
	if nonFinite {
		return "`" + mark + "∞`"
	}
	return flagCell(v, flag, mark, why)
}
