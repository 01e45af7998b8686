package synth

import "spikescope/model"

// DropOps removes the ops for which drop is true (and re-indexes).
func DropOps(d *model.Dump, drop func(op *model.Op) bool) {
	var ops []model.Op
	for _, op := range d.Ops {
		if !drop(&op) {
			op.Order = len(ops)
			ops = append(ops, op)
		}
	}
	d.Ops = ops
	d.Index = map[string]int{}
	for i := range d.Ops {
		d.Index[d.Ops[i].Key] = i
	}
}
