package ui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// The Phase 2 tables name parameters with the run's shortener: the
// framework prefix the run's layered names share and class names go, the
// stage, the layer index and the leaf stay, at every width down to the
// leaf's own; qkv, proj, fc1 and fc2 of one layer stay apart at 20 cells.
func TestP2NamesKeepLayerAndLeaf(t *testing.T) {
	cases := []struct {
		run  []string // the run's names; the first is shortened
		w    int
		want string
	}{
		{[]string{"Module.module.module.decoder.layers.2.mlp.linear_fc1.weight", "Module.module.module.embedding.word_embeddings.weight"}, 80, "L2 mlp.linear_fc1.weight"},
		{[]string{"module.language_model.encoder.layers.11.self_attention.query_key_value.weight"}, 80, "L11 self_attention.query_key_value.weight"},
		{[]string{"Module.module.module.decoder.layers.2.mlp.linear_fc1.ColumnParallelLinear.forward.0"}, 80, "L2 mlp.linear_fc1 fwd.0"},
		{[]string{"pp1:layers.0.mlp.dense_4h_to_h.weight", "pp0:layers.0.mlp.dense_4h_to_h.weight"}, 80, "pp1:L0 mlp.dense_4h_to_h.weight"},
		{[]string{"pp1:vpp1:layers.0.mlp.dense_4h_to_h.weight"}, 80, "pp1:vpp1:L0 mlp.dense_4h_to_h.weight"},
		{[]string{"module.embedding.word_embeddings.weight", "module.decoder.layers.0.mlp.linear_fc1.weight"}, 80, "embedding.word_embeddings.weight"},
		// too long: segments go from the middle, the module of a generic leaf stays
		{[]string{"decoder.layers.2.self_attention.linear_qkv.weight"}, 24, "L2 …linear_qkv.weight"},
		{[]string{"decoder.layers.2.self_attention.core.linear_qkv.weight"}, 30, "L2 …core.linear_qkv.weight"},
		{[]string{"decoder.layers.12.mlp.linear_fc2.weight"}, 15, "L12 …fc2.weight"},
	}
	for _, c := range cases {
		got := shortenerOf(c.run).fit(c.run[0], c.w)
		if got != c.want {
			t.Errorf("fit(%q, %d) = %q, want %q", c.run[0], c.w, got, c.want)
		}
		if ansi.StringWidth(got) > c.w {
			t.Errorf("fit(%q, %d) = %q is wider than %d", c.run[0], c.w, got, c.w)
		}
	}
	var run []string
	for _, leaf := range []string{"self_attention.linear_qkv", "self_attention.linear_proj", "mlp.linear_fc1", "mlp.linear_fc2"} {
		run = append(run, "Module.module.module.decoder.layers.3."+leaf+".RowParallelLinear.forward.0")
	}
	ns := shortenerOf(run)
	seen := map[string]bool{}
	for _, n := range run {
		s := ns.fit(n, 20)
		if seen[s] || !strings.HasPrefix(s, "L3 ") {
			t.Fatalf("%s → %q (seen %v)", n, s, seen)
		}
		seen[s] = true
	}
}

// A table fits the width: the verdict wraps rather than being cut, a
// column empty on every row is left out, and the name keeps its layer.
func TestP2TableWrapsVerdictAndDropsEmptyColumns(t *testing.T) {
	cols := []p2col{{head: "pair"}, {head: "parameter", name: true}, {head: "ratio", right: true}, {head: "verdict", wrap: true}}
	verdict := "qualifies, but the earlier optimizer step 5 already does"
	rows := [][]string{{"5→6", "decoder.layers.2.mlp.linear_fc2.weight", "", verdict}, {"6→7", "decoder.layers.2.self_attention.linear_qkv.weight", "", "no turning point"}}
	lines := p2Table(shortenerOf([]string{rows[0][1], rows[1][1]}), cols, rows, 60, 0)
	var text []string
	for _, l := range lines {
		if ansi.StringWidth(l.text) > 60 {
			t.Fatalf("line wider than 60: %q", l.text)
		}
		text = append(text, l.text)
	}
	all := strings.Join(text, "\n")
	if strings.Contains(lines[0].text, "ratio") {
		t.Fatalf("an all-empty column shown:\n%s", all)
	}
	if got := strings.Join(strings.Fields(all), " "); !strings.Contains(got, verdict) {
		t.Fatalf("verdict cut:\n%s", all)
	}
	if !strings.Contains(all, "L2 mlp.linear_fc2.weight") || !strings.Contains(all, "L2 ") || len(lines) < 4 {
		t.Fatalf("names or wrapped lines missing:\n%s", all)
	}
	if lines[1].row != 0 || !lines[1].first || lines[2].row != 0 || lines[2].first {
		t.Fatalf("continuation line not tied to its row: %+v", lines[:3])
	}
}

// The demo's Phase 2 at 80 columns: every line fits, the growth measured
// is shown next to the threshold, the verdicts of judged pairs are whole,
// and with one device the candidates say there is no baseline once
// instead of a column of "no baseline".
func TestPhase2ScreenAt80Columns(t *testing.T) {
	for _, withBase := range []bool{true, false} {
		fb := phase2Backend(false)()
		d := *fb.data
		if !withBase {
			demoRun()
			p2 := *d.P2
			p2.Mode = modeSingleRef
			for i := range p2.Candidates {
				c := p2.Candidates[i]
				c.Verdict, c.BaselineValue, c.Ratio = "no baseline", nil, nil
				p2.Candidates[i] = c
			}
			d.P2 = &p2
		}
		p := newPhase2Pane(testCommon(&d))
		p.SetSize(80, 200)
		var lines []string
		for _, l := range p.lines() {
			if ansi.StringWidth(l) > 80 {
				t.Fatalf("line wider than 80: %q", ansi.Strip(l))
			}
			lines = append(lines, ansi.Strip(l))
		}
		text := strings.Join(lines, "\n")
		pair := ""
		for _, l := range lines {
			if strings.HasPrefix(l, "5→6 ") {
				pair = l
			}
		}
		g := d.P2.CrossStep[0]
		if pair == "" || g.GrowthMedian == nil || !strings.Contains(pair, fmtGrowth(float64(*g.GrowthMedian))) ||
			!strings.Contains(pair, fmtGrowth(float64(*g.GrowthMax))) || !strings.Contains(pair, "root: step 5") || !strings.Contains(pair, "L2 mlp.linear_fc2.weight") {
			t.Fatalf("with baseline %v: pair row %q in\n%s", withBase, pair, text)
		}
		if withBase == strings.Contains(text, "one device: no monitor data of the baseline device") || strings.Contains(text, "no baseline\n") {
			t.Fatalf("with baseline %v: baseline section\n%s", withBase, text)
		}
		if withBase && !strings.Contains(text, "device-specific") {
			t.Fatalf("verdicts missing:\n%s", text)
		}
	}
}

// A pinned result says what the automatic choice would have been, or that
// it is the same point.
func TestPhase2ScreenShowsAutomaticChoice(t *testing.T) {
	d := *phase2Backend(true)().data
	p := newPhase2Pane(testCommon(&d))
	p.SetSize(160, 60)
	text := ansi.Strip(strings.Join(p.lines(), "\n"))
	if d.P2.Automatic == nil || !strings.Contains(text, "without the pin, Phase 2 would have chosen "+coordinateString(d.P2.Automatic)) {
		t.Fatalf("automatic choice missing:\n%s", text)
	}
	p2 := *d.P2
	p2.Automatic = p2.RootCauseCoordinate
	d.P2 = &p2
	if text := ansi.Strip(strings.Join(p.lines(), "\n")); !strings.Contains(text, "the automatic choice is the same coordinate") {
		t.Fatalf("same point:\n%s", text)
	}
}

// A result made by the reference scripts (Chinese reasoning and mode, no
// English decisions) shows none of its Chinese on the English screen.
func TestPhase2ScreenHidesReferenceChinese(t *testing.T) {
	d := fixture()
	p2 := *d.P2
	p2.Decisions = nil
	p2.Reasoning = "跨 step 梯度无明显跳跃增长，取异常偏离最大的 opt_step 5"
	p2.CrossDeviceVerification = "所有坐标 GPU 侧接近 (双端共有)"
	p2.Mode = "NPU (+GPU 标杆)"
	d.P2 = &p2
	for _, w := range []int{80, 160} {
		p := newPhase2Pane(testCommon(d))
		p.SetSize(w, 200)
		text := ansi.Strip(strings.Join(p.lines(), "\n"))
		if p2HasHan(text) {
			t.Fatalf("width %d: Chinese on the English screen:\n%s", w, text)
		}
		if !strings.Contains(text, "checked against the baseline device") {
			t.Fatalf("width %d: mode not said in words:\n%s", w, text)
		}
	}
	// an English reasoning without decisions is shown
	p2.Reasoning = "pinned by the user"
	p := newPhase2Pane(testCommon(d))
	p.SetSize(80, 200)
	if text := ansi.Strip(strings.Join(p.lines(), "\n")); !strings.Contains(text, "pinned by the user") {
		t.Fatalf("English reasoning hidden:\n%s", text)
	}
}

// The root's event says why it is shared or device-specific, with the
// rank and parameter the baseline was compared at.
func TestPhase2ScreenSaysWhyTheRootEventIsDeviceSpecific(t *testing.T) {
	d := fp16Backend().data
	p := newPhase2Pane(testCommon(d))
	p.SetSize(160, 200)
	text := ansi.Strip(strings.Join(p.lines(), "\n"))
	var root string
	for _, e := range d.P2.Events {
		if e.Root {
			root = fmt.Sprintf("event %d is %s: %s", e.ID, e.Baseline, e.BaselineReason)
		}
	}
	if root == "" || !strings.Contains(text, "event 3 is device-specific: rank 4 ") || !strings.Contains(strings.Join(strings.Fields(text), " "), root) {
		t.Fatalf("no reason for the root event %q:\n%s", root, text)
	}
}
