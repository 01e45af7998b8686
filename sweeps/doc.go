// Package sweeps holds the long test matrices, apart from analysis so that
// the pure package's tests stay fast and never import a reader:
//
//   - the format-crossing sweeps: runs of testdata/synth written as trend.db,
//     monitor CSV (v1, v2) and dump trees, read back through ingest and
//     analysed by analysis, each case checked against its planted root
//     cause (phase12_*, phase2_events_readers, pipeline_stages_readers,
//     phase3_align_ondisk);
//   - the long matrices on synth's runs that need only analysis' exported
//     API: Phase 3 on four-group dumps (phase3_*matrix; the sweep's cases
//     are synth.TraceMatrix, a few of which analysis runs too).
//
// It has no code of its own; everything is in its tests.
package sweeps
