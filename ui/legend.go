package ui

import "spikescope/model"

// The `?` screen explains the marks of the screen it was opened on, and
// only those: a pane that draws marks lists them (its marks(), beside its
// View); the help shows them under the keys. Here: the parts of the
// legends several panes share.

// legendLine is one mark and its meaning: "F!  the forward degree is
// flagged".
func legendLine(mark, meaning string) string { return mark + "\t" + meaning }

// degreeLegend is the meaning of the four-group columns and their marks,
// shared by the layer and the operator tables; flags says which marks the
// rows use.
func degreeLegend(f quadFlags) []string {
	out := []string{
		legendLine("F_/B_", "forward / backward pass; A the anomalous dump, B its baseline, C a nearby normal dump of A's run, D C's baseline"),
		legendLine("degree", "(A/B)/(C/D), the F-anomaly and B-anomaly columns: how far A left B beyond the normal difference C/D; 1.000 is none"),
	}
	if f.flag {
		out = append(out, legendLine("F! B!", "the forward / backward degree is flagged: this row diverges"))
	}
	if f.nonFinite {
		out = append(out, legendLine("F!∞ B!∞", "A turns NaN/Inf where the baseline is finite"))
	}
	if f.dash {
		out = append(out, legendLine("-", "no value: the row could not be aligned in that group, or the group is missing"))
	}
	return out
}

// quadFlags says which marks four-group rows use.
type quadFlags struct{ flag, nonFinite, dash bool }

// merge notes the marks a row's cells draw (quadCell).
func (q *quadFlags) merge(r *model.MetricRow) {
	q.flag = q.flag || r.FFlag || r.BFlag
	q.nonFinite = q.nonFinite || r.FNonFinite || r.BNonFinite
	for c := 0; c < numQuadCols && !q.dash; c++ {
		q.dash = quadPtr(r, c) == nil
	}
}

// colsLegend explains the column indicator when the table scrolls.
func colsLegend(t *table, width int) []string {
	if t.colsInfo(width) == "" {
		return nil
	}
	return []string{legendLine("cols ▸ ◂", "more columns to the right / left: ← → (h l) move the column cursor and scroll")}
}
