package model

import (
	"cmp"
	"math"
	"slices"
	"strconv"
)

// GradNorm is the global gradient norm around the root step, computed from
// the monitor rows, and the share of its increase by parameter, layer and
// rank: what a user who arrives with a grad-norm spike from the training
// log compares with the log line. Numbers only; the faces word them.
//
// A rank's norm at an optimizer step is sqrt(Σ n²) over the parameters it
// holds, n being each parameter's norm of the whole step's gradient (the
// last micro step's cumulative norm on micro-step data). It is the model's
// norm only when the rank holds the whole model; with pipeline stages the
// model's norm sums one rank of every stage (Model). Tensor-parallel shards
// that carry the whole parameter's name and data-parallel replicas cannot
// be told apart from the rows: no number here accounts for them.
type GradNorm struct {
	// Metric is the monitor metric the norms are of (grad_unreduced: each
	// rank's own gradient before the data-parallel average; grad_reduced:
	// after it, what the optimizer sees).
	Metric string `json:"metric"`
	// Root is the root optimizer step; nil when the run has none (then
	// Steps are its latest steps and Share.Outcome is ShareNoRoot).
	Root *int `json:"root_step"`
	// StepsKnown is false when the optimizer step of a row could not be
	// told (irregular accumulation windows): then nothing else is set.
	StepsKnown bool `json:"steps_known"`
	// Steps are the optimizer steps shown, ascending; Ranks every rank.
	Steps []int `json:"steps"`
	Ranks []int `json:"ranks"`
	// Norm[i][j] is rank Ranks[j]'s norm at Steps[i] over Params[i][j]
	// parameters (0: the rank has no row at that step, Norm NaN), of which
	// NonFinite[i][j] are NaN or ±Inf (then Norm is NaN or Inf).
	Norm      [][]Float `json:"norm"`
	Params    [][]int   `json:"params"`
	NonFinite [][]int   `json:"non_finite"`
	// StageRanks are the ranks of every pipeline stage when the stages were
	// inferred (nil with one stage: each rank's norm is then the model's).
	// Model[i] is the model's norm at Steps[i]: sqrt of the sum of n² over
	// ModelRanks, the lowest rank of every stage (NaN when one of them has
	// no row there).
	StageRanks [][]int `json:"stage_ranks,omitempty"`
	ModelRanks []int   `json:"model_ranks,omitempty"`
	Model      []Float `json:"model,omitempty"`
	// Reduced[i] is the model's norm at Steps[i] in grad_reduced (the
	// gradient after the data-parallel average, alike on every rank of a
	// stage): sqrt(Σ n²) over ReducedRanks, one rank of every stage — the
	// number the training log prints before clipping, up to tensor-parallel
	// shards. nil when the data holds no grad_reduced, or Metric is it.
	Reduced      []Float `json:"reduced,omitempty"`
	ReducedRanks []int   `json:"reduced_ranks,omitempty"`
	// Shares[i] is Steps[i]'s Σ n² against the reference level before the
	// root step and its decomposition: the root step's and every later
	// step's (the log's spike may come a step after the root); the
	// reference steps have ShareReference, every step ShareNoRoot without
	// a root.
	Shares []GradNormShare `json:"shares"`
	// PeakStep is the step, from the root step on, the log shows as the
	// spike: a non-finite one first, else the largest Σ n² that rose
	// clearly (the all-rank norm at least Phase 1's minimum effect times
	// the reference's); nil when none did.
	PeakStep *int `json:"peak_step"`
}

// RootShare is the root step's share (nil without a root step).
func (g *GradNorm) RootShare() *GradNormShare {
	if i := g.RootIndex(); i >= 0 && i < len(g.Shares) {
		return &g.Shares[i]
	}
	return nil
}

// MostParams is the most parameters any rank holds at any shown step: what
// "a rank's norm is over up to N parameters" says.
func (g *GradNorm) MostParams() int {
	n := 0
	for _, row := range g.Params {
		for _, c := range row {
			n = max(n, c)
		}
	}
	return n
}

// Peak is the position of PeakStep in Steps, -1 without one.
func (g *GradNorm) Peak() int {
	if g == nil {
		return -1
	}
	return g.stepIndex(g.PeakStep)
}

// stepIndex is the position of step s in Steps, -1 when s is nil or not
// shown.
func (g *GradNorm) stepIndex(s *int) int {
	if s == nil {
		return -1
	}
	return slices.Index(g.Steps, *s)
}

// ShareOutcome says whether the increase could be shared out.
type ShareOutcome string

const (
	// ShareIncrease: Σ n² rose from the reference to the root step; the
	// parts hold its share.
	ShareIncrease ShareOutcome = "increase"
	// ShareDecrease: Σ n² did not rise: there is no increase to share.
	ShareDecrease ShareOutcome = "decrease"
	// ShareNonFinite: a norm at the root step is NaN or Inf: that is the
	// answer by itself (NonFiniteParts says where).
	ShareNonFinite ShareOutcome = "non_finite"
	// ShareNoReference: no step before the root step in the window.
	ShareNoReference ShareOutcome = "no_reference"
	// ShareNoRoot: the run has no root step.
	ShareNoRoot ShareOutcome = "no_root"
	// ShareReference: a step before the root step (part of the reference).
	ShareReference ShareOutcome = "reference"
)

// GradNormShare is one step's Σ n² (the root step's or a later one's) against the reference level (each
// (rank, parameter)'s median n² over the Reference steps), and the exact
// decomposition of the difference: Δ = Σ over (rank, parameter) of Δn².
type GradNormShare struct {
	Step    int          `json:"step"`
	Outcome ShareOutcome `json:"outcome"`
	// Reference are the steps before the root step the reference level is
	// the median of.
	Reference []int `json:"reference_steps,omitempty"`
	// RefSq and RootSq are Σ n² over every rank's compared parameters at
	// the reference level and at the root step; their square roots are the
	// norms of all ranks' gradients together.
	RefSq  Float `json:"ref_sq"`
	RootSq Float `json:"root_sq"`
	// Compared counts the (rank, parameter) pairs in the sum; Uncompared
	// those with a finite value on one side only (left out of both sides).
	Compared   int `json:"compared"`
	Uncompared int `json:"uncompared"`
	// ByParam, ByLayer and ByRank are Δn² summed per parameter (over the
	// ranks holding it), per layer and per rank, largest share first; each
	// list's shares sum to 1 (a part that fell has a negative share).
	ByParam []GradNormPart `json:"by_param,omitempty"`
	ByLayer []GradNormPart `json:"by_layer,omitempty"`
	ByRank  []GradNormPart `json:"by_rank,omitempty"`
	// NonFiniteParts are the (rank, parameter) pairs whose norm is NaN or
	// Inf at the root step (the first few, rank then name), of
	// NonFiniteCount in all.
	NonFiniteParts []GradNormPart `json:"non_finite_parts,omitempty"`
	NonFiniteCount int            `json:"non_finite_count,omitempty"`
}

// GradNormPart is one parameter, layer or rank of the decomposition.
type GradNormPart struct {
	// Param is the parameter's name as the analysis names it (with its
	// pipeline stage: "pp1:layers.2…"); "" for a layer or rank part.
	Param string `json:"param,omitempty"`
	// Layer is the transformer layer (-1: the parameters outside the
	// layers: embedding, final norm, output); GlobalLayer says it is the
	// model's layer number, else it is the stage-local number of Stage
	// and VPP chunk VPP. Set for parameter and layer parts.
	Layer       int  `json:"layer"`
	GlobalLayer bool `json:"global_layer,omitempty"`
	Stage       int  `json:"pp_stage"` // -1: no stages
	VPP         int  `json:"vpp_stage"`
	// Rank is set for rank parts and non-finite pairs (-1 otherwise).
	Rank int `json:"rank"`
	// Ranks counts the ranks summed into a parameter or layer part.
	Ranks int `json:"ranks,omitempty"`
	// Ref and Root are the part's Σ n² at the reference level and the root
	// step; Share is (Root − Ref) / (RootSq − RefSq).
	Ref   Float `json:"ref_sq"`
	Root  Float `json:"root_sq"`
	Share Float `json:"share"`
}

// GradNormMoved says what moved the norm: one parameter, one layer, one
// rank, or everything (no part holds DominantShare of the increase).
type GradNormMoved int

const (
	MovedNothing GradNormMoved = iota // no increase was shared out
	MovedParam
	MovedLayer
	MovedRank
	MovedSpread
)

// DominantShare is the share of the increase one part must hold to be
// named as what moved: more than half, so that at most one part of each
// kind can be.
const DominantShare = 0.5

// Moved is what moved the norm, finest first (a parameter before its layer,
// a layer before a rank), and the part that holds the share (nil for
// MovedSpread and MovedNothing).
func (s *GradNormShare) Moved() (GradNormMoved, *GradNormPart) {
	if s.Outcome != ShareIncrease {
		return MovedNothing, nil
	}
	for _, k := range []struct {
		m     GradNormMoved
		parts []GradNormPart
	}{{MovedParam, s.ByParam}, {MovedLayer, s.ByLayer}, {MovedRank, s.ByRank}} {
		if len(k.parts) > 0 && float64(k.parts[0].Share) > DominantShare {
			return k.m, &k.parts[0]
		}
	}
	return MovedSpread, nil
}

// RootIndex is the position of Root in Steps, -1 without a root step.
func (g *GradNorm) RootIndex() int { return g.stepIndex(g.Root) }

// ShareText is a share of the increase as a percentage with one decimal
// ("15.8%"; NaN/Inf by name): the screen and the report say it alike.
func ShareText(v Float) string {
	if w, ok := NonFiniteWord(float64(v)); ok {
		return w
	}
	s := strconv.FormatFloat(100*float64(v), 'f', 1, 64)
	if s == "-0.0" {
		s = "0.0"
	}
	return s + "%"
}

// StepList is a list of steps, a run of three or more consecutive ones as
// "2–4" ("2, 5, 9" otherwise).
func StepList(s []int) string {
	if n := len(s); n >= 3 && s[n-1]-s[0] == n-1 {
		return strconv.Itoa(s[0]) + "–" + strconv.Itoa(s[n-1])
	}
	return JoinInts(s, ", ")
}

// RankValue is one rank's norm at a step.
type RankValue struct {
	Rank int
	Norm float64
}

// RankSpread is the highest, median and lowest rank norm at Steps[i] over
// the ranks with a row there; ok is false when none has. A NaN norm ranks
// with +Inf (it is the worst a rank can show) and is returned as NaN, so
// that both faces show the rank that broke as it is; the median counts it
// as +Inf.
func (g *GradNorm) RankSpread(i int) (hi, lo RankValue, med float64, ok bool) {
	var vs []RankValue
	for j, r := range g.Ranks {
		if g.Params[i][j] > 0 {
			vs = append(vs, RankValue{r, float64(g.Norm[i][j])})
		}
	}
	if len(vs) == 0 {
		return hi, lo, 0, false
	}
	key := func(x RankValue) float64 {
		if math.IsNaN(x.Norm) {
			return math.Inf(1)
		}
		return x.Norm
	}
	slices.SortStableFunc(vs, func(a, b RankValue) int { return cmp.Compare(key(a), key(b)) })
	n := len(vs)
	med = key(vs[n/2])
	if n%2 == 0 {
		med = (key(vs[n/2-1]) + key(vs[n/2])) / 2
	}
	return vs[n-1], vs[0], med, true
}
