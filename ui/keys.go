package ui

import "charm.land/bubbles/v2/key"

// keyMap holds every binding; the help footer and the `?` overlay are built
// from it, so what is shown is what works.
type keyMap struct {
	Phase1, Phase2, Phase3 key.Binding
	Up, Down, Left, Right  key.Binding
	Top, Bottom            key.Binding
	PageUp, PageDown       key.Binding
	Enter, Back            key.Binding
	Filter, Sort, Jump     key.Binding
	Pin, Unpin             key.Binding
	Tab, Metric, Control   key.Binding
	Report, Help, Quit     key.Binding
}

func newKeyMap() keyMap {
	return keyMap{
		Phase1:   key.NewBinding(key.WithKeys("1"), key.WithHelp("1", "phase 1")),
		Phase2:   key.NewBinding(key.WithKeys("2"), key.WithHelp("2", "phase 2")),
		Phase3:   key.NewBinding(key.WithKeys("3"), key.WithHelp("3", "phase 3")),
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		Left:     key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/h", "column left")),
		Right:    key.NewBinding(key.WithKeys("right", "l"), key.WithHelp("→/l", "column right")),
		Top:      key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g/home", "first")),
		Bottom:   key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("G/end", "last")),
		PageUp:   key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "page up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "page down")),
		Enter:    key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "drill down")),
		Back:     key.NewBinding(key.WithKeys("esc", "backspace"), key.WithHelp("esc", "back")),
		Filter:   key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter")),
		Sort:     key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "sort column")),
		Jump:     key.NewBinding(key.WithKeys(":"), key.WithHelp(":N", "jump to step")),
		Pin:      key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "pin")),
		Unpin:    key.NewBinding(key.WithKeys("P"), key.WithHelp("P", "unpin")),
		Tab:      key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next anchor")),
		Metric:   key.NewBinding(key.WithKeys("m"), key.WithHelp("m", "next metric")),
		Control:  key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "choose C")),
		Report:   key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "report")),
		Help:     key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Quit:     key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
	}
}

// screenKeys is the help.KeyMap of one screen: the short line shows what
// matters there, the full help everything.
type screenKeys struct {
	short []key.Binding
	full  [][]key.Binding
}

func (s screenKeys) ShortHelp() []key.Binding  { return s.short }
func (s screenKeys) FullHelp() [][]key.Binding { return s.full }

// helpFor returns the bindings of a screen.
func (k keyMap) helpFor(sc screen) screenKeys {
	full := [][]key.Binding{
		{k.Phase1, k.Phase2, k.Phase3, k.Enter, k.Back, k.Help, k.Quit},
		{k.Up, k.Down, k.Top, k.Bottom, k.PageUp, k.PageDown},
		{k.Left, k.Right, k.Sort, k.Filter, k.Jump},
		{k.Pin, k.Unpin, k.Tab, k.Metric, k.Control, k.Report},
	}
	var short []key.Binding
	switch sc {
	case screenPhase1:
		short = []key.Binding{k.Enter, k.Pin, k.Filter, k.Sort, k.Phase2, k.Phase3, k.Help, k.Quit}
	case screenPhase3:
		short = []key.Binding{k.Enter, k.Tab, k.Metric, k.Sort, k.Pin, k.Report, k.Help, k.Quit}
	case screenChooser:
		use := key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "use this C"))
		short = []key.Binding{use, k.Back, k.Help, k.Quit}
	case screenDrill:
		short = []key.Binding{k.Enter, k.Back, k.Metric, k.Filter, k.Sort, k.Help, k.Quit}
	case screenSeries:
		short = []key.Binding{k.Back, k.Metric, k.Pin, k.Phase3, k.Help, k.Quit}
	case screenChain:
		short = []key.Binding{k.Back, k.Phase3, k.Help, k.Quit}
	case screenPhase2:
		short = []key.Binding{k.Up, k.Down, k.Pin, k.Unpin, k.Enter, k.Phase3, k.Report, k.Help, k.Quit}
	default:
		short = []key.Binding{k.Phase1, k.Phase3, k.Pin, k.Unpin, k.Report, k.Help, k.Quit}
	}
	return screenKeys{short: short, full: full}
}

// phase3Idle is the footer of a Phase 3 screen with no result: the layer
// table's keys would do nothing there.
func (k keyMap) phase3Idle(canChoose bool) screenKeys {
	short := []key.Binding{k.Phase1, k.Phase2}
	if canChoose {
		short = append(short, k.Control)
	}
	short = append(short, k.Report, k.Help, k.Quit)
	return screenKeys{short: short, full: k.helpFor(screenPhase3).full}
}
