package report

import (
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"spikescope/model"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// checkGolden compares got with testdata/name (rewriting it with -update).
// Exported to the session tests through golden files, not code.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the golden file (go test -update to accept):\n%s", name, firstDiff(string(want), got))
	}
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return fmt.Sprintf("line %d:\nwant %q\ngot  %q", i+1, x, y)
		}
	}
	return ""
}

var fixtures = map[string]func() Input{
	"full":      fullInput,
	"degraded":  degradedInput,
	"nocontrol": noControlInput,
	"empty":     emptyInput,
	"pinned":    pinnedInput,
}

func TestGolden(t *testing.T) {
	for name, f := range fixtures {
		for _, lang := range []string{"zh", "en"} {
			t.Run(name+"_"+lang, func(t *testing.T) {
				checkGolden(t, name+"_"+lang+".golden", Render(f(), lang))
			})
		}
	}
}

// The Chinese report uses the seed's headers and titles verbatim.
func TestChineseUsesSeedHeaders(t *testing.T) {
	out := Render(fullInput(), "zh")
	for _, want := range []string{
		"**表 1 — 数据总览:**",
		"| 项目 | 值 |",
		"| 数据 | `/runs/npu/trend.db` / `trenddb` |",
		"| 参数 | `48` |",
		"| Step/Rank | `0-31` (opt_step 0-7) / `3` |",
		"| 前反向单位 | 一个 ",
		"**表 2 — 候选根因坐标**（按时间最早排序: opt_step 升序，同 opt_step 按 ms 升序）:",
		"| Opt Step | Rank | 参数 | ms | delta | 偏离 | 最终 Norm |",
		"**表 1 — 跨 step 判定**（micro_step 数据，**只看异常侧，标杆侧增长不推翻根因**）:",
		"| 转折 | 增长阈值 | 达标 rank | 判定 |",
		"**表 2 — 候选根因坐标**（按时间最早排序，跨设备时含标杆对比）:",
		"| Opt Step | Rank | 参数 | ms | delta | 标杆 delta | 比值 | 判定 |",
		"**表 1.1 — 四组对照逐层对比：锚点 ",
		"| L | F_A | F_B | F_C | F_D | F_A/B | F_C/D | F异常 | B_A | B_B | B_C | B_D | B_A/B | B_C/D | B异常 |",
		"**表 2 — 方向判定汇总:**",
		"| 方向 | 判定 | 起点 | 最大点 | 证据 |",
		"- **问题:**", "- **证据:**", "- **影响:**", "- **建议:**",
		"各指标主分叉段起点", "最早分叉点: 前向 L2，反向 L3", "未对齐层: 前向 L1，反向 []",
		"用户指定",
	} {
		if want == "用户指定" {
			in := fullInput()
			in.P2.Pinned = true
			out = Render(in, "zh")
		}
		if !strings.Contains(out, want) {
			t.Errorf("zh report lacks %q", want)
		}
	}
}

func TestEnglishHeadersAndRows(t *testing.T) {
	in := fullInput()
	in.P2.Pinned = true
	out := Render(in, "en_US.UTF-8")
	for _, want := range []string{
		"| Opt Step | Rank | Parameter | ms | delta | Deviation | Final Norm |",
		"| Transition | Growth threshold | Ranks over | Verdict |",
		"| Opt Step | Rank | Parameter | ms | delta | Baseline delta | Ratio | Verdict |",
		"| L | F_A | F_B | F_C | F_D | F_A/B | F_C/D | F anomaly | B_A | B_B | B_C | B_D | B_A/B | B_C/D | B anomaly |",
		"| Direction | Verdict | Start | Peak | Evidence |",
		// L2 of self_attention: flagged both ways, anomaly degrees 33/22/(21.78/22) and 2.0/0.99.
		"| 2 | 33 | 22 | 21.78 | 22 | 1.5x | 0.99x | 1.515x `F!` | 0.44 | 0.22 | 0.2178 | 0.22 | 2.0x | 0.99x | 2.02x `B!` |",
		// the unaligned layer says "unaligned" for the missing pair and ratios.
		"| decoder.layers.1 | unaligned | unaligned | 31.31 | 31 | unaligned | 1.01x | unaligned | 0.3 | 0.3 | 0.3 | 0.3 | 1.0x | 1.0x | 1.0x |",
		"not judged): decoder.layers.1: element count 8 vs 16",
		"| 3 | 0 | 9 | 0.012 | yes | yes | no | Phase 1 candidate |",
		"amplifies the forward divergence (propagated); first NaN/Inf: L3 Functional.softmax.7.backward",
		"- Iteration path forward: Norm→L2 → Max→L2",
		"Decision thresholds: `growth` 2, `rank_share` 0.6",
		"- Band rule: degree outside 1 ± max(3·IQR/median, 0.03)",
		"| forward | divergent | L2 (first `F!` from shallow to deep) | L2 (1.515x) | `F!` L2, L3; unaligned L1; the one to trace first |",
		// a pipe inside a parameter name is escaped in its cell.
		"| 4 | 0 | `decoder.layers.1.mlp\\|experts.weight` | 1 | 6.1 | 41.2x | 9 |",
		// non-finite values print as NaN / Inf.
		"| 3 | 1 | `decoder.layers.0.self_attention.linear_qkv.weight` | 1 | NaN | Inf | 2 |",
		"| optimizer step 3 → 4 (`decoder.layers.1.mlp.linear_fc1.weight`) | 2.0x | 3/3 (100%) | root cause in optimizer step 3 (device-specific) |",
		"| 3 | 2 | `decoder.layers.1.mlp.linear_fc1.weight` | 2 | 4.2 | 0.4 | 10.5x | device-specific ← selected |",
		"pinned by the user",
		"Earliest divergence: forward L2, backward L3",
		"Unaligned layers: forward L1, backward none",
		"Other metrics checked for an earlier start: yes",
		"Upstream chain (nearest first): `Functional.matmul.2.forward` ← `Module.layers.2.self_attention.linear_qkv.forward.0`",
		"- **Problem:**", "- **Evidence:**", "- **Impact:**", "- **Suggestion:**",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("en report lacks %q", want)
		}
	}
	if strings.ContainsAny(out, "表项值偏离") {
		t.Errorf("en report holds Chinese table text")
	}
}

// Degraded runs say what was missing and what to collect next.
func TestDegradedSaysWhatIsMissing(t *testing.T) {
	out := Render(degradedInput(), "en")
	for _, want := range []string{
		"Phase 3: not run (dump statistics missing)",
		"| Missing | Collect next |",
		"| dump statistics | dump A at optimizer step 3 on rank 2, and C/D at optimizer step 3 on rank 1 |",
		"No baseline data, single-device decision",
		"Go on to Phase 3: collect dump statistics at optimizer step 3 on rank 2",
		"| 3 | 2 | **`decoder.layers.1.mlp.linear_fc1.weight`** | 2 | 4.2 |", "One device: no monitor data of the baseline device, so device specificity is not checked",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("degraded report lacks %q", want)
		}
	}
	out = Render(noControlInput(), "zh")
	for _, want := range []string{"无对照组，A/B 比值可能混入设备系统偏差", "| C | 邻近正常 | 未提供 |", "对照组选取: no C: every candidate of the tree spikes",
		"补充邻近正常坐标的 dump（C）及其标杆（D）"} {
		if !strings.Contains(out, want) {
			t.Errorf("no-control report lacks %q", want)
		}
	}
	out = Render(emptyInput(), "zh")
	for _, want := range []string{"Phase 1: 未发现候选尖刺", "未发现候选尖刺。", "Phase 2: 未运行", "| no micro_step column | 无建议 |"} {
		if !strings.Contains(out, want) {
			t.Errorf("empty report lacks %q", want)
		}
	}
	out = Render(Input{}, "en")
	if !strings.Contains(out, "Phase 1: not run (no monitor data)") || !strings.Contains(out, "None: every phase had its data.") {
		t.Errorf("report of nothing:\n%s", out)
	}
}

var sepRE = regexp.MustCompile(`^\|( *:?-{3,}:? *\|)+$`)

// splitRow splits a table row on its unescaped pipes.
func splitRow(line string) []string {
	var cells []string
	var cur strings.Builder
	for i := 1; i < len(line); i++ { // skip the leading pipe
		switch {
		case line[i] == '\\' && i+1 < len(line) && line[i+1] == '|':
			cur.WriteString(`\|`)
			i++
		case line[i] == '|':
			cells = append(cells, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(line[i])
		}
	}
	return cells
}

// tablesOf returns every Markdown table of a document (runs of lines that
// start with a pipe).
func tablesOf(doc string) [][]string {
	var out [][]string
	var cur []string
	for _, l := range strings.Split(doc, "\n") {
		if strings.HasPrefix(l, "|") {
			cur = append(cur, l)
			continue
		}
		if cur != nil {
			out = append(out, cur)
			cur = nil
		}
	}
	if cur != nil {
		out = append(out, cur)
	}
	return out
}

// Every table of every golden file is valid GFM: a header, a separator and
// rows with the same number of columns, every row closed by a pipe.
func TestGoldenTablesAreValid(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.golden")
	if len(files) < 8 {
		t.Fatalf("found %d golden files, want at least 8", len(files))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		doc := string(b)
		if strings.Contains(doc, "!") && regexp.MustCompile(`![a-z0-9.]+!`).MatchString(doc) {
			t.Errorf("%s: untranslated key %s", f, regexp.MustCompile(`![a-z0-9.]+!`).FindString(doc))
		}
		tables := tablesOf(doc)
		if len(tables) == 0 {
			t.Errorf("%s: no table", f)
		}
		for _, tb := range tables {
			if len(tb) < 2 || !sepRE.MatchString(tb[1]) {
				t.Errorf("%s: table without separator: %q", f, tb[0])
				continue
			}
			n := len(splitRow(tb[0]))
			if got := strings.Count(tb[1], "|") - 1; got != n {
				t.Errorf("%s: separator has %d columns, header %d: %q", f, got, n, tb[0])
			}
			for _, row := range tb[2:] {
				if !strings.HasSuffix(row, "|") || strings.HasSuffix(row, `\|`) {
					t.Errorf("%s: row not closed: %q", f, row)
				}
				if got := len(splitRow(row)); got != n {
					t.Errorf("%s: row has %d cells, header %d: %q", f, got, n, row)
				}
			}
		}
	}
}

func TestSplitRowSeesEscapedPipes(t *testing.T) {
	if got := len(splitRow("| a | `x\\|y` | c |")); got != 3 {
		t.Fatalf("got %d cells, want 3", got)
	}
	if got := cell("a|b\nc"); got != `a\|b c` {
		t.Fatalf("cell = %q", got)
	}
}

func TestNumbers(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{
		{num(12345.678), "1.235e+04"},
		{num(1234.5), "1234"},
		{num(0.000123456), "0.0001235"},
		{num(math.NaN()), "NaN"},
		{num(math.Inf(1)), "Inf"},
		{num(math.Inf(-1)), "-Inf"},
		{ratio(1), "1.0x"},
		{ratio(1.95), "1.95x"},
		{ratio(29.6), "29.6x"},
		{ratio(1.515151), "1.515x"},
		{ratio(math.Inf(1)), "Inf"},
		{ratioOr(nil, "none"), "none"},
		{numOr(nil, "no spike"), "no spike"},
		{intOr(nil, "none"), "none"},
		{code("a`b"), "``a`b``"},
		{mdText("pin param=<name>, a <3 b\nc"), "pin param=&lt;name>, a <3 b c"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// Long candidate tables are capped and say how many rows were left out; the
// selected Phase 2 candidate stays visible past the cap.
func TestLongTablesAreCapped(t *testing.T) {
	in := degradedInput()
	base := in.P1.Anomalies[1]
	in.P1.Anomalies = nil
	in.P2.Candidates = nil
	for i := 0; i < 25; i++ {
		a := base
		a.OptimizerStep = model.IntPtr(10 + i)
		in.P1.Anomalies = append(in.P1.Anomalies, a)
		in.P2.Candidates = append(in.P2.Candidates, model.CandidateVerdict{Anomaly: a, Value: 1, Verdict: "no baseline", Selected: i == 24})
	}
	out := Render(in, "en")
	if !strings.Contains(out, "Showing 20 of 25 rows; 5 more not listed.") {
		t.Errorf("no cap note for Phase 1")
	}
	if !strings.Contains(out, "Showing 21 of 25 rows; 4 more not listed.") {
		t.Errorf("no cap note for Phase 2 (20 rows + the selected one)")
	}
	if !strings.Contains(out, "| 34 | 2 | **`decoder.layers.1.mlp.linear_fc1.weight`** | 2 | 1 |") {
		t.Errorf("selected candidate past the cap not shown")
	}
	if strings.Contains(out, "| 30 | 2 |") {
		t.Errorf("opt_step 30 should be past the cap")
	}
}

// A deep model's layer table keeps only flagged/unaligned layers and their
// neighbours.
func TestDeepLayerTableIsShortened(t *testing.T) {
	in := fullInput()
	a := &in.P3.Anchors[0]
	l0 := a.Layers[0]
	l2 := a.Layers[2]
	a.Layers = nil
	for i := 0; i < 100; i++ {
		l := l0
		if i == 50 {
			l = l2
		}
		l.Layer = i
		a.Layers = append(a.Layers, l)
	}
	out := Render(in, "en")
	for _, want := range []string{"| 48 | 20 |", "| 50 | 33 |", "| 52 | 20 |", "95 aligned layers without flags not listed."} {
		if !strings.Contains(out, want) {
			t.Errorf("deep table lacks %q", want)
		}
	}
	if strings.Contains(out, "| 47 | 20 |") || strings.Contains(out, "| 53 | 20 |") {
		t.Errorf("deep table shows layers far from the flagged one")
	}
}

func TestDeterministic(t *testing.T) {
	first := Render(fullInput(), "zh")
	for i := 0; i < 10; i++ {
		if Render(fullInput(), "zh") != first {
			t.Fatal("two renders of the same input differ")
		}
	}
}

func TestIsChinese(t *testing.T) {
	for lang, want := range map[string]bool{"zh": true, "zh_CN.UTF-8": true, "ZH-tw": true, "en": false, "": false, "C.UTF-8": false} {
		if IsChinese(lang) != want {
			t.Errorf("IsChinese(%q) = %v", lang, !want)
		}
	}
}

// Zero-valued and sparse results (a hand-edited JSON, an analysis that gave
// up early) render without panicking and still give valid tables.
func TestSparseResultsRender(t *testing.T) {
	in := Input{
		P1: &model.Phase1Result{Anomalies: []model.Anomaly{{}}, TargetRankNorms: map[string]model.TargetRankNorms{"x": {}, "0": {}}},
		P2: &model.Phase2Result{RootCauseCoordinate: &model.Coordinate{}, CrossStep: []model.CrossStepPair{{}},
			Candidates: []model.CandidateVerdict{{}}},
		P3: &model.Phase3Result{
			Anchors: []model.AnchorTable{{Layers: []model.LayerRow{{}}}, {}},
			DivergenceSummary: model.DivergenceSummary{
				Directions: []model.DirectionVerdict{{}, {Direction: "bwd", Verdict: "odd"}},
				Thresholds: map[string]map[string]model.Band{"Norm": {}, "X": {"?": {}}},
				Drilldown:  &model.Drilldown{Ops: []model.DrillOp{{}}},
			},
		},
		Missing: []model.Missing{{}},
	}
	for _, lang := range []string{"zh", "en"} {
		out := Render(in, lang)
		for _, tb := range tablesOf(out) {
			n := len(splitRow(tb[0]))
			for _, row := range tb[1:] {
				if c := strings.Count(strings.ReplaceAll(row, `\|`, ""), "|") - 1; c != n {
					t.Errorf("%s: row %q has %d columns, header %d", lang, row, c, n)
				}
			}
		}
		if regexp.MustCompile(`![a-z0-9.]+!`).MatchString(out) {
			t.Errorf("%s: untranslated key", lang)
		}
	}
}

// The analysis' standard no-control note is not repeated after the
// translated line; a different note is kept.
func TestDegradedNoteNotRepeated(t *testing.T) {
	in := noControlInput()
	in.P3.DegradedNote = "no control group: A/B may include device bias"
	out := Render(in, "en")
	if strings.Contains(out, "device bias. (no control group") {
		t.Fatalf("the no-control note is repeated on its line:\n%s", out)
	}
	in.P3.DegradedNote = "C compared in B's place"
	if out = Render(in, "en"); !strings.Contains(out, "(C compared in B's place)") {
		t.Fatalf("a specific note is dropped:\n%s", out)
	}
}
