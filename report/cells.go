package report

import (
	"math"
	"strconv"

	"spikescope/model"
)

// numOr prints v, or why there is none.
func numOr(v *model.Float, why string) string {
	if v == nil {
		return why
	}
	return num(float64(*v))
}

// ratioOr prints v as a ratio, or why there is none.
func ratioOr(v *model.Float, why string) string {
	if v == nil {
		return why
	}
	return ratio(float64(*v))
}

// intOr prints p, or why there is none.
func intOr(p *int, why string) string {
	if p == nil {
		return why
	}
	return strconv.Itoa(*p)
}

// groupWhy is why a Phase 3 value of group g ("A".."D") is missing: the
// group was not given (its control: no control group), else its record
// could not be aligned with A's.
func (r *renderer) groupWhy(g string) string {
	p3 := r.in.P3
	switch {
	case p3 == nil || p3.Dirs[g] != "":
		return r.t("unaligned")
	case g == "C" || g == "D":
		return r.t("c.nocontrol")
	}
	return r.t("c.notgiven")
}

// quadCells are the four groups' values of one pass, their two ratios
// and why the anomaly degree is missing (that of A/B, else of C/D).
func (r *renderer) quadCells(q model.Quad, ab, cd *model.Float) (cells []string, degreeWhy string) {
	why := map[string]string{}
	for _, g := range []string{"A", "B", "C", "D"} {
		why[g] = r.groupWhy(g)
	}
	pairWhy := func(x, y string, vx, vy *model.Float) string {
		if vx == nil {
			return why[x]
		}
		if vy == nil {
			return why[y]
		}
		return r.t("unaligned")
	}
	abWhy, cdWhy := pairWhy("A", "B", q.A, q.B), pairWhy("C", "D", q.C, q.D)
	degreeWhy = cdWhy
	if ab == nil {
		degreeWhy = abWhy
	}
	return []string{numOr(q.A, why["A"]), numOr(q.B, why["B"]), numOr(q.C, why["C"]), numOr(q.D, why["D"]),
		ratioOr(ab, abWhy), ratioOr(cd, cdWhy)}, degreeWhy
}

// numNaN and ratioNaN print v, or why when v is NaN (a value that was not
// computed, as opposed to a recorded NaN).
func numNaN(v model.Float, why string) string {
	if math.IsNaN(float64(v)) {
		return why
	}
	return num(float64(v))
}

func ratioNaN(v model.Float, why string) string {
	if math.IsNaN(float64(v)) {
		return why
	}
	return ratio(float64(v))
}
