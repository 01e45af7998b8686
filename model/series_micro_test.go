package model

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// microRef is rows beside the micro steps every row had with a column per
// row (the form before the column could be left out).
type microRef struct {
	r     Rows
	micro []int32
}

func (m *microRef) check(t *testing.T, what string) {
	t.Helper()
	if m.r.Len() != len(m.micro) {
		t.Fatalf("%s: %d rows, want %d", what, m.r.Len(), len(m.micro))
	}
	for i, w := range m.micro {
		if got := m.r.MicroOf(i); got != w {
			t.Fatalf("%s: row %d micro %d, want %d", what, i, got, w)
		}
	}
	if lo, hi := len(m.micro)/3, len(m.micro)-len(m.micro)/4; !slices.Equal(m.r.Micros(lo, hi), m.micro[lo:hi]) {
		t.Fatalf("%s: Micros(%d, %d) differ", what, lo, hi)
	}
	held := slices.ContainsFunc(m.micro, func(v int32) bool { return v != NoMicro })
	if held && !m.r.HasMicro() {
		t.Fatalf("%s: a row has a micro step but no column is held", what)
	}
}

// randomMicroRows appends n rows; micro steps only when withMicro.
func randomMicroRows(m *microRef, rng *rand.Rand, n int, withMicro bool) {
	for range n {
		micro := NoMicro
		if withMicro && rng.IntN(3) > 0 {
			micro = int32(rng.IntN(4))
		}
		m.r.Append(int32(rng.IntN(5)), int32(rng.IntN(9)), micro, int32(rng.IntN(6)), uint8(rng.IntN(2)),
			[NumStats]float64{rng.Float64(), rng.Float64(), rng.Float64(), rng.Float64()})
		m.micro = append(m.micro, micro)
	}
}

// TestMicroColumnOnlyWhenHeld: rows without a micro step hold no column
// through every way rows are made (Append, Grow, Resize, AppendRows,
// Place, Move, Truncate, SortSeries), read NoMicro everywhere, and the
// first row with a micro step makes the column with the rows before it
// NoMicro: every row's micro step equals the per-row form's.
func TestMicroColumnOnlyWhenHeld(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	var m microRef
	randomMicroRows(&m, rng, 500, false)
	m.r.Grow(100)
	m.r.Resize(m.r.Len() + 7) // new rows: NoMicro while no column is held
	m.micro = append(m.micro, NoMicro, NoMicro, NoMicro, NoMicro, NoMicro, NoMicro, NoMicro)
	var other microRef
	randomMicroRows(&other, rng, 200, false)
	m.r.AppendRows(&other.r, nil, nil)
	m.micro = append(m.micro, other.micro...)
	m.r.Place(10, &other.r)
	copy(m.micro[10:], other.micro)
	m.r.Move(3, 400)
	m.micro[3] = m.micro[400]
	m.r.Truncate(650)
	m.micro = m.micro[:650]
	m.check(t, "no micro step")
	if m.r.HasMicro() || m.r.MicroColumn() != nil {
		t.Fatal("a column is held for rows without a micro step")
	}
	sorted := m.r
	sorted.Rank, sorted.Target, sorted.Metric, sorted.Step = slices.Clone(m.r.Rank), slices.Clone(m.r.Target), slices.Clone(m.r.Metric), slices.Clone(m.r.Step)
	sorted.Norm = slices.Clone(m.r.Norm)
	for s := StatMin; s < NumStats; s++ {
		sorted.Stats[s] = slices.Clone(m.r.Stats[s])
	}
	sorted.SortSeries()
	if sorted.HasMicro() || sorted.MicroOf(17) != NoMicro {
		t.Fatal("sorted rows without micro steps hold a column")
	}

	// a block with micro steps placed, appended: the column is made
	var withMicro microRef
	randomMicroRows(&withMicro, rng, 150, true)
	m.r.Place(100, &withMicro.r)
	copy(m.micro[100:], withMicro.micro)
	m.check(t, "placed micro steps")
	m.r.AppendRows(&other.r, nil, nil)
	m.micro = append(m.micro, other.micro...)
	randomMicroRows(&m, rng, 50, true)
	m.r.Resize(m.r.Len() + 5) // the column is held: new rows are zero
	m.micro = append(m.micro, 0, 0, 0, 0, 0)
	m.r.SetMicro(m.r.Len()-1, NoMicro)
	m.micro[len(m.micro)-1] = NoMicro
	m.check(t, "appended micro steps")

	// the series sort moves the micro steps with their rows: compare with
	// a stable sort of (metric, target, rank) over the per-row form
	type row struct {
		key   [3]int32
		step  int32
		micro int32
		norm  float64
	}
	var want []row
	for i := range m.r.Len() {
		want = append(want, row{[3]int32{int32(m.r.Metric[i]), m.r.Target[i], m.r.Rank[i]}, m.r.Step[i], m.micro[i], m.r.Norm[i]})
	}
	slices.SortStableFunc(want, func(a, b row) int {
		for k := range a.key {
			if a.key[k] != b.key[k] {
				return int(a.key[k] - b.key[k])
			}
		}
		return 0
	})
	m.r.SortSeries()
	for i, w := range want {
		got := row{[3]int32{int32(m.r.MetricOf(i)), m.r.TargetOf(i), m.r.RankOf(i)}, m.r.Step[i], m.r.MicroOf(i), m.r.Norm[i]}
		if got != w {
			t.Fatalf("sorted row %d: %+v, want %+v", i, got, w)
		}
	}

	// the column is let go once every row is NoMicro again
	for i := range m.r.Len() {
		m.r.SetMicro(i, NoMicro)
	}
	m.r.DropConstantMicro()
	if m.r.HasMicro() || m.r.MicroOf(0) != NoMicro {
		t.Fatal("DropConstantMicro kept a NoMicro column")
	}
}

// TestNoMicrosShared: the NoMicro runs are one shared array, grown to the
// longest asked for and never per call.
func TestNoMicrosShared(t *testing.T) {
	a := NoMicros(10)
	b := NoMicros(5000)
	c := NoMicros(20)
	if len(a) != 10 || len(b) != 5000 || len(c) != 20 || cap(c) != 20 {
		t.Fatalf("lengths %d %d %d cap %d", len(a), len(b), len(c), cap(c))
	}
	for _, v := range b {
		if v != NoMicro {
			t.Fatalf("value %d", v)
		}
	}
	if &b[0] != &c[0] {
		t.Error("a shorter run after a longer one is not the same array")
	}
	if allocs := testing.AllocsPerRun(100, func() { _ = NoMicros(4000) }); allocs != 0 {
		t.Errorf("%v allocations a call", allocs)
	}
}
