package report

import "strings"

// sink receives the blocks of one report in order.
type sink interface {
	heading(level int, s string)
	para(s string)
	bullet(s string)
	// subBullet is an item indented under the bullet before it.
	subBullet(s string)
	// subList is one bullet whose items form a nested list.
	subList(head string, items []string)
	endList()
	table(t *table)
	// figure is a plot; f returns its caption and SVG (empty SVG: nothing
	// to draw) and is called only by sinks that draw.
	figure(f func() (caption, svg string))
	// figureRow is the answer's plots side by side: f returns each one's
	// caption and SVG, called only by sinks that draw.
	figureRow(f func() [][2]string)
	// endAnswer ends the answer the report opens with; the level-2
	// headings after it start the sections that follow it.
	endAnswer()
}

// mdSink writes GitHub-flavoured Markdown.
type mdSink struct{ b strings.Builder }

func (m *mdSink) heading(level int, s string) {
	m.b.WriteString(strings.Repeat("#", level) + " " + mdText(s) + "\n\n")
}

func (m *mdSink) para(s string) { m.b.WriteString(mdText(s) + "\n\n") }

func (m *mdSink) bullet(s string) { m.b.WriteString("- " + mdText(s) + "\n") }

func (m *mdSink) subBullet(s string) { m.b.WriteString("  - " + mdText(s) + "\n") }

func (m *mdSink) subList(head string, items []string) {
	m.b.WriteString("- " + head + "\n")
	for _, it := range items {
		m.b.WriteString("  - " + mdText(it) + "\n")
	}
}

func (m *mdSink) endList() { m.b.WriteString("\n") }

func (m *mdSink) table(t *table) { t.write(&m.b) }

func (m *mdSink) figure(func() (string, string)) {}

func (m *mdSink) figureRow(func() [][2]string) {}

func (m *mdSink) endAnswer() {}

// String is the finished Markdown, ending in exactly one newline.
func (m *mdSink) String() string { return strings.TrimRight(m.b.String(), "\n") + "\n" }
