package model

import (
	"sync"
	"sync/atomic"
)

// The micro-step column is held only when some row has a micro step: most
// inputs (a trend.db without micro steps, a CSV tree without a micro_step
// column) have NoMicro in every row, and a constant needs no 4 bytes a row.

// MicroOf is the micro step of row i (NoMicro when not recorded).
func (r *Rows) MicroOf(i int) int32 {
	if r.micro == nil {
		return NoMicro
	}
	return r.micro[i]
}

// HasMicro reports whether the micro-step column is held (some row was
// given a micro step); without it every row reads NoMicro.
func (r *Rows) HasMicro() bool { return r.micro != nil }

// Micros is the micro steps of rows lo..hi-1, read-only: a view of the
// column, or of a shared run of NoMicro when no row has a micro step (it
// must never be written; it is as long as the longest run asked for, not
// the rows).
func (r *Rows) Micros(lo, hi int) []int32 {
	if r.micro != nil {
		return r.micro[lo:hi:hi]
	}
	return NoMicros(hi - lo)
}

// MicroColumn is the micro-step column, nil while every row is NoMicro:
// for code that moves whole columns (spill files, out-of-core sinks).
func (r *Rows) MicroColumn() []int32 { return r.micro }

// SetMicroColumn sets the micro-step column (one entry a row, or nil for
// NoMicro in every row): a reader that builds whole columns.
func (r *Rows) SetMicroColumn(col []int32) {
	r.uncount()
	r.micro = col
}

// SetMicro stores the micro step of row i, making the column when it is
// the first row with one.
func (r *Rows) SetMicro(i int, micro int32) {
	if r.micro == nil {
		if micro == NoMicro {
			return
		}
		r.materialiseMicro()
	}
	r.micro[i] = micro
}

// DropConstantMicro lets go of the column when every row is NoMicro (a
// reader's rule set them so afterwards).
func (r *Rows) DropConstantMicro() {
	for _, m := range r.micro {
		if m != NoMicro {
			return
		}
	}
	r.micro = nil
}

// materialiseMicro makes the column: NoMicro in every row so far, with the
// room the step column has.
func (r *Rows) materialiseMicro() {
	n := len(r.Step)
	col := make([]int32, n, max(n, cap(r.Step)))
	for i := range col {
		col[i] = NoMicro
	}
	r.micro = col
}

// appendMicro adds the micro step of a row being appended (before its
// step is: the rows so far are len(r.Step)).
func (r *Rows) appendMicro(micro int32) {
	if r.micro == nil {
		if micro == NoMicro {
			return
		}
		r.materialiseMicro()
	}
	r.micro = append(r.micro, micro)
}

// appendMicros adds the micro steps of src's rows being appended (before
// their steps are).
func (r *Rows) appendMicros(src *Rows) {
	switch {
	case src.micro == nil && r.micro == nil:
	case src.micro == nil:
		for range src.Len() {
			r.micro = append(r.micro, NoMicro)
		}
	default:
		if r.micro == nil {
			r.materialiseMicro()
		}
		r.micro = append(r.micro, src.micro...)
	}
}

// placeMicros copies src's micro steps over rows off….
func (r *Rows) placeMicros(off int, src *Rows) {
	switch {
	case src.micro == nil && r.micro == nil:
	case src.micro == nil:
		fillNoMicro(r.micro[off : off+src.Len()])
	default:
		if r.micro == nil {
			r.materialiseMicro()
		}
		copy(r.micro[off:], src.micro)
	}
}

func fillNoMicro(v []int32) {
	for i := range v {
		v[i] = NoMicro
	}
}

// noMicros is the shared read-only run of NoMicro behind Micros.
var (
	noMicros   atomic.Pointer[[]int32]
	noMicrosMu sync.Mutex
)

// NoMicros is n NoMicro values, read-only (a shared array: never write
// into it).
func NoMicros(n int) []int32 {
	if p := noMicros.Load(); p != nil && len(*p) >= n {
		return (*p)[:n:n]
	}
	noMicrosMu.Lock()
	defer noMicrosMu.Unlock()
	if p := noMicros.Load(); p != nil && len(*p) >= n {
		return (*p)[:n:n]
	}
	size := max(n, 1024)
	if p := noMicros.Load(); p != nil {
		size = max(size, 2*len(*p))
	}
	v := make([]int32, size)
	fillNoMicro(v)
	noMicros.Store(&v)
	return v[:n:n]
}

// MakeMicro makes the column (NoMicro in every row) when it is not held:
// readers that fill rows from several goroutines make it first.
func (r *Rows) MakeMicro() {
	if r.micro == nil {
		r.materialiseMicro()
	}
}
