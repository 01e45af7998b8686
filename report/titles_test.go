package report

import (
	"fmt"
	"strings"
	"testing"

	"spikescope/model"
)

// The cross-step table's title says what data it was decided on: micro-step
// data only where Phase 1 read micro steps, never on step-level or dump
// data, nor when there is no Phase 1 result to say which.
func TestCrossStepTitleSaysTheData(t *testing.T) {
	cases := []struct {
		name     string
		set      func(in *Input)
		en, zh   string
		microish bool
	}{
		{"micro steps", func(in *Input) {}, "(micro-step data;", "（micro_step 数据，", true},
		{"window 1", func(in *Input) { in.P1.Sharding.AccumulationWindow = 1 }, "(micro-step data, one micro step per optimizer step;", "每个 opt_step 一个 micro step", true},
		{"step level", func(in *Input) { in.P1.DataKind = "step" }, "(step-level data:", "（step 级数据", false},
		{"dumps", func(in *Input) { in.P1.DataKind = "dump" }, "(dump statistics:", "（dump 统计数据", false},
		{"saved step-level result", func(in *Input) {
			in.P1.DataKind, in.P1.Sharding.HasMicroStep = "", false
			for i := range in.P1.Anomalies {
				in.P1.Anomalies[i].MicroStep, in.P1.Anomalies[i].Delta = nil, nil
			}
		}, "(step-level data:", "（step 级数据", false},
		{"no Phase 1", func(in *Input) { in.P1 = nil }, "**Table 1 — Cross-step decision** (**only", "**表 1 — 跨 step 判定**（**只看", false},
	}
	for _, c := range cases {
		in := fullInput()
		c.set(&in)
		for lang, want := range map[string]string{"en": c.en, "zh": c.zh} {
			out := Render(in, lang)
			line := ""
			for _, l := range strings.Split(out, "\n") {
				if strings.Contains(l, "Cross-step decision") || strings.Contains(l, "跨 step 判定**") {
					line = l
				}
			}
			if !strings.Contains(line, want) {
				t.Errorf("%s %s: cross-step title %q, want %q in it", c.name, lang, line, want)
			}
			if !c.microish && (strings.Contains(line, "micro-step data;") || strings.Contains(line, "micro_step 数据，")) {
				t.Errorf("%s %s: the title calls the data micro-step data: %q", c.name, lang, line)
			}
		}
	}
}

// The run shape note of the Chinese report says the pass unit in words,
// not as the analysis's Python tuple.
func TestPassUnitInWords(t *testing.T) {
	for _, c := range []struct {
		sh   model.ShardingAnalysis
		want string
	}{
		{model.ShardingAnalysis{PassUnit: "(step,)"}, "一个 step（无 micro step）"},
		{model.ShardingAnalysis{PassUnit: "(optimizer_step, micro_step), 累积窗口=4", HasMicroStep: true, AccumulationWindow: 4},
			"一个 optimizer step 中的一个 micro step（每个 optimizer step 4 个）"},
		{model.ShardingAnalysis{PassUnit: "(step, micro_step)", HasMicroStep: true, AccumulationWindow: 2, ExplicitMicroStep: true},
			"一个 step 中的一个 micro step（按输入中的编号）"},
	} {
		in := fullInput()
		c.sh.Conclusion = "PP=1. 无 micro_step. 前反向单位: " + c.sh.PassUnit + ". 每个 rank 有完整模型，独立构成一次前反向。"
		in.P1.Sharding = c.sh
		out := Render(in, "zh")
		if strings.Contains(out, c.sh.PassUnit) {
			t.Errorf("the zh report prints the pass unit %q", c.sh.PassUnit)
		}
		if !strings.Contains(out, "前反向单位: "+c.want+".") {
			t.Errorf("the run shape note lacks the pass unit in words %q", c.want)
		}
	}
}

// Each anchor's layer table has its own title: numbered 1.1, 1.2, … and
// naming its anchor, in both languages.
func TestAnchorTablesTitledByAnchor(t *testing.T) {
	in := fullInput()
	for lang, form := range map[string]string{"en": "**Table 1.%d — Four-group layer comparison: anchor `%s`**", "zh": "**表 1.%d — 四组对照逐层对比：锚点 `%s`**"} {
		out := Render(in, lang)
		for i, a := range in.P3.Anchors {
			if want := fmt.Sprintf(form, i+1, a.Name); !strings.Contains(out, want) {
				t.Errorf("%s: no title %q", lang, want)
			}
		}
		if strings.Contains(out, "Table 1 — Four-group") || strings.Contains(out, "表 1 — 四组") {
			t.Errorf("%s: an anchor table carries the untitled form", lang)
		}
	}
}
