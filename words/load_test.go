package words

import (
	"math"
	"regexp"
	"strings"
	"testing"

	"spikescope/model"
)

var digits = regexp.MustCompile(`\d+(?:\.\d+)?`)

// sayBoth checks a reason with values: English and Chinese differ, the
// Chinese holds no English sentence and every number of the English.
func sayBoth(t *testing.T, r model.Reason) {
	t.Helper()
	en, zh := Say(r, English), Say(r, Chinese)
	if en == zh || !hasHan(zh) {
		t.Errorf("%s: no Chinese sentence: %q", r.Rule(), zh)
	}
	if s := EnglishSentence(zh); s != "" {
		t.Errorf("%s: the Chinese holds English %q: %q", r.Rule(), s, zh)
	}
	for _, n := range digits.FindAllString(en, -1) {
		if !strings.Contains(zh, n) {
			t.Errorf("%s: %s of %q is not in %q", r.Rule(), n, en, zh)
		}
	}
}

// Every reader warning, with values, says the same numbers in Chinese
// without an English sentence (an error's own text, Err, stays as it
// came: here a path).
func TestLoadReasonsChinese(t *testing.T) {
	p := "/runs/job7/rank3/grad_unreduced_12-12.csv"
	for _, r := range []model.Reason{
		model.TrendImmutable{Why: model.ImmutableNotWritable},
		model.TrendImmutable{Why: model.ImmutableWALNoWriter},
		model.TrendImmutable{Why: model.ImmutableReadOnlyFail, Message: "SQLITE_CANTOPEN 14"},
		model.TrendImmutable{Why: model.ImmutableForeignWAL, WAL: "m.db-wal", Foreign: model.ForeignRollback},
		model.TrendImmutable{Why: model.ImmutableForeignWAL, WAL: "m.db-wal", Foreign: model.ForeignPageSize, WALPage: 4096, DBPage: 1024},
		model.TrendImmutable{Why: model.ImmutableForeignWAL, WAL: "m.db-wal", Foreign: model.ForeignReplaced},
		model.TrendWriteTransaction{Journal: "m.db-journal"},
		model.TrendWAL{WAL: "m.db-wal"},
		model.TrendAppeared{File: "m.db-wal", AsOf: model.TrendAsOf{Locked: true, At: "12:03:04.500", Rows: 1234}},
		model.TrendAppeared{File: "m.db-journal"},
		model.TrendCommitted{AsOf: model.TrendAsOf{Locked: true, At: "12:03:04.500", Rows: 99}},
		model.TrendNoRows{},
		model.TrendFromDump{Metrics: []string{"Norm", "Max"}},
		model.TrendMetricAbsent{Table: "gena_3", Metric: 3},
		model.TrendGenA{},
		model.TrendUnknownIDs{Rows: 12, IDs: []int64{7, 8}, More: true},
		model.TrendUnknownIDs{Metric: true, Rows: 3, IDs: []int64{5}},
		model.TrendBadKeyRows{Rows: 4, Problem: "rank -1"},
		model.TrendBadCells{Cells: 3, Stat: "norm", At: []model.CellAt{{Rank: 2, Step: 5, Target: "layers.0.w"}}, More: true},
		model.TrendBadCells{Cells: 1, Stat: "max", At: []model.CellAt{{Rank: 1, Step: 6, Target: "layers.1.w"}}},
		model.TrendTextNumbers{Cells: 17},
		model.TrendDuplicateRows{Rows: 6, Rank: 3, Step: 11, Target: "layers.2.w", Metric: "grad_unreduced"},
		model.TrendSeveralDBs{Dir: "/runs/a", Read: "a.db", Others: []string{"b.db", "c.db"}},
		model.NamesEscaped{Count: 2, First: `x\x01`},
		model.NamesEscaped{Operators: true, Count: 5, First: `op\x02`},
		model.StatNoNorm{Have: []string{"min", "max"}},
		model.StatAllMissing{Stat: "norm", Rows: 40, Norm: true},
		model.StatAllMissing{Stat: "mean", Rows: 41},
		model.GradsNone{Path: "/dumps/step3"},
		model.GradsCallCounts{A: "w1", CountA: 4, B: "w2", CountB: 3},
		model.GradsCallCounters{Path: "/dumps", Rank: 2, Step: 7, Prev: []int{4, 5}, Next: []int{0, 1}},
		model.DumpEmpty{Path: "/d/dump.json", Kind: model.DumpEmptyBraces},
		model.DumpEmpty{Path: "/d/dump.json", Kind: model.DumpNoData},
		model.DumpEmpty{Path: "/d/dump.json", Kind: model.DumpDataEmpty},
		model.DumpTaskNoStats{Path: "/d/dump.json", Task: "overflow_check"},
		model.DumpNoStats{Path: "/d/dump.json", Tensors: 12, Task: "statistics"},
		model.DumpBadKeys{Path: "/d/dump.json", Count: 2, Keys: []string{"k1", "k2"}},
		model.DumpDuplicateKeys{Path: "/d/dump.json", Count: 3, First: "Torch.a.0.forward"},
		model.DumpNotObjects{Path: "/d/dump.json", Count: 1, First: "Torch.b.1.forward"},
		model.DumpSideIgnored{Path: "/d/stack.json", Err: "/d/stack.json"},
		model.DumpSkipped{Err: "/d/rank1/dump.json"},
		model.DumpSameStepRank{A: "/d/rank", B: "/d/rank0", Step: 2, Rank: 0},
		model.DumpFolder{Path: "/d/step1/step1", Kind: model.FolderStepRank0},
		model.DumpFolder{Path: "/d/step1/step1", Kind: model.FolderStepAsRank},
		model.DumpFolder{Path: "/d/stepX", Kind: model.FolderStepName},
		model.DumpFolder{Path: "/d/step1/rank4", Kind: model.FolderNoDump},
		model.DumpFolder{Path: "/d/step1/rank4", Kind: model.FolderCannotRead, Err: "/d/step1/rank4"},
		model.DumpFolder{Path: "/d/step1/rank4", Kind: model.FolderUnreadable, Err: "/d/step1/rank4"},
		model.DumpFolder{Path: "/d", Kind: model.FolderBothModes},
		model.MemoryNear{Path: "/runs/a.db", Rows: 12_345_678, Peak: "3.2 GiB", Limit: "4 GiB", Default: true, Percent: 80},
		model.MemoryNear{Path: "/runs/a.db", Baseline: "/runs/b.db", Rows: 12_345, Peak: "3.2 GiB", Limit: "4 GiB"},
		model.MetricNotFound{Asked: "grad_reduced", Analysed: "grad_unreduced"},
		model.CSVSkippedFiles{Skipped: 3, Total: 13},
		model.CSVSkippedFile{Err: p},
		model.CSVMoreSkipped{Count: 2},
		model.CSVNoRows{Files: 4},
		model.CSVRuns{Rank: 1, Folders: []string{"r-1", "r-2"}},
		model.CSVRuns{Rank: 1, Folders: []string{"r-1", "r-2"}, Ordered: true},
		model.CSVRuns{Rank: 1, Folders: []string{"r-1", "r-2"}, Ordered: true, Dropped: 6},
		model.CSVIncompleteLine{Path: p, Line: 42},
		model.CSVBadLines{Path: p, Count: 3, Problems: []string{"x1", "x2"}, More: true},
		model.CSVHeaderOnly{Path: p, Rank: 3},
		model.CSVUnreadable{Path: p, Err: p},
		model.CSVNoRankFolder{Count: 2, Example: p},
		model.CSVNotMonitor{Count: 1, Example: "notes.csv"},
		model.CSVFileName{Path: p, Metric: "grad"},
		model.CSVNotRankFolder{Path: p},
		model.FollowListFailed{Err: p},
		model.FollowNewRunFolder{Path: p},
		model.FollowCut{Path: p, Replaced: true, Before: 100, Now: 50},
		model.FollowCut{Path: p, Before: 100, Now: 50},
		model.FollowWrittenAnew{Path: p, Line: 9},
		model.FollowSkippedNew{Err: p},
		model.FollowRereadFailed{Err: p},
		model.FollowDBUnreadable{Err: p},
		model.FollowNowReading{File: "b.db", Was: "a.db"},
		model.RankMissingSteps{Rank: 1, Have: 2, Total: 4, Missing: "0-1"},
		model.MoreRanksMissingSteps{Count: 3},
	} {
		sayBoth(t, r)
	}
}

// The verdict's reasons with values (the nil pointers and empty names of
// the zero values aside).
func TestVerdictReasonsChinese(t *testing.T) {
	band, layer, ms := 0.0322, 2, 1
	spot := model.VerdictSpot{Has: true, Step: 5, Rank: 3, MicroStep: &ms}
	loc := model.VerdictLoc{Has: true, Direction: "fwd", Layer: &layer, Operator: "NPU.npu_swiglu.2.forward"}
	for _, r := range []model.Reason{
		model.EvidenceDeviceSpecific{Rank: 3, Step: 5, Parameter: "layers.2.w", Ratio: 4.5, Threshold: 2},
		model.EvidenceShared{Candidates: 4, Step: 5, Threshold: 2},
		model.EvidenceSharedNonFinite{NonFiniteCounts: model.NonFiniteCounts{Step: 5, Ranks: 8, RanksTotal: 8, Candidates: 2}},
		model.EvidenceNonFinite{NonFiniteCounts: model.NonFiniteCounts{Step: 5, Ranks: 6, RanksTotal: 8, Candidates: 2}},
		model.EvidenceRunWideGrowth{Ranks: 7, RanksTotal: 8, Step: 5, Share: 60, Events: 2},
		model.EvidenceExtent{Step: 5, Ranks: 1, RanksTotal: 8, Parameters: 3, ParametersPerRank: 39},
		model.EvidenceExtent{Step: 5, Ranks: 1, RanksTotal: 8, Parameters: 30, ParametersPerRank: 39},
		model.EvidenceExtent{Step: 5, Ranks: 7, RanksTotal: 8, Parameters: 30, ParametersPerRank: 39},
		model.EvidenceParamUndecided{Rank: 3, Parameters: 28},
		model.EvidenceRecurs{Rank: 3, Events: 2},
		model.EvidenceP3Divergence{Direction: "bwd", Layer: &layer, Operator: "op.2", Band: &band, Metric: "Norm", Degraded: true},
		model.EvidenceP3Divergence{Direction: "fwd"},
		model.EvidenceP3NonFinite{Operator: "Functional.softmax.3.forward"},
		model.EvidenceP3Consistent{Layers: 4},
		model.ActionKernelOwner{Spot: spot, Loc: loc},
		model.ActionKernelOwner{Spot: spot},
		model.ActionBadDevice{Spot: spot, Loc: loc},
		model.ActionInspectBatch{Spot: spot},
		model.ActionCollect{Spot: spot, Decide: model.Decide{BaselineMonitor: true, Dumps: true, Spot: spot}},
		model.ActionCollect{Spot: spot, Decide: model.Decide{Dumps: true, Spot: spot}},
		model.Decide{BaselineMonitor: true, Dumps: true, Spot: spot},
		model.Decide{Dumps: true},
	} {
		sayBoth(t, r)
	}
}

// A NaN/Inf gradient against the baseline device's finite one has no ratio:
// the evidence says so instead of printing "NaN×".
func TestDeviceSpecificNonFiniteSaysNoRatio(t *testing.T) {
	r := model.EvidenceDeviceSpecific{Rank: 0, Step: 1, Parameter: "p", Ratio: math.NaN(), Threshold: 2}
	for _, l := range []Lang{English, Chinese} {
		s := Say(r, l)
		if strings.Contains(s, "NaN×") || strings.Contains(s, "NaN 倍") || !strings.Contains(s, "NaN/Inf") {
			t.Errorf("%s: %q", l, s)
		}
	}
}
