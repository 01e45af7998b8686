package main

import (
	"context"
	"fmt"
	"io"

	"spikescope/analysis"
	"spikescope/ingest"
	"spikescope/model"
)

// AlignReport is what `spikescope inspect A --against B` adds: how many of
// A's records have a comparable counterpart in B (Phase 3's key alignment,
// with the name map across frameworks).
type AlignReport struct {
	A string `json:"a"` // the dump folders compared
	B string `json:"b"`
	analysis.AlignmentSummary
}

// inspectAgainst aligns the dump of path with the dump of against at the
// same step and rank (else against's first dump).
func inspectAgainst(ctx context.Context, path, against, mapping string) (*AlignReport, error) {
	var lm *model.LayerMapping
	if mapping != "" {
		var err error
		if lm, err = ingest.ReadLayerMapping(mapping); err != nil {
			return nil, err
		}
	}
	ta, err := loadOneTree(ctx, path)
	if err != nil {
		return nil, err
	}
	tb, err := loadOneTree(ctx, against)
	if err != nil {
		return nil, err
	}
	a := ta.Dumps[0]
	b := tb.Find(a.Step, a.Rank)
	if b == nil {
		b = tb.Dumps[0]
	}
	return &AlignReport{A: a.Path, B: b.Path, AlignmentSummary: analysis.AlignDumps(a, b, lm)}, nil
}

// loadOneTree loads a dump tree that must hold at least one dump.
func loadOneTree(ctx context.Context, path string) (*model.DumpTree, error) {
	t, err := ingest.LoadDumpTree(ctx, path, nil)
	if err != nil {
		return nil, err
	}
	if len(t.Dumps) == 0 {
		return nil, &ingest.InputError{Path: path, Problem: "no dump.json found"}
	}
	return t, nil
}

// inspectAlignReasons is how many reasons the text output lists.
const inspectAlignReasons = 5

// writeAlignText prints the alignment for people.
func writeAlignText(w io.Writer, r *AlignReport) {
	fmt.Fprintf(w, "aligned:     %d of %d records of A (%s) have a comparable record in B (%s)\n", r.Aligned, r.Records, r.A, r.B)
	if r.Note != "" {
		fmt.Fprintf(w, "             %s\n", r.Note)
	}
	for i, rc := range r.Reasons {
		if i == inspectAlignReasons {
			fmt.Fprintf(w, "             … %d more reasons\n", len(r.Reasons)-i)
			break
		}
		fmt.Fprintf(w, "  %6d not aligned: %s\n", rc.Count, rc.Reason)
	}
}
