package svg

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestLogTicks(t *testing.T) {
	for _, c := range []struct {
		min, max float64
		want     []float64
	}{
		{0.0137, 5.8, []float64{0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5}},  // 1-2-5 over three decades
		{1e-3, 1e4, []float64{1e-3, 1e-2, 0.1, 1, 10, 100, 1e3, 1e4}}, // powers only when 1-2-5 is crowded
		{0.6, 1.7, []float64{0.6, 0.8, 1, 1.2, 1.4, 1.6}},             // inside a decade: even steps
	} {
		got := Scale{Min: c.min, Max: c.max, Lo: 100, Hi: 0, Log: true}.Ticks(5)
		if len(got) != len(c.want) {
			t.Errorf("ticks of [%v, %v] = %v, want %v", c.min, c.max, got, c.want)
			continue
		}
		for i := range got {
			if math.Abs(got[i]-c.want[i]) > 1e-9*c.want[i] {
				t.Errorf("ticks of [%v, %v] = %v, want %v", c.min, c.max, got, c.want)
				break
			}
		}
	}
}

func TestLinearTicks(t *testing.T) {
	got := Scale{Min: 0, Max: 39, Lo: 0, Hi: 100}.Ticks(8)
	if want := []float64{0, 5, 10, 15, 20, 25, 30, 35}; !reflect.DeepEqual(got, want) {
		t.Errorf("ticks = %v, want %v", got, want)
	}
}

// Values a chart cannot place are refused, not drawn at a made-up spot.
func TestPxRefusesWhatItCannotPlace(t *testing.T) {
	s := Scale{Min: 1, Max: 100, Lo: 200, Hi: 0, Log: true}
	if y, ok := s.Px(10); !ok || y != 100 {
		t.Errorf("Px(10) = %v %v, want 100 (middle of two decades)", y, ok)
	}
	for _, v := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		if _, ok := s.Px(v); ok {
			t.Errorf("Px(%v) placed on a log axis", v)
		}
	}
	if y, ok := s.Clamp(1e6); !ok || y != 0 {
		t.Errorf("Clamp(1e6) = %v, want the top edge 0", y)
	}
}

// Text and titles are escaped: a parameter name cannot break the markup.
func TestCanvasEscapesText(t *testing.T) {
	c := New(10, 10, `a<b & "c"`)
	c.Text(1, 2, "<script>", Start, "", 0)
	c.Rect(0, 0, 1, 1, Style{Fill: Blue}, "x > y")
	out := c.String()
	for _, bad := range []string{"<script>", `a<b`, "x > y"} {
		if strings.Contains(out, bad) {
			t.Errorf("unescaped %q in %s", bad, out)
		}
	}
	if !strings.HasPrefix(out, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"`) || !strings.Contains(out, "<title>a&lt;b &amp; &#34;c&#34;</title>") {
		t.Errorf("svg = %s", out)
	}
}

// A nil point breaks a path into pieces (a gap for a missing value).
func TestPathGaps(t *testing.T) {
	c := New(10, 10, "t")
	c.Path([]*[2]float64{{0, 0}, {1, 1}, nil, {2, 2}, {3, 3}}, Style{Stroke: Black})
	if out := c.String(); !strings.Contains(out, `d="M0 0L1 1M2 2L3 3"`) {
		t.Errorf("path = %s", out)
	}
}
