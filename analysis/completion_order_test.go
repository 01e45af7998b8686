package analysis

import (
	"slices"
	"testing"

	"spikescope/model"
	"spikescope/testdata/synth"
)

// completionOrder: a container after everything inside it, inner before
// outer when they end together; post-order parents (after their children)
// and a cyclic parent chain (a broken construct.json) end too.
func TestCompletionOrder(t *testing.T) {
	for _, c := range []struct {
		name   string
		parent []int
		want   []int
	}{
		// pre-order: 0 contains 1 (contains 2) and 3; 4 stands alone
		{"pre-order", []int{-1, 0, 1, 0, -1}, []int{2, 1, 3, 0, 4}},
		// post-order: file order is already the completion order
		{"post-order", []int{1, 3, 3, -1, -1}, []int{0, 1, 2, 3, 4}},
		{"cycle", []int{1, 0, -1}, []int{0, 1, 2}},
		{"empty", nil, []int{}},
	} {
		if got := completionOrder(c.parent); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// The non-finite origin's pass order (outputOrder over the whole pass)
// and the drill-down's scope order the same records the same way: both
// come from completionOrder and, with construct.json, the same
// containment. (Without it the scope infers an API's module from its
// neighbours, the pass from the innermost open module: they may differ.)
func TestOutputOrderAgreesWithDrillScope(t *testing.T) {
	q := synth.TraceQuad{Layers: 4, Noise: 0.005, Bias: 1, Seed: 1, FlavA: synth.TraceMcore, FlavB: synth.TraceMcore, PreOrder: true}
	a, _, _, _ := q.Build()
	x := indexDump(a, learnLayerScheme(a))
	for _, dir := range []model.Direction{model.Forward, model.Backward} {
		sc := newDrillScope(x, 2, dir, 0)
		if len(sc.ops) < 4 {
			t.Fatalf("%v: %d records in the scope: the case tests nothing", dir, len(sc.ops))
		}
		fileOrder := slices.Clone(sc.ops)
		slices.Sort(fileOrder)
		if slices.Equal(fileOrder, sc.ops) {
			t.Fatalf("%v: the scope is in file order: the case tests nothing", dir)
		}
		if got := outputOrder(a, dir, fileOrder); !slices.Equal(got, sc.ops) {
			t.Errorf("%v: outputOrder %v, drill scope %v", dir, got, sc.ops)
		}
	}
}
