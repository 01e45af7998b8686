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
	// openSection starts a section the reader can fold (HTML: a closed
	// <details> whose summary is the title; Markdown: a level-2 heading),
	// closeSection ends it.
	openSection(title string)
	closeSection()
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

func (m *mdSink) openSection(title string) { m.heading(2, title) }

func (m *mdSink) closeSection() {}

// String is the finished Markdown, ending in exactly one newline.
func (m *mdSink) String() string { return strings.TrimRight(m.b.String(), "\n") + "\n" }
