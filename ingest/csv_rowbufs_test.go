package ingest

import (
	"context"
	"reflect"
	"runtime"
	"testing"

	"spikescope/model"
)

// rowsBytes is the memory the columns of r hold (their capacity).
func rowsBytes(r *model.Rows) int {
	n := 4*(cap(r.Rank)+cap(r.Step)+cap(r.MicroColumn())+cap(r.Target)) + cap(r.Metric) + 8*cap(r.Norm)
	for _, c := range r.Stats {
		n += 4 * cap(c)
	}
	return n
}

// TestCSVLoadReusesRowBuffers: a tree's files are parsed into recycled
// arrays, so a load allocates little beyond the merged rows it returns
// (with new arrays per file it allocated them about twice), and the rows
// are those of merging every file parsed into arrays of its own.
func TestCSVLoadReusesRowBuffers(t *testing.T) {
	root := t.TempDir()
	// enough rows that the readers' fixed buffers (a 256 KiB read buffer per
	// file in flight, whose count varies with scheduling) are small beside
	// the rows: 40 steps measured 13.6–21.4 B/row besides, against a bound
	// of 19.7
	shape := BenchShape{Ranks: 4, Targets: 500, Metrics: 2, Steps: 160}
	WriteMonitorCSVTree(t, root, shape)

	// two readers, as on the machines measured: the buffers in flight grow
	// with the readers, not with the rows
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	d, err := LoadCSV(context.Background(), root, nil)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if d.Rows.Len() != csvTreeRows(shape) {
		t.Fatalf("%d rows, want %d", d.Rows.Len(), csvTreeRows(shape))
	}
	held := rowsBytes(&d.Rows)
	extra := int(after.TotalAlloc-before.TotalAlloc) - held
	t.Logf("rows %d, held %d B (%.1f B/row), allocated besides %d B (%.1f B/row)", d.Rows.Len(), held, float64(held)/float64(d.Rows.Len()), extra, float64(extra)/float64(d.Rows.Len()))
	if extra > held/2 && !raceDetector {
		t.Errorf("the load allocated %d bytes besides the %d bytes of rows it returns: per-file rows are not reused", extra, held)
	}

	// the reference: every file parsed into new arrays, merged in file order
	disc, err := findMonitorCSVs(root)
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, f := range disc.files {
		total += f.size
	}
	m := &csvMerger{d: &model.MonitorData{Path: root, Format: model.FormatCSV}, totalBytes: total,
		targets: map[targetKey]int32{}, metrics: map[string]uint8{}, runOrder: disc.runOrder}
	for _, f := range disc.files {
		r, err := readCSVFile(context.Background(), f, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.add(f, r); err != nil {
			t.Fatal(err)
		}
	}
	if !reflect.DeepEqual(d.Rows, m.d.Rows) || !reflect.DeepEqual(d.Targets, m.d.Targets) || !reflect.DeepEqual(d.Metrics, m.d.Metrics) {
		t.Fatal("the load with recycled row arrays differs from merging each file's own rows")
	}
}
