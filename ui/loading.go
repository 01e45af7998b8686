package ui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/dustin/go-humanize"

	"spikescope/model"
)

// loadingPane shows one progress bar per input while the session loads.
type loadingPane struct {
	common
	inputs []Input
	prog   map[string]model.Progress
	first  map[string]sample // the first report of each input: the rate is measured from it
	last   map[string]sample // the latest
	order  []string          // inputs in the order progress arrived (after the known ones)
	now    func() time.Time  // the clock (tests set it)
}

// sample is an amount read at a time.
type sample struct {
	done int64
	at   time.Time
}

// minRateSpan is how long progress must run before a rate is shown (a
// rate over a few milliseconds says nothing).
const minRateSpan = 500 * time.Millisecond

func newLoadingPane(c common, inputs []Input) *loadingPane {
	p := &loadingPane{common: c, inputs: inputs, prog: map[string]model.Progress{},
		first: map[string]sample{}, last: map[string]sample{}, now: time.Now}
	for _, in := range inputs {
		p.order = append(p.order, in.Path)
	}
	return p
}

func (p *loadingPane) add(pr model.Progress) {
	if _, ok := p.prog[pr.Input]; !ok {
		known := false
		for _, o := range p.order {
			if o == pr.Input {
				known = true
			}
		}
		if !known {
			p.order = append(p.order, pr.Input)
		}
	}
	if old, ok := p.prog[pr.Input]; ok && old.Stage != pr.Stage {
		delete(p.first, pr.Input) // a new stage: its rate from its own start
	}
	p.prog[pr.Input] = pr
	s := sample{pr.Done, p.now()}
	if _, ok := p.first[pr.Input]; !ok {
		p.first[pr.Input] = s
	}
	p.last[pr.Input] = s
}

// rate is the input's reading speed since its first report, in its unit
// per second; ok is false until there is enough to measure.
func (p *loadingPane) rate(input string) (perSec float64, ok bool) {
	f, l := p.first[input], p.last[input]
	span := l.at.Sub(f.at)
	if span < minRateSpan || l.done <= f.done {
		return 0, false
	}
	return float64(l.done-f.done) / span.Seconds(), true
}

// speed is "12 MB/s · about 40 s left" for an input (the time left only
// with a total), "" before the rate is known.
func (p *loadingPane) speed(pr model.Progress) string {
	r, ok := p.rate(pr.Input)
	if !ok {
		return ""
	}
	var s string
	if pr.Unit == "bytes" {
		s = humanize.Bytes(uint64(r)) + "/s"
	} else {
		s = humanize.SIWithDigits(r, 0, "") + " " + pr.Unit + "/s"
	}
	if pr.Total > pr.Done {
		s += " · " + fmtLeft(time.Duration(float64(pr.Total-pr.Done)/r*float64(time.Second))) + " left"
	}
	return s
}

// fmtLeft is a remaining time in words: "8 s", "3 min", "1 h 20 min".
func fmtLeft(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%d s", max(1, int(d.Round(time.Second).Seconds())))
	case d < time.Hour:
		return fmt.Sprintf("%d min", int(d.Round(time.Minute).Minutes()))
	}
	d = d.Round(time.Minute)
	return fmt.Sprintf("%d h %d min", int(d.Hours()), int(d.Minutes())%60)
}

// Update: only q quits while loading (ctrl+c is the root's, everywhere);
// the loaders' progress comes in as it is read.
func (p *loadingPane) Update(msg tea.Msg) reply {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		if key.Matches(msg, p.keys.Quit) {
			return reply{handled: true, quit: true}
		}
	case progressMsg:
		for _, pr := range msg.ps {
			p.add(pr)
		}
	}
	return reply{}
}

func (p *loadingPane) ShortHelp() []key.Binding { return []key.Binding{p.keys.Quit} }
func (p *loadingPane) FullHelp() [][]key.Binding {
	return [][]key.Binding{p.ShortHelp(), {p.keys.keptKeys()}}
}
func (p *loadingPane) Crumb() string { return "" }

func (p *loadingPane) View() []string {
	st := p.st
	lines := []string{st.Title.Render("loading…") + "  (q or ctrl+c cancels)", ""}
	roles := map[string]string{}
	for _, in := range p.inputs {
		roles[in.Path] = in.Role
	}
	allDone := len(p.prog) > 0
	for _, path := range p.order {
		name := escapeControl(path) // a path as typed may hold an ESC
		if r := roles[path]; r != "" {
			name = r + ": " + name
		}
		lines = append(lines, shortParam(name, p.width-2))
		pr, ok := p.prog[path]
		switch {
		case !ok:
			lines = append(lines, "  waiting")
		case pr.Total > 0:
			f := float64(pr.Done) / float64(pr.Total)
			if f > 1 {
				f = 1
			}
			amt := amount(pr.Done, pr.Total, pr.Unit)
			switch pr.Stage {
			case model.StageCounting:
				// a large database's rows are counted before they are read
				amt = "counting: " + amt
			case model.StageSorting:
				// read already; larger than the memory budget, its rows
				// are put in order through a temporary file
				amt = "in order: " + amt
			}
			if sp := p.speed(pr); sp != "" {
				amt += " · " + sp
			}
			barW := min(50, max(10, p.width-9-len([]rune(amt))))
			fill := int(f * float64(barW))
			bar := st.Bar.Render(strings.Repeat("█", fill)) + strings.Repeat("░", barW-fill)
			lines = append(lines, fmt.Sprintf("  %s %3.0f%% %s", bar, f*100, amt))
			if pr.Stage == model.StageSorting {
				lines = append(lines, st.Dim.Render(ansi.Truncate("  larger than the memory budget: put in order through a temporary file", p.width, "…")))
			}
			if pr.Done < pr.Total {
				allDone = false
			}
		case pr.Stage == model.StageCounting && pr.Done == 0:
			lines = append(lines, "  counting the rows")
			allDone = false
		default:
			line := "  " + amount(pr.Done, 0, pr.Unit) + " read"
			if sp := p.speed(pr); sp != "" {
				line += " · " + sp
			}
			lines = append(lines, line)
			allDone = false
		}
	}
	if allDone {
		lines = append(lines, "", "inputs read · analysing (Phase 1 → 2 → 3)…")
	}
	if len(p.order) == 0 {
		lines = append(lines, "preparing the embedded demo run")
	}
	return lines
}

// amount formats done/total in the unit of the progress.
func amount(done, total int64, unit string) string {
	f := func(v int64) string {
		if unit == "bytes" {
			return humanize.Bytes(uint64(v))
		}
		return humanize.Comma(v) + " " + unit
	}
	if total >= bigCount && unit != "bytes" { // "25 M / 100.8 M rows": fits 80 columns with the rate
		return siCount(done) + " / " + siCount(total) + " " + unit
	}
	if total > 0 && unit != "bytes" { // the unit once: "1,029 / 2,000 rows"
		return humanize.Comma(done) + " / " + humanize.Comma(total) + " " + unit
	}
	if total > 0 {
		return f(done) + " / " + f(total)
	}
	return f(done)
}
