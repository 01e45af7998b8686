package report

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	mdHeading = regexp.MustCompile(`(?m)^(#+) (.*)$`)
	mdBullet  = regexp.MustCompile(`(?m)^ *- `)
	mdTable   = regexp.MustCompile(`(?m)^\|[-|]+\|$`)
)

// The HTML report has the Markdown report's headings, tables and list
// items, one for one, for every fixture in both languages: the two come from
// one walk and cannot drift.
func TestHTMLMatchesMarkdown(t *testing.T) {
	for name, f := range fixtures {
		for _, lang := range []string{"zh", "en"} {
			md, page := Render(f(), lang), RenderHTML(f(), lang)
			for _, m := range mdHeading.FindAllStringSubmatch(md, -1) {
				tag := "h" + string(rune('0'+len(m[1])))
				if want := "<" + tag + ">" + inlineHTML(m[2]) + "</" + tag + ">"; !strings.Contains(page, want) {
					t.Errorf("%s %s: HTML lacks heading %s", name, lang, want)
				}
			}
			if a, b := len(mdTable.FindAllString(md, -1)), strings.Count(page, "<table>"); a != b {
				t.Errorf("%s %s: %d Markdown tables, %d HTML tables", name, lang, a, b)
			}
			if a, b := len(mdBullet.FindAllString(md, -1)), strings.Count(page, "<li>")+strings.Count(page, `<li class="sub">`); a != b {
				t.Errorf("%s %s: %d Markdown list items, %d HTML ones", name, lang, a, b)
			}
			if !strings.Contains(page, `<html lang="`+lang+`">`) {
				t.Errorf("%s %s: page language not set", name, lang)
			}
		}
	}
}

// Inline Markdown becomes HTML; everything else is escaped.
func TestInlineHTML(t *testing.T) {
	for in, want := range map[string]string{
		"**Problem:** a `x_y` b": "<strong>Problem:</strong> a <code>x_y</code> b",
		"`` a`b ``":              "<code>a`b</code>",
		"<name> & \"q\"":         "&lt;name&gt; &amp; &#34;q&#34;",
		"2 * 3, a ` alone":       "2 * 3, a ` alone",
		"`<script>`":             "<code>&lt;script&gt;</code>",
		"**unclosed":             "**unclosed",
	} {
		if got := inlineHTML(in); got != want {
			t.Errorf("inlineHTML(%q) = %q, want %q", in, got, want)
		}
	}
}

// No HTML golden holds an untranslated text key.
func TestHTMLGoldensTranslated(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.golden.html")
	if len(files) != 4 {
		t.Fatalf("found %d HTML golden files, want 4", len(files))
	}
	key := regexp.MustCompile(`![a-z0-9.]+!`)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if k := key.FindString(string(b)); k != "" {
			t.Errorf("%s: untranslated key %s", f, k)
		}
	}
}
