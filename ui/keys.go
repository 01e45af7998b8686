package ui

import "charm.land/bubbles/v2/key"

// keyMap holds every binding. Panes match keys against it and list the ones
// they handle in their help (pane.go); the root's own keys are below.
type keyMap struct {
	Phase1, Phase2, Phase3 key.Binding
	Up, Down, Left, Right  key.Binding
	Top, Bottom            key.Binding
	PageUp, PageDown       key.Binding
	HalfUp, HalfDown       key.Binding
	Enter, Back            key.Binding
	Filter, Sort, Jump     key.Binding
	Next, Prev             key.Binding // matches of the last / text
	Pin, Unpin, Copy, Note key.Binding
	Tab, Metric, Control   key.Binding
	BackTab, PrevMetric    key.Binding
	Report, Help, Quit     key.Binding
	Plan                   key.Binding
	Verdict                key.Binding
	GradNorm               key.Binding
	Follow                 key.Binding
	Suspend                key.Binding
}

func newKeyMap() keyMap {
	return keyMap{
		Phase1: key.NewBinding(key.WithKeys("1"), key.WithHelp("1", "phase 1")),
		Phase2: key.NewBinding(key.WithKeys("2"), key.WithHelp("2", "phase 2")),
		Phase3: key.NewBinding(key.WithKeys("3"), key.WithHelp("3", "phase 3")),
		Up:     key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:   key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		Left:   key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/h", "column left")),
		Right:  key.NewBinding(key.WithKeys("right", "l"), key.WithHelp("→/l", "column right")),
		// s is the first row too: the earliest candidate in the default order
		Top:        key.NewBinding(key.WithKeys("home", "g", "s"), key.WithHelp("g/s/home", "first row")),
		Bottom:     key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("G/end", "last")),
		PageUp:     key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "page up")),
		PageDown:   key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "page down")),
		HalfUp:     key.NewBinding(key.WithKeys("ctrl+u"), key.WithHelp("ctrl+u", "half page up")),
		HalfDown:   key.NewBinding(key.WithKeys("ctrl+d"), key.WithHelp("ctrl+d", "half page down")),
		Enter:      key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "drill down")),
		Back:       key.NewBinding(key.WithKeys("esc", "backspace"), key.WithHelp("esc", "back")),
		Filter:     key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter")),
		Sort:       key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "sort column")),
		Jump:       key.NewBinding(key.WithKeys(":"), key.WithHelp(":N", "jump to step")),
		Next:       key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "next match")),
		Prev:       key.NewBinding(key.WithKeys("N"), key.WithHelp("N", "previous match")),
		Pin:        key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "pin")),
		Unpin:      key.NewBinding(key.WithKeys("P"), key.WithHelp("P", "unpin")),
		Copy:       key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "copy")),
		Note:       key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "note")),
		Tab:        key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next anchor")),
		Metric:     key.NewBinding(key.WithKeys("m"), key.WithHelp("m", "next metric")),
		BackTab:    key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("⇧tab", "previous anchor")),
		PrevMetric: key.NewBinding(key.WithKeys("M"), key.WithHelp("M", "previous metric")),
		Control:    key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "choose C")),
		Report:     key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "report")),
		Plan:       key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "plan")),
		Verdict:    key.NewBinding(key.WithKeys("v"), key.WithHelp("v", "verdict")),
		GradNorm:   key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "grad norm")),
		Follow:     key.NewBinding(key.WithKeys("F"), key.WithHelp("F", "follow")),
		Help:       key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Quit:       key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
		Suspend:    key.NewBinding(key.WithKeys("ctrl+z"), key.WithHelp("ctrl+z", "suspend")),
	}
}

// Groups of bindings that several panes handle alike.
func (k keyMap) rows() []key.Binding {
	return []key.Binding{k.Up, k.Down, k.Top, k.Bottom, k.PageUp, k.PageDown, k.HalfUp, k.HalfDown}
}

// columns are the keys a table adds to rows (nav.go).
// enterAs is enter named for what it opens on one screen ("series",
// "operator chain"): the footer says what the key does there.
func (k keyMap) enterAs(desc string) key.Binding {
	return key.NewBinding(key.WithKeys(k.Enter.Keys()...), key.WithHelp("enter", desc))
}

func (k keyMap) columns() []key.Binding { return []key.Binding{k.Left, k.Right, k.Sort} }

// search are the keys of a list with `/`: the filter and its matches.
func (k keyMap) search() []key.Binding { return []key.Binding{k.Filter, k.Next, k.Prev} }

// screenKeys is a help.KeyMap built from parts: the root's help of the
// active pane, or a pane's own.
type screenKeys struct {
	short []key.Binding
	full  [][]key.Binding
}

func (s screenKeys) ShortHelp() []key.Binding  { return s.short }
func (s screenKeys) FullHelp() [][]key.Binding { return s.full }
