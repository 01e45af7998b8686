package pipeline

import (
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"spikescope/model"
	"spikescope/report"
)

// checkReportGolden compares got with report/testdata/name (-update rewrites it).
func checkReportGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("..", "report", "testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./pipeline -run Golden -update)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs (go test ./pipeline -run Golden -update to accept)", path)
	}
}

// What the demo's HTML report must show: every plot the issue names, each
// with a text alternative, and nothing loaded from anywhere.
func TestDemoHTMLPlots(t *testing.T) {
	s := loadDemo(t)
	page := report.RenderHTML(s.ReportInput(), "en")
	svgs := regexp.MustCompile(`<svg [^>]*><title>([^<]+)</title>`).FindAllStringSubmatch(page, -1)
	if n := strings.Count(page, "<svg "); n != len(svgs) {
		t.Fatalf("%d plots, %d with a <title> first", n, len(svgs))
	}
	var alts []string
	for _, m := range svgs {
		alts = append(alts, m[1])
	}
	all := strings.Join(alts, "\n")
	for _, want := range []string{
		"Gradient norm of layers.2.mlp.linear_fc2.weight per step: rank 3 against 7 other ranks, spike at rank 3, step 22",
		"Heat map of the gradient norm of layers.2.mlp.linear_fc2.weight over 8 ranks and the steps, spike at rank 3, step 22",
		"Growth per rank from optimizer step 5 to 6: 6 of 8 ranks over the threshold 2.0x",
		"1 spike events over optimizer steps 5–7",
		"Anchor mlp, forward: Norm anomaly degree over 6 layers against the control band",
		"Anchor mlp, backward: Norm anomaly degree over 6 layers against the control band",
		"origin NPU.npu_swiglu.2.forward",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("no plot %q among:\n%s", want, all)
		}
	}
	// the spike of the planted fault is marked on the curve
	if !strings.Contains(page, "<title>spike: optimizer step 5, micro step 2, rank 3, layers.2.mlp.linear_fc2.weight, norm 0.1572") {
		t.Error("the curve does not mark the planted spike")
	}
	checkSelfContained(t, page)
}

var (
	// an attribute that loads or links something: src, href, xlink:href, srcset, action, data
	loadAttr = regexp.MustCompile(`(?i)\b(src|href|srcset|action|data|poster)\s*=`)
	cssLoad  = regexp.MustCompile(`(?i)url\(|@import`)
	urlLike  = regexp.MustCompile(`(?i)(https?|ftp|file):|//[a-z0-9]`)
)

// loads lists how page could fetch anything: an src=/href= (of any
// kind), a script, a stylesheet or frame link, a CSS url(), a URL in a tag.
func loads(page string) []string {
	var out []string
	if m := loadAttr.FindString(page); m != "" {
		out = append(out, "loading attribute "+m)
	}
	if m := cssLoad.FindString(page); m != "" {
		out = append(out, "CSS that loads "+m)
	}
	for _, tag := range []string{"<script", "<link", "<iframe", "<img", "<object", "<embed", "<base"} {
		if strings.Contains(strings.ToLower(page), tag) {
			out = append(out, tag)
		}
	}
	// the only URL allowed is the SVG namespace name, which loads nothing
	rest := strings.ReplaceAll(page, `xmlns="http://www.w3.org/2000/svg"`, "")
	for _, m := range regexp.MustCompile(`<[^>]*>`).FindAllString(rest, -1) {
		if urlLike.MatchString(m) {
			out = append(out, "URL in "+m)
		}
	}
	return out
}

func checkSelfContained(t *testing.T, page string) {
	t.Helper()
	for _, p := range loads(page) {
		t.Errorf("the page could load something: %.120s", p)
	}
}

// The check itself catches each way a page could load something.
func TestSelfContainedCheckCatchesLoads(t *testing.T) {
	for _, bad := range []string{
		`<img src="x.png">`, `<a href="https://example.com">x</a>`, `<style>body{background:url(x.png)}</style>`,
		`<script>1</script>`, `<use xlink:href="other.svg#a"/>`, `<link rel="stylesheet" href="a.css">`,
		`<image x="1" y="2" src=x>`,
	} {
		if len(loads(bad)) == 0 {
			t.Errorf("check passes %q", bad)
		}
	}
	if p := loads(`<svg xmlns="http://www.w3.org/2000/svg"><title>a</title></svg>`); len(p) != 0 {
		t.Errorf("plain SVG flagged: %v", p)
	}
}

// The Phase 1 series is read from the monitor rows: a rank without a row
// at a step is a gap, a recorded NaN stays NaN.
func TestSeriesGapsAndNaN(t *testing.T) {
	m := &model.MonitorData{Targets: []model.Target{{Name: "w"}, {Name: "other"}}, Metrics: []string{"grad_unreduced"}}
	add := func(rank, step, target int32, v float64) {
		m.Rows.Append(rank, step, model.NoMicro, target, 0, [model.NumStats]float64{v, 0, 0, 0})
	}
	add(0, 0, 0, 1)
	add(0, 1, 0, math.NaN())
	add(1, 0, 0, 2)
	add(1, 1, 1, 99) // another parameter: not in w's series
	add(1, 2, 0, math.Inf(1))
	s := seriesOf(m, "w", "grad_unreduced")
	if s == nil || len(s.Steps) != 3 || len(s.Ranks) != 2 || s.Micro != nil {
		t.Fatalf("series %+v", s)
	}
	if !s.Has[0][1] || !math.IsNaN(s.Norm[0][1]) {
		t.Errorf("rank 0 step 1: has %v value %v, want a recorded NaN", s.Has[0][1], s.Norm[0][1])
	}
	if s.Has[1][1] || s.Has[0][2] {
		t.Errorf("missing rows not gaps: %v", s.Has)
	}
	if !math.IsInf(s.Norm[1][2], 1) || s.Norm[1][0] != 2 {
		t.Errorf("rank 1 = %v", s.Norm[1])
	}
	if seriesOf(m, "absent", "grad_unreduced") != nil {
		t.Error("a series for a parameter the monitor lacks")
	}
}
