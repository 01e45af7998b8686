package ingest

import (
	"sync"
	"sync/atomic"
	"time"

	"spikescope/model"
)

// progressInterval is how often, at most, a loader calls its ProgressFunc:
// often enough for a smooth loading bar, rare enough to cost nothing.
const progressInterval = 50 * time.Millisecond

// progressMeter counts units done from any goroutine and forwards the count
// to a ProgressFunc at most every progressInterval (and once at the end).
type progressMeter struct {
	fn    model.ProgressFunc
	input string
	unit  string
	total int64
	done  atomic.Int64
	mu    sync.Mutex
	last  time.Time
}

func newProgressMeter(fn model.ProgressFunc, input, unit string, total int64) *progressMeter {
	return &progressMeter{fn: fn, input: input, unit: unit, total: total}
}

// add records n more units done and reports if the interval has passed.
func (m *progressMeter) add(n int64) {
	if m == nil {
		return
	}
	d := m.done.Add(n)
	if m.fn == nil {
		return
	}
	if !m.mu.TryLock() {
		return // another goroutine is reporting right now
	}
	now := time.Now()
	if now.Sub(m.last) >= progressInterval {
		m.last = now
		m.fn(model.Progress{Input: m.input, Done: d, Total: m.total, Unit: m.unit})
	}
	m.mu.Unlock()
}

// finish reports the final count unconditionally.
func (m *progressMeter) finish() {
	if m == nil || m.fn == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.fn(model.Progress{Input: m.input, Done: m.done.Load(), Total: m.total, Unit: m.unit})
}
