package svg

import (
	"html"
	"strconv"
	"strings"
)

// Canvas accumulates the elements of one SVG image. W and H are its size
// in user units; H may grow while drawing (a legend below the plot), the
// header is written when the image is closed.
type Canvas struct {
	W, H float64
	// FontSize is the text size in user units (11 unless set).
	FontSize float64
	title    string
	b        strings.Builder
}

// New starts an image of w × h user units whose text alternative is title
// (the first child, so that screen readers and tooltips use it).
func New(w, h float64, title string) *Canvas {
	return &Canvas{W: w, H: h, FontSize: 11, title: title}
}

// String closes the image and returns its markup.
func (c *Canvas) String() string {
	fs := c.FontSize
	if fs <= 0 {
		fs = 11
	}
	return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ` + f(c.W) + " " + f(c.H) +
		`" width="` + f(c.W) + `" height="` + f(c.H) + `" role="img" font-family="sans-serif" font-size="` + f(fs) + `">` +
		"<title>" + esc(c.title) + "</title>" + c.b.String() + "</svg>"
}

// Style is how a shape is drawn; zero fields are left out.
type Style struct {
	Stroke, Fill string
	Width        float64 // stroke width
	Opacity      float64 // 0 means opaque
	Dash         string  // stroke-dasharray, e.g. "4 3"
}

func (s Style) attrs() string {
	var b strings.Builder
	fill := s.Fill
	if fill == "" {
		fill = "none"
	}
	b.WriteString(` fill="` + fill + `"`)
	if s.Stroke != "" {
		b.WriteString(` stroke="` + s.Stroke + `"`)
		w := s.Width
		if w == 0 {
			w = 1
		}
		b.WriteString(` stroke-width="` + f(w) + `"`)
	}
	if s.Opacity > 0 && s.Opacity < 1 {
		b.WriteString(` opacity="` + f(s.Opacity) + `"`)
	}
	if s.Dash != "" {
		b.WriteString(` stroke-dasharray="` + s.Dash + `"`)
	}
	return b.String()
}

// Line draws a segment.
func (c *Canvas) Line(x1, y1, x2, y2 float64, s Style) {
	c.b.WriteString(`<line x1="` + f(x1) + `" y1="` + f(y1) + `" x2="` + f(x2) + `" y2="` + f(y2) + `"` + s.attrs() + "/>")
}

// Rect draws a rectangle; a non-empty tip becomes its tooltip.
func (c *Canvas) Rect(x, y, w, h float64, s Style, tip string) {
	c.b.WriteString(`<rect x="` + f(x) + `" y="` + f(y) + `" width="` + f(w) + `" height="` + f(h) + `"` + s.attrs())
	c.closeWithTip("rect", tip)
}

// Circle draws a circle; a non-empty tip becomes its tooltip.
func (c *Canvas) Circle(x, y, r float64, s Style, tip string) {
	c.b.WriteString(`<circle cx="` + f(x) + `" cy="` + f(y) + `" r="` + f(r) + `"` + s.attrs())
	c.closeWithTip("circle", tip)
}

func (c *Canvas) closeWithTip(tag, tip string) {
	if tip == "" {
		c.b.WriteString("/>")
		return
	}
	c.b.WriteString("><title>" + esc(tip) + "</title></" + tag + ">")
}

// Path draws connected segments through the points; a nil point breaks the
// line (a gap for a missing value).
func (c *Canvas) Path(pts []*[2]float64, s Style) {
	var d strings.Builder
	pen := false
	for _, p := range pts {
		if p == nil {
			pen = false
			continue
		}
		if pen {
			d.WriteString("L")
		} else {
			d.WriteString("M")
		}
		d.WriteString(f(p[0]) + " " + f(p[1]))
		pen = true
	}
	if d.Len() == 0 {
		return
	}
	c.b.WriteString(`<path d="` + d.String() + `"` + s.attrs() + "/>")
}

// Anchor is the horizontal alignment of text.
type Anchor string

const (
	Start  Anchor = "start"
	Middle Anchor = "middle"
	End    Anchor = "end"
)

// Text writes s at (x, y) (the baseline); rotate turns it by degrees around that point.
func (c *Canvas) Text(x, y float64, s string, a Anchor, color string, rotate float64) {
	c.b.WriteString(`<text x="` + f(x) + `" y="` + f(y) + `" text-anchor="` + string(a) + `"`)
	if color != "" {
		c.b.WriteString(` fill="` + color + `"`)
	}
	if rotate != 0 {
		c.b.WriteString(` transform="rotate(` + f(rotate) + " " + f(x) + " " + f(y) + `)"`)
	}
	c.b.WriteString(">" + esc(s) + "</text>")
}

// f prints a coordinate with at most two decimals (stable, short output).
func f(v float64) string {
	s := strconv.FormatFloat(v, 'f', 2, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "-0" {
		return "0"
	}
	return s
}

func esc(s string) string { return html.EscapeString(s) }
