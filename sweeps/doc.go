// Package sweeps holds the long test matrices that cross formats: runs of
// testdata/synth written as trend.db, monitor CSV (v1, v2) and dump trees,
// read back through ingest and analysed by analysis, each case checked
// against its planted root cause. They live apart from analysis so that
// the pure package's tests stay fast and never import a reader.
//
// It has no code of its own; everything is in its tests.
package sweeps
