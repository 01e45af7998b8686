package analysis

import (
	"math"

	"spikescope/model"
)

// Phase 3 output rows: one layer of an anchor table and the value
// conversions it uses.

// layerRow renders one layer of an anchor table (seed Step 3.3, the
// layer-by-layer table: four groups, ratios, degree and flags per pass,
// and why a pair is not compared) from its two cells, its label and the
// anchor's gradient norms.
func layerRow(g *p3Groups, l int, label string, grad model.Quad, cs *[2]cell) model.LayerRow {
	row := model.LayerRow{Layer: l, Metrics: map[string]model.MetricRow{}, Label: label, Grad: grad}
	f, b := &cs[0], &cs[1]
	for _, m := range metricOrder {
		row.Metrics[metricName(m)] = model.MetricRow{
			Fwd: quadOf(f, m), Bwd: quadOf(b, m),
			FAB: floatPtr(f.ab[m]), FCD: floatPtr(f.cd[m]), BAB: floatPtr(b.ab[m]), BCD: floatPtr(b.cd[m]),
			FAnomaly: floatPtr(f.deg[m]), BAnomaly: floatPtr(b.deg[m]),
			FFlag: f.flag[m], BFlag: b.flag[m],
			FNonFinite: f.nf[m], BNonFinite: b.nf[m],
		}
	}
	al := &row.Alignment
	al.FwdKeyA, al.FwdKeyB, al.FwdKeyC, al.FwdKeyD = keys(g, f)
	al.BwdKeyA, al.BwdKeyB, al.BwdKeyC, al.BwdKeyD = keys(g, b)
	al.FAB, al.FCD, al.BAB, al.BCD = f.abOK, f.cdOK, b.abOK, b.cdOK
	for di, c := range []*cell{f, b} {
		if !c.present {
			continue
		}
		if !c.abOK || c.abWhy != nil { // an aligned pair's why: its stand-in
			al.Why = append(al.Why, model.P3Unaligned{Dir: p3Dirs[di].name, Pair: "A/B", Why: c.abWhy})
		}
		if g.hasCD && !c.cdOK {
			al.Why = append(al.Why, model.P3Unaligned{Dir: p3Dirs[di].name, Pair: "C/D", Why: c.cdWhy})
		}
	}
	return row
}

// keys are the op keys of a cell's four representatives ("" when absent).
func keys(p *p3Groups, c *cell) (a, b, cc, d string) {
	k := func(x *dumpIndex, i int32) string {
		if x == nil || i < 0 {
			return ""
		}
		return x.d.Ops[i].Key
	}
	return k(p.ia, c.a), k(p.ib, c.b), k(p.ic, c.c), k(p.id, c.d)
}

// quadOf is metric m of a cell's four groups (null for an absent op).
func quadOf(c *cell, m model.Stat) model.Quad {
	return model.Quad{A: floatPtrRaw(c.va[m], c.a >= 0), B: floatPtrRaw(c.vb[m], c.b >= 0), C: floatPtrRaw(c.vc[m], c.c >= 0), D: floatPtrRaw(c.vd[m], c.d >= 0)}
}

// floatPtr is nil for a missing (NaN) value.
func floatPtr(v float64) *model.Float {
	if math.IsNaN(v) {
		return nil
	}
	f := model.Float(v)
	return &f
}

// floatPtrRaw keeps a recorded value, NaN included (shown as "NaN"): a NaN in A
// is itself a finding. Absent stats are NaN too; they show as null only when
// the op is missing.
func floatPtrRaw(v float64, present bool) *model.Float {
	if !present {
		return nil
	}
	f := model.Float(v)
	return &f
}

// nonNilStrings makes a nil list an empty one (JSON [] rather than null).
func nonNilStrings(x []string) []string {
	if x == nil {
		return []string{}
	}
	return x
}
