package model

import (
	"strconv"
	"strings"
)

// StageLayout is the pipeline-parallel shape Phase 1 inferred from the
// parameter set each rank holds (method.md, Phase 1 step 1): with PP and
// one chunk per stage msprobe writes vpp_stage 0 everywhere and every stage
// numbers its layers from 0, so the stage of a rank is read from what it
// holds — the embedding on the first stage, the final norm / output layer
// on the last, the same names on the ranks of one stage.
type StageLayout struct {
	// Stages is the number of pipeline stages (1 when the run has one, or
	// when they could not be inferred: see Inferred and Note).
	Stages int `json:"stages"`
	// Inferred is true when every rank's stage is known; then same-named
	// parameters of different stages are analysed apart and named
	// "pp<stage>:<name>".
	Inferred bool `json:"inferred"`
	// Method says how the stages were found ("markers: ...").
	Method string `json:"method,omitempty"`
	// RankStages maps a rank (decimal string, as in target_rank_norms) to
	// its stage.
	RankStages map[string]int `json:"rank_stages,omitempty"`
	// LayersPerStage is the number of transformer layers each stage holds
	// (local numbers 0..n-1), over all its model chunks; LayerOffsets the
	// global number of each stage's first layer. Both nil when unknown
	// (filtered target lists, interleaved chunks of unequal size).
	LayersPerStage []int `json:"layers_per_stage,omitempty"`
	LayerOffsets   []int `json:"layer_offsets,omitempty"`
	// ChunkLayers is the layer count of one model chunk with VPP (global
	// layer = (vpp·PP + stage)·ChunkLayers + local); 0 without VPP.
	ChunkLayers int `json:"chunk_layers,omitempty"`
	// Note explains a shape that could not be inferred, in the user's terms.
	Note string `json:"note,omitempty"`
	// MethodReason and NoteReason are Method and Note as data (words
	// fills the texts).
	MethodReason Reason `json:"-"`
	NoteReason   Reason `json:"-"`
}

// StageOf returns the stage of a rank, -1 when unknown.
func (p *StageLayout) StageOf(rank int) int {
	if p == nil || !p.Inferred {
		return -1
	}
	if s, ok := p.RankStages[strconv.Itoa(rank)]; ok {
		return s
	}
	return -1
}

// GlobalLayer is the global number of local layer n of (stage, vpp chunk);
// -1 when the layer counts are unknown.
func (p *StageLayout) GlobalLayer(stage, vpp, n int) int {
	if p == nil || !p.Inferred || stage < 0 || n < 0 {
		return -1
	}
	if p.ChunkLayers > 0 {
		return (vpp*p.Stages+stage)*p.ChunkLayers + n
	}
	if stage >= len(p.LayerOffsets) || vpp != 0 {
		return -1
	}
	return p.LayerOffsets[stage] + n
}

// GlobalLayerOf is the global layer of a candidate's parameter (name with
// or without its stage prefix) on rank; -1 when unknown.
func (p *StageLayout) GlobalLayerOf(rank, vpp int, name string) int {
	n, ok := LayerIndex(name)
	if !ok {
		return -1
	}
	return p.GlobalLayer(p.StageOf(rank), vpp, n)
}

// StageRanks lists the ranks of every stage, ascending.
func (p *StageLayout) StageRanks() [][]int {
	if p == nil || !p.Inferred || p.Stages < 1 {
		return nil
	}
	out := make([][]int, p.Stages)
	for k, s := range p.RankStages {
		r, err := strconv.Atoi(k)
		if err != nil || s < 0 || s >= p.Stages {
			continue
		}
		out[s] = append(out[s], r)
	}
	for _, rs := range out {
		for i := 1; i < len(rs); i++ { // insertion sort: few ranks
			for j := i; j > 0 && rs[j] < rs[j-1]; j-- {
				rs[j], rs[j-1] = rs[j-1], rs[j]
			}
		}
	}
	return out
}

// StageSummary is one line per stage: "stage 1: ranks 2-3, layers 4-7"
// (layers only when the counts are known). words are the user's words for
// "stage", "ranks" and "layers".
func (p *StageLayout) StageSummary(stage, ranks, layers string) []string {
	var out []string
	for s, rs := range p.StageRanks() {
		line := stage + " " + strconv.Itoa(s) + ": " + ranks + " " + intSpans(rs)
		if s < len(p.LayerOffsets) && s < len(p.LayersPerStage) && p.LayersPerStage[s] > 0 {
			line += ", " + layers + " " + strconv.Itoa(p.LayerOffsets[s]) + "-" + strconv.Itoa(p.LayerOffsets[s]+p.LayersPerStage[s]-1)
		}
		out = append(out, line)
	}
	return out
}

// intSpans prints sorted ints as "0-3,8,10-11".
func intSpans(xs []int) string {
	var b strings.Builder
	for i := 0; i < len(xs); {
		j := i
		for j+1 < len(xs) && xs[j+1] == xs[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(xs[i]))
		if j > i {
			b.WriteString("-" + strconv.Itoa(xs[j]))
		}
		i = j + 1
	}
	return b.String()
}
