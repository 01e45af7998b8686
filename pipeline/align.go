package pipeline

import (
	"context"
	"sort"

	"spikescope/analysis"
	"spikescope/ingest"
	"spikescope/model"
	"spikescope/words"
)

// AlignReport is what `spikescope inspect A --against B` adds: how many of
// A's records have a comparable counterpart in B (Phase 3's key alignment,
// with the name map across frameworks).
type AlignReport struct {
	A string `json:"a"` // the dump folders compared
	B string `json:"b"`
	analysis.AlignmentSummary
}

// AlignAgainst aligns the inspected dump with the dump of against (inspect
// --against; mapping: msprobe's layer-mapping YAML, optional) into
// rep.Alignment; nothing without against.
func (rep *InspectReport) AlignAgainst(ctx context.Context, against, mapping string) (err error) {
	if against != "" {
		rep.Alignment, err = AlignDumpTrees(ctx, rep.Path, against, mapping, rep.lang)
	}
	return err
}

// AlignDumpTrees aligns the dump of path with the dump of against at the
// same step and rank (else against's first dump), its texts said in lang.
func AlignDumpTrees(ctx context.Context, path, against, mapping string, lang Lang) (*AlignReport, error) {
	var lm *model.LayerMapping
	if mapping != "" {
		var err error
		if lm, err = ingest.ReadLayerMapping(mapping); err != nil {
			return nil, err
		}
	}
	ta, err := loadNonEmptyTree(ctx, path, lang)
	if err != nil {
		return nil, err
	}
	tb, err := loadNonEmptyTree(ctx, against, lang)
	if err != nil {
		return nil, err
	}
	a := ta.Dumps[0]
	b := tb.Find(a.Step, a.Rank)
	if b == nil {
		b = tb.Dumps[0]
	}
	sum := analysis.AlignDumps(a, b, lm)
	if sum.NoteReason != nil {
		sum.Note = words.Say(sum.NoteReason, lang)
	}
	for i := range sum.Reasons {
		sum.Reasons[i].Reason = words.Say(sum.Reasons[i].Why, lang)
	}
	sort.SliceStable(sum.Reasons, func(i, j int) bool { // most frequent first, then by what they say
		ri, rj := sum.Reasons[i], sum.Reasons[j]
		return ri.Count > rj.Count || ri.Count == rj.Count && ri.Reason < rj.Reason
	})
	return &AlignReport{A: a.Path, B: b.Path, AlignmentSummary: sum}, nil
}

// loadNonEmptyTree loads a dump tree that must hold at least one dump.
func loadNonEmptyTree(ctx context.Context, path string, lang Lang) (*model.DumpTree, error) {
	t, err := ingest.LoadDumpTree(ctx, path, nil)
	if err != nil {
		return nil, err
	}
	words.DumpTree(t, lang)
	if len(t.Dumps) == 0 {
		return nil, &ingest.InputError{Path: path, Problem: "no dump.json found"}
	}
	return t, nil
}
