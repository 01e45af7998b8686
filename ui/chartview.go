package ui

import (
	"image/color"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/NimbleMarkets/ntcharts/v2/canvas"
)

// styleKey is what the chart's cell styles differ by: the palette's
// colours and attributes (Styles sets nothing else on chart styles).
type styleKey struct {
	fg, bg                                    color.Color
	bold, faint, italic, reverse, under, strk bool
}

func keyOf(s lipgloss.Style) styleKey {
	return styleKey{s.GetForeground(), s.GetBackground(), s.GetBold(), s.GetFaint(),
		s.GetItalic(), s.GetReverse(), s.GetUnderline(), s.GetStrikethrough()}
}

// canvasLines draws the viewport of c as lines, byte for byte what
// c.View() draws, but with each (style, rune) rendered once: c.View()
// calls lipgloss for every cell, most of a chart's frame.
func canvasLines(c *canvas.Model) []string {
	type cellKey struct {
		style styleKey
		r     rune
	}
	memo := map[cellKey]string{}
	cur := c.Cursor()
	endY := min(c.Height(), cur.Y+c.ViewHeight)
	endX := min(c.Width(), cur.X+c.ViewWidth)
	lines := make([]string, 0, max(0, endY-cur.Y))
	var line strings.Builder
	for y := cur.Y; y < endY; y++ {
		line.Reset()
		for x := cur.X; x < endX; x++ {
			cell := c.Cell(canvas.Point{X: x, Y: y})
			r := cell.Rune
			if r == 0 {
				r = ' '
			}
			k := cellKey{keyOf(cell.Style), r}
			out, ok := memo[k]
			if !ok {
				out = cell.Style.Render(string(r))
				memo[k] = out
			}
			line.WriteString(out)
		}
		lines = append(lines, line.String())
	}
	return lines
}
