package ui

import (
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"spikescope/model"
)

// `y` copies what is selected to the clipboard with OSC 52: the terminal
// (or tmux with set-clipboard on) sets its clipboard, so it works over SSH
// with no clipboard tool on the remote machine. A coordinate is copied in
// the form `spikescope --pin` reads, an operator as its key; what a pane
// copies is its copyText() (pane.go), beside its View.

// pinText is a coordinate in --pin syntax, the order the pipeline writes
// pins in: opt, ms, rank, step, then param last (the rest of the text is the
// name, commas included).
func pinText(opt, ms *int, rank int, step *int, param string) string {
	var parts []string
	add := func(k string, v *int) {
		if v != nil {
			parts = append(parts, k+"="+strconv.Itoa(*v))
		}
	}
	add("opt", opt)
	add("ms", ms)
	add("rank", &rank)
	if opt == nil { // the optimizer step names the step when there is one
		add("step", step)
	}
	if param != "" {
		parts = append(parts, "param="+param)
	}
	return strings.Join(parts, ",")
}

// anomalyPin is candidate a's coordinate in --pin syntax (what `p` pins).
func anomalyPin(a *model.Anomaly) string {
	if a == nil {
		return ""
	}
	step := a.Step
	return pinText(a.OptimizerStep, a.MicroStep, a.Rank, &step, a.TargetName)
}

// pinAliases are ParsePin's other names of the keys.
var pinAliases = map[string]string{"optimizer_step": "opt", "opt_step": "opt", "micro": "ms", "micro_step": "ms",
	"target": "param", "name": "param"}

// canonicalPin writes a pin in one spelling (keys in pinText's order,
// aliases resolved), so two spellings of one coordinate compare equal;
// text that is not a pin comes back as it is.
func canonicalPin(s string) string {
	vals := map[string]string{}
	rest := strings.TrimSpace(s)
	for rest != "" {
		k, v, ok := strings.Cut(rest, "=")
		if !ok {
			return s
		}
		k = strings.ToLower(strings.TrimSpace(k))
		if a, ok := pinAliases[k]; ok {
			k = a
		}
		if k == "param" {
			vals[k] = strings.TrimSpace(v)
			break
		}
		v, rest, _ = strings.Cut(v, ",")
		vals[k] = strings.TrimSpace(v)
	}
	var parts []string
	for _, k := range []string{"opt", "ms", "rank", "step", "param"} {
		if v, ok := vals[k]; ok {
			parts = append(parts, k+"="+v)
		}
	}
	return strings.Join(parts, ",")
}

// coordinatePin is a Phase 2 coordinate in --pin syntax.
func coordinatePin(c *model.Coordinate) string {
	if c == nil {
		return ""
	}
	return pinText(c.OptimizerStep, c.MicroStep, c.Rank, c.Step, c.TargetName)
}

// copySelected is `y`: the clipboard command and the footer line.
func (m *Model) copySelected(p pane) tea.Cmd {
	text, what := p.copyText()
	if text == "" {
		m.status = "nothing selected to copy"
		return nil
	}
	m.status = "copied the " + what + " " + escapeControl(text)
	if what == "coordinate" {
		m.status += " (reopen it with --pin)"
	}
	return tea.SetClipboard(text)
}
