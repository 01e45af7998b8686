package analysis

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"spikescope/model"
	"spikescope/testdata/synth"
)

// stagedValue is a JSON string value that starts with a stage prefix.
var stagedValue = regexp.MustCompile(`"pp\d+:`)

// On a PP=2 × VPP=2 run, the Phase 1 and Phase 2 results as written name
// every parameter as the input wrote it (no "pp1:vpp0:" anywhere in a name
// value), with the stage and chunk in pp_stage / vpp_stage; read back and
// restaged they are spikescope's own names again, candidate by candidate;
// the internal result is not changed by writing it. A pin copied from a
// written candidate (own name + rank, with or without vpp=, monitor v2's
// "<chunk>:" form, or the screens' stage-qualified name) pins that
// candidate's parameter.
func TestNamesAsWrittenRoundTripVPP(t *testing.T) {
	t.Parallel()
	run := synth.GenerateSweep(synth.SweepWith("pp2-vpp2", func(c *synth.Sweep) { c.PP = 2; c.VPP = 2 }))
	p1 := Phase1(run.Monitor(0), DefaultPhase1Options())
	if p1.Sharding.Stages == nil || p1.Sharding.Stages.Stages != 2 || len(p1.Sharding.VPPStages) != 2 || len(p1.Anomalies) == 0 {
		t.Fatalf("sharding %+v, %d candidates", p1.Sharding, len(p1.Anomalies))
	}
	internal := make([]string, len(p1.Anomalies))
	for i, a := range p1.Anomalies {
		internal[i] = a.TargetName
		if _, v, _, ok := model.StageParts(a.TargetName); !ok || v < 0 {
			t.Fatalf("candidate %d: internal name %q has no stage and chunk", i, a.TargetName)
		}
	}
	b, err := json.Marshal(p1.AsWritten())
	if err != nil {
		t.Fatal(err)
	}
	if m := stagedValue.Find(b); m != nil {
		i := stagedValue.FindIndex(b)[0]
		t.Fatalf("written Phase 1 JSON holds a stage-qualified name: %s", b[max(0, i-80):min(len(b), i+80)])
	}
	if !slices.Equal(internal, func() []string {
		out := make([]string, len(p1.Anomalies))
		for i, a := range p1.Anomalies {
			out[i] = a.TargetName
		}
		return out
	}()) {
		t.Fatal("AsWritten changed the internal result")
	}
	var back model.Phase1Result
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	for i, a := range back.Anomalies {
		st, v, own, _ := model.StageParts(internal[i])
		if a.TargetName != own || a.PPStage == nil || *a.PPStage != st || a.VPPStage != v {
			t.Fatalf("written candidate %d: %s pp %v vpp %d, want %s pp %d vpp %d", i, a.TargetName, a.PPStage, a.VPPStage, own, st, v)
		}
	}
	if len(back.TargetStages) != 4 { // 2 stages × 2 chunks
		t.Errorf("target_stages: %d groups", len(back.TargetStages))
	}
	back.Restage()
	for i, a := range back.Anomalies {
		if a.TargetName != internal[i] {
			t.Fatalf("restaged candidate %d: %s, want %s", i, a.TargetName, internal[i])
		}
	}
	if !slices.Equal(back.Targets, p1.Targets) && !sameSet(back.Targets, p1.Targets) {
		t.Errorf("restaged targets differ: %d vs %d", len(back.Targets), len(p1.Targets))
	}
	for k, v := range p1.TargetRankNorms {
		if back.TargetRankNorms[k].TargetName != v.TargetName {
			t.Errorf("target_rank_norms[%s]: %s, want %s", k, back.TargetRankNorms[k].TargetName, v.TargetName)
		}
	}
	// pins copied from the written candidates
	for i := range min(4, len(p1.Anomalies)) {
		a := p1.Anomalies[i]
		w := a.AsWritten()
		_, v, own, _ := model.StageParts(a.TargetName)
		at := fmt.Sprintf("opt=%d,rank=%d,", a.OptStep(), a.Rank)
		if a.MicroStep != nil {
			at += fmt.Sprintf("ms=%d,", *a.MicroStep)
		}
		// the own name alone: the earliest candidate of that name agreeing
		// with the numbers, of either chunk
		first := ""
		for _, b := range p1.Anomalies {
			if b.Rank == a.Rank && b.OptStep() == a.OptStep() && b.Micro() == a.Micro() && model.OwnName(b.TargetName) == own {
				first = b.TargetName
				break
			}
		}
		for _, text := range []string{
			at + "param=" + w.TargetName,
			at + fmt.Sprintf("vpp=%d,param=%s", v, own),
			at + fmt.Sprintf("param=%d:%s", v, own),
			at + "param=" + a.TargetName,
		} {
			want := a.TargetName
			if !strings.Contains(text, ":") && !strings.Contains(text, "vpp=") {
				want = first
			}
			pin, err := model.ParseCoord(text)
			if err != nil {
				t.Fatal(err)
			}
			p2, err := phase2Said(&back, nil, pin, DefaultPhase2Options())
			if err != nil {
				t.Errorf("pin %s: %v", text, err)
				continue
			}
			co := p2.RootCauseCoordinate
			if co == nil || co.TargetName != want {
				t.Errorf("pin %s: coordinate %+v, want %s", text, co, want)
				continue
			}
			wst, wv, _, _ := model.StageParts(want)
			wc := p2.AsWritten().RootCauseCoordinate
			if wc.TargetName != own || wc.PPStage == nil || *wc.PPStage != wst || wc.VPPStage == nil || *wc.VPPStage != wv {
				t.Errorf("pin %s: written coordinate %+v", text, wc)
			}
		}
	}
	// negative: the other chunk's name, given by vpp=, is not the candidate
	a := p1.Anomalies[0]
	_, v, own, _ := model.StageParts(a.TargetName)
	pin, _ := model.ParseCoord(fmt.Sprintf("opt=%d,rank=%d,vpp=%d,param=%s", a.OptStep(), a.Rank, 1-v, own))
	if p2, err := phase2Said(&back, nil, pin, DefaultPhase2Options()); err == nil && p2.RootCauseCoordinate != nil && p2.RootCauseCoordinate.TargetName == a.TargetName {
		t.Errorf("vpp=%d pinned chunk %d's parameter %s", 1-v, v, a.TargetName)
	}
	// the written Phase 2 result has no stage-qualified name either
	p2, err := phase2Said(p1, nil, nil, DefaultPhase2Options())
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := json.Marshal(p2.AsWritten())
	if i := stagedValue.FindIndex(b2); i != nil {
		t.Errorf("written Phase 2 JSON holds a stage-qualified name: %s", b2[max(0, i[0]-80):min(len(b2), i[0]+80)])
	}
	if strings.Contains(string(b2), ":vpp") {
		t.Errorf("written Phase 2 JSON holds a chunk prefix")
	}
}

func sameSet(a, b []string) bool {
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}
