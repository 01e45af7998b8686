package words

import (
	"regexp"
	"strings"
	"testing"

	"spikescope/model"
)

// Every missing-data reason says the same numbers in both languages, the
// Chinese with no English sentence; Missing fills both languages and keeps
// an item read back from a saved result.
func TestMissingSameNumbersBothLanguages(t *testing.T) {
	next := []model.Reason{
		model.NextDumpsAB{Step: 12, Rank: 3, TrendDB: true, Stage: 1, Stages: 4, StageRanks: []int{2, 6, 10, 14}, More: true},
		model.NextDumpAOffset{Path: "/runs/npu", DumpStep: 15, Rank: 3, OptStep: 12, Offset: 3, Steps: []int{0, 5, 10}},
		model.NextDumpA{Path: "/runs/npu", Step: 12, Rank: 3, Steps: []int{0, 1}},
		model.NextConfirmA{AStep: 7, ARank: 1, Step: 12, Rank: 3},
		model.NextDumpBWithC{Step: 12, Rank: 3},
		model.NextDumpB{Step: 12, Rank: 3},
		model.NextControl{Step: 12, ControlRank: 5},
		model.NextControl{Step: 12, ControlRank: -1},
		model.NextControlD{Step: 9, Rank: 4},
	}
	num := regexp.MustCompile(`-?\d+`)
	for _, r := range next {
		en, zh := Say(r, English), Say(r, Chinese)
		for _, n := range num.FindAllString(en, -1) {
			if !strings.Contains(zh, n) {
				t.Errorf("%s: %s is in %q, not in %q", r.Rule(), n, en, zh)
			}
		}
		if s := EnglishSentence(zh); s != "" {
			t.Errorf("%s: the Chinese %q holds English %q", r.Rule(), zh, s)
		}
	}
	ms := []model.Missing{
		{WhatReason: model.MissingWhat{Kind: model.MissingControl, WhyText: "no candidate rank", Why: model.NextPin{}}, NextReason: model.NextControl{Step: 4, ControlRank: 2}},
		{What: "saved", Next: "kept"},
	}
	Missing(ms)
	if m := ms[0]; m.What != "control group C/D: no candidate rank" || !strings.HasPrefix(m.ZhWhat, "对照组 C/D: 未选出坐标") ||
		m.Next != Say(model.NextControl{Step: 4, ControlRank: 2}, English) || !strings.Contains(m.ZhNext, "rank 2") {
		t.Errorf("Missing said %+v", m)
	}
	if ms[1].What != "saved" || ms[1].ZhWhat != "" || ms[1].Next != "kept" {
		t.Errorf("Missing changed an item without reasons: %+v", ms[1])
	}
}
