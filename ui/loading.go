package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/dustin/go-humanize"

	"spikescope/model"
)

// loadingPane shows one progress bar per input while the session loads.
type loadingPane struct {
	common
	inputs []Input
	prog   map[string]model.Progress
	order  []string // inputs in the order progress arrived (after the known ones)
}

func newLoadingPane(c common, inputs []Input) *loadingPane {
	p := &loadingPane{common: c, inputs: inputs, prog: map[string]model.Progress{}}
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
	p.prog[pr.Input] = pr
}

// Update: only q quits while loading (ctrl+c is the root's, everywhere).
func (p *loadingPane) Update(msg tea.Msg) reply {
	if k, ok := msg.(tea.KeyPressMsg); ok && key.Matches(k, p.keys.Quit) {
		return reply{handled: true, quit: true}
	}
	return reply{}
}

func (p *loadingPane) ShortHelp() []key.Binding  { return []key.Binding{p.keys.Quit} }
func (p *loadingPane) FullHelp() [][]key.Binding { return [][]key.Binding{p.ShortHelp()} }
func (p *loadingPane) Crumb() string             { return "" }

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
			barW := min(50, max(10, p.width-9-len([]rune(amt))))
			fill := int(f * float64(barW))
			bar := st.Bar.Render(strings.Repeat("█", fill)) + strings.Repeat("░", barW-fill)
			lines = append(lines, fmt.Sprintf("  %s %3.0f%% %s", bar, f*100, amt))
			if pr.Done < pr.Total {
				allDone = false
			}
		default:
			lines = append(lines, "  "+amount(pr.Done, 0, pr.Unit)+" read")
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
	if total > 0 {
		return f(done) + " / " + f(total)
	}
	return f(done)
}
