package model

// What the analysis lacked and what to collect next (Missing's WhatReason
// and NextReason, said by words.Missing in both languages). Steps and
// ranks are the run's numbers; dump steps are the dump tree's.

// MissingWhat names the data the analysis lacked (Kind: one of the
// Missing… kinds below). For MissingControl, WhyText is why no control
// group was chosen as the result says it, Why its reason (nil when read
// back from a saved result).
type MissingWhat struct {
	Kind    string
	Why     Reason
	WhyText string
}

func (MissingWhat) Rule() string { return "missing.what" }

// The kinds of MissingWhat.
const (
	MissingMonitor         = "monitor"          // the anomalous run's gradient monitor data
	MissingBaselineMonitor = "baseline_monitor" // the baseline device's (Phase 2)
	MissingPhase2          = "phase2"           // a saved Phase 2 result
	MissingCoordinate      = "coordinate"       // the root-cause coordinate
	MissingDumps           = "dumps"            // dump statistics (Phase 3 not run)
	MissingDumpA           = "dump_a"           // dump A at the root-cause coordinate
	MissingConfirmA        = "confirm_a"        // A is not at the root-cause coordinate
	MissingDumpBWithC      = "dump_b_with_c"    // B (Phase 3 compared A with C)
	MissingDumpB           = "dump_b"           // B (Phase 3 not run)
	MissingControl         = "control"          // the control group C/D
	MissingControlD        = "control_d"        // D, C's baseline
)

// NextMonitor: collect the anomalous run's monitor output or dumps.
type NextMonitor struct{}

func (NextMonitor) Rule() string { return "missing.next.monitor" }

// NextBaselineMonitor: monitor the baseline device and pass --baseline.
type NextBaselineMonitor struct{}

func (NextBaselineMonitor) Rule() string { return "missing.next.baseline_monitor" }

// NextPhase2: run select on the saved Phase 1, or report on the data.
type NextPhase2 struct{}

func (NextPhase2) Rule() string { return "missing.next.phase2" }

// NextPin: no coordinate was selected: pin one.
type NextPin struct{}

func (NextPin) Rule() string { return "missing.next.pin" }

// NextDumpsAB: dump A at Step/Rank and B at the same on the baseline;
// TrendDB: the steps are a trend.db's (re-based to 0). With StageRanks,
// Rank is on pipeline stage Stage of Stages and the control group belongs
// on another rank of it (StageRanks, More: more than those).
type NextDumpsAB struct {
	Step, Rank    int
	TrendDB       bool
	Stage, Stages int
	StageRanks    []int
	More          bool
}

func (NextDumpsAB) Rule() string { return "missing.next.dumps_ab" }

// NextDumpAOffset: the tree at Path has no dump at DumpStep on Rank
// (optimizer step OptStep; dump steps = optimizer steps + Offset); it has
// Steps.
type NextDumpAOffset struct {
	Path                            string
	DumpStep, Rank, OptStep, Offset int
	Steps                           []int
}

func (NextDumpAOffset) Rule() string { return "missing.next.dump_a_offset" }

// NextDumpA: the tree at Path has no dump at Step on Rank; it has Steps.
type NextDumpA struct {
	Path       string
	Step, Rank int
	Steps      []int
}

func (NextDumpA) Rule() string { return "missing.next.dump_a" }

// NextConfirmA: A is the dump of AStep/ARank, the root cause is at
// Step/Rank.
type NextConfirmA struct{ AStep, ARank, Step, Rank int }

func (NextConfirmA) Rule() string { return "missing.next.confirm_a" }

// NextDumpBWithC: dump A's Step/Rank on the baseline, and C's too.
type NextDumpBWithC struct{ Step, Rank int }

func (NextDumpBWithC) Rule() string { return "missing.next.dump_b_with_c" }

// NextDumpB: dump A's Step/Rank on the baseline.
type NextDumpB struct{ Step, Rank int }

func (NextDumpB) Rule() string { return "missing.next.dump_b" }

// NextControl: dump C and D at Step on ControlRank (-1: on a rank that is
// no Phase 1 candidate).
type NextControl struct{ Step, ControlRank int }

func (NextControl) Rule() string { return "missing.next.control" }

// NextControlD: dump C's Step/Rank on the baseline as D.
type NextControlD struct{ Step, Rank int }

func (NextControlD) Rule() string { return "missing.next.control_d" }
