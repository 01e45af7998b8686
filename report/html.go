package report

import (
	"fmt"
	"html"
	"strings"

	"spikescope/words"
)

// RenderHTML writes the report of in as one self-contained HTML page in
// lang: the sections, tables and wording of Render, plus SVG plots of the
// evidence. The page opens with the answer — the verdict, up to three plots
// that prove it side by side, the next step — sized to fit the first screen
// (1,000 px at 1,280 px wide) so that it can be pasted into a ticket; every
// other section follows folded (<details>, open with a click). Styles and
// plots are inline; the page loads nothing and needs no script. The output
// depends only on in and lang.
func RenderHTML(in Input, lang string) string {
	h := &htmlSink{zh: IsChinese(lang)}
	walk(in, lang, h)
	h.closeList()
	h.closeSection()
	htmlLang := "en"
	if IsChinese(lang) {
		htmlLang = "zh"
	}
	title, _ := words.ReportText("title", IsChinese(lang))
	return "<!DOCTYPE html>\n<html lang=\"" + htmlLang + "\">\n<head>\n<meta charset=\"utf-8\">\n" +
		"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n" +
		"<title>" + html.EscapeString(title) + "</title>\n<style>\n" + pageCSS + "</style>\n</head>\n<body>\n<main>\n" +
		h.b.String() + "</main>\n</body>\n</html>\n"
}

// pageCSS is the page's whole style: readable type, tables that scroll
// sideways rather than squeeze, plots that shrink with the window.
const pageCSS = `body{margin:0;background:#fff;color:#222;font:15px/1.5 system-ui,-apple-system,"Segoe UI","Noto Sans","Noto Sans CJK SC","PingFang SC",sans-serif}
main{max-width:1100px;margin:0 auto;padding:1.5em 1.2em 3em}
h1{font-size:1.7em;margin:.2em 0 .6em}
h2{font-size:1.3em;margin:1.8em 0 .6em;padding-bottom:.2em;border-bottom:1px solid #ddd}
code{font:.9em ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:#f3f3f3;padding:0 .25em;border-radius:3px;overflow-wrap:anywhere}
.tbl{overflow-x:auto;margin:.4em 0 1.2em}
table{border-collapse:collapse;font-size:.9em}
th,td{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top}
th{background:#f3f3f3}
tr:nth-child(even) td{background:#fafafa}
li.sub{margin-left:1.5em;list-style-type:circle}
figure{margin:.8em 0 1.6em}
figure svg{max-width:100%;height:auto;display:block}
figcaption{font-size:.9em;color:#444;margin-top:.3em}
.answer h2{margin-top:.4em}
.answer ul{margin:.3em 0}
.answer p{margin:.4em 0}
.figs{display:grid;grid-template-columns:repeat(3,minmax(0,1fr));gap:1em;margin:.8em 0 0}
.figs figure{margin:0}
.figs figcaption{font-size:.8em;line-height:1.35}
@media (max-width:800px){.figs{grid-template-columns:1fr}}
details{border-bottom:1px solid #ddd}
details>summary{cursor:pointer;padding:.2em 0}
details>summary>h2{display:inline;font-size:1.3em;margin:0;padding:0;border:0}
details[open]>summary{margin-bottom:.6em}
`

// htmlSink writes the blocks as HTML.
type htmlSink struct {
	b       strings.Builder
	inList  bool
	zh      bool
	figures int // figures written so far (captions are numbered)
	// answerFigs is the number of each of the answer's plots by caption: the
	// same plot drawn larger in its section keeps that number
	answerFigs map[string]int
	// answered: the answer is written (it opened the page inside <section
	// class="answer">); each level-2 heading now opens a folded section.
	answered, inAnswer, inSection bool
}

// closeSection ends the open folded section.
func (h *htmlSink) closeSection() {
	h.closeList()
	if h.inSection {
		h.b.WriteString("</details>\n")
		h.inSection = false
	}
}

func (h *htmlSink) endAnswer() {
	h.closeList()
	if h.inAnswer {
		h.b.WriteString("</section>\n")
		h.inAnswer = false
	}
	h.answered = true
}

func (h *htmlSink) closeList() {
	if h.inList {
		h.b.WriteString("</ul>\n")
		h.inList = false
	}
}

func (h *htmlSink) heading(level int, s string) {
	h.closeList()
	tag := "h" + string(rune('0'+level))
	text := "<" + tag + ">" + inlineHTML(oneLine(s)) + "</" + tag + ">"
	switch {
	case level == 2 && h.answered:
		h.closeSection()
		h.b.WriteString("<details>\n<summary>" + text + "</summary>\n")
		h.inSection = true
		return
	case level == 2 && !h.inAnswer:
		h.b.WriteString("<section class=\"answer\">\n")
		h.inAnswer = true
	}
	h.b.WriteString(text + "\n")
}

func (h *htmlSink) para(s string) {
	h.closeList()
	h.b.WriteString("<p>" + inlineHTML(oneLine(s)) + "</p>\n")
}

func (h *htmlSink) bullet(s string) {
	if !h.inList {
		h.b.WriteString("<ul>\n")
		h.inList = true
	}
	h.b.WriteString("<li>" + inlineHTML(oneLine(s)) + "</li>\n")
}

func (h *htmlSink) subBullet(s string) {
	if !h.inList {
		h.b.WriteString("<ul>\n")
		h.inList = true
	}
	h.b.WriteString("<li class=\"sub\">" + inlineHTML(oneLine(s)) + "</li>\n")
}

func (h *htmlSink) subList(head string, items []string) {
	if !h.inList {
		h.b.WriteString("<ul>\n")
		h.inList = true
	}
	h.b.WriteString("<li>" + inlineHTML(head) + "<ul>\n")
	for _, it := range items {
		h.b.WriteString("<li>" + inlineHTML(oneLine(it)) + "</li>\n")
	}
	h.b.WriteString("</ul></li>\n")
}

func (h *htmlSink) endList() { h.closeList() }

// table writes t with every row as wide as the header, like the Markdown.
func (h *htmlSink) table(t *table) {
	h.closeList()
	n := len(t.header)
	h.b.WriteString("<div class=\"tbl\"><table>\n<thead><tr>")
	for _, c := range t.header {
		h.b.WriteString("<th>" + inlineHTML(oneLine(c)) + "</th>")
	}
	h.b.WriteString("</tr></thead>\n<tbody>\n")
	for _, row := range t.rows {
		h.b.WriteString("<tr>")
		for i := 0; i < n; i++ {
			c := t.empty
			if i < len(row) && row[i] != "" {
				c = row[i]
			}
			h.b.WriteString("<td>" + inlineHTML(oneLine(c)) + "</td>")
		}
		h.b.WriteString("</tr>\n")
	}
	h.b.WriteString("</tbody></table></div>\n")
}

func (h *htmlSink) figure(f func() (string, string)) {
	caption, svg := f()
	if svg == "" {
		return
	}
	h.closeList()
	if n, ok := h.answerFigs[caption]; ok {
		again, _ := words.ReportText("fig.again", h.zh)
		h.writeNumbered(fmt.Sprintf(again, n)+caption, svg)
		return
	}
	h.writeFigure(caption, svg)
}

func (h *htmlSink) writeFigure(caption, svg string) {
	h.figures++
	n, _ := words.ReportText("fig.n", h.zh)
	h.writeNumbered(fmt.Sprintf(n, h.figures)+caption, svg)
}

func (h *htmlSink) writeNumbered(caption, svg string) {
	h.b.WriteString("<figure>\n" + svg + "\n<figcaption>" + inlineHTML(oneLine(caption)) + "</figcaption>\n</figure>\n")
}

// figureRow writes the answer's plots side by side, numbered like the
// other figures.
func (h *htmlSink) figureRow(f func() [][2]string) {
	figs := f()
	if len(figs) == 0 {
		return
	}
	h.closeList()
	h.b.WriteString("<div class=\"figs\">\n")
	if h.answerFigs == nil {
		h.answerFigs = map[string]int{}
	}
	for _, fg := range figs {
		h.writeFigure(fg[0], fg[1])
		h.answerFigs[fg[0]] = h.figures
	}
	h.b.WriteString("</div>\n")
}

// inlineHTML turns the report's inline Markdown — code spans (any fence
// length, as code writes them) and **strong** — into HTML, escaping
// everything else.
func inlineHTML(s string) string {
	var b strings.Builder
	strong := false
	for i := 0; i < len(s); {
		switch {
		case s[i] == '`':
			n := 1
			for i+n < len(s) && s[i+n] == '`' {
				n++
			}
			fence := s[i : i+n]
			end := strings.Index(s[i+n:], fence)
			if end < 0 {
				b.WriteString(html.EscapeString(fence))
				i += n
				continue
			}
			body := s[i+n : i+n+end]
			if len(body) >= 2 && body[0] == ' ' && body[len(body)-1] == ' ' && strings.Trim(body, " ") != "" {
				body = body[1 : len(body)-1]
			}
			b.WriteString("<code>" + html.EscapeString(body) + "</code>")
			i += 2*n + end
		case strings.HasPrefix(s[i:], "**"):
			if strong {
				b.WriteString("</strong>")
			} else if strings.Contains(s[i+2:], "**") {
				b.WriteString("<strong>")
			} else {
				b.WriteString("**")
				i += 2
				continue
			}
			strong = !strong
			i += 2
		default:
			j := i + 1
			for j < len(s) && s[j] != '`' && s[j] != '*' {
				j++
			}
			b.WriteString(html.EscapeString(s[i:j]))
			i = j
		}
	}
	if strong {
		b.WriteString("</strong>")
	}
	return b.String()
}
