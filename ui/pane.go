package ui

import (
	"context"

	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"

	"spikescope/model"
)

// pane is the contract of every screen's body (soft-serve's Component):
// the root routes keys and async replies to the active pane, sizes it, and
// builds the footer and the `?` help from its bindings, so the help lists
// exactly the keys the pane's Update handles (TestHelpListsHandledKeys).
type pane interface {
	// Update handles a key press or the pane's own async reply; it never
	// blocks and never touches the file system (slow work goes in reply.cmd).
	Update(msg tea.Msg) reply
	View() []string // the body lines; the root clips them to the screen
	SetSize(width, height int)
	// ShortHelp is the footer line (it may name the root's keys too);
	// FullHelp groups the keys Update handles, and only those.
	help.KeyMap
	Crumb() string // the breadcrumb entry: "Phase 3 anchor", "L3 ops (fwd)"

	// The rest have defaults in common; a pane that draws marks, copies,
	// has a candidate or reads text says so with its own.

	// marks are the `?` legend of the marks the view draws, each
	// legendLine(mark, meaning), and only those (legend.go); nil: none.
	marks() []string
	// copyText is what `y` copies and what it is ("coordinate", "operator
	// key"): what "" when the pane has nothing to copy (y is not its key),
	// text "" when nothing is selected (clipboard.go).
	copyText() (text, what string)
	// candidate is the candidate under the cursor, the one `p` pins; nil
	// when there is none.
	candidate() *model.Anomaly
	// capturing: the pane is reading text (a filter, a step number), so
	// every key goes to it before the root's own keys.
	capturing() bool
}

// reply is what a pane's Update hands back: whether it used the key, and
// what it asks of the root, which owns the screen stack, the footer and the
// backend requests.
type reply struct {
	handled bool
	status  string   // footer message
	open    pane     // a detail screen to push
	at      screen   // the screen open is
	cmd     tea.Cmd  // the pane's own work off the loop
	request *request // a backend call that yields new Data (the control choice)
	quit    bool
}

// request is a Pin/Control call to run off the loop; its reply replaces Data.
type request struct {
	what string
	run  func(context.Context, Backend, *Data) (*Data, error)
}

// used is the reply of a key that did its work in the pane.
var used = reply{handled: true}

// common is what every pane shares (soft-serve's Common): styles, keys,
// the analysed data and the pane's size. Panes embed it; the root hands out
// a copy when it builds a pane, and rebuilds the panes when Data changes.
type common struct {
	st            Styles
	keys          keyMap
	data          *Data
	width, height int
}

// SetSize records the pane's size; panes with a layout call it first.
func (c *common) SetSize(w, h int) { c.width, c.height = w, h }

// The defaults of a pane that draws no marks, copies nothing, has no
// candidate and reads no text.
func (c *common) marks() []string               { return nil }
func (c *common) copyText() (text, what string) { return "", "" }
func (c *common) candidate() *model.Anomaly     { return nil }
func (c *common) capturing() bool               { return false }

// openChooser is the reply that opens the control-group chooser.
func openChooser(c common) reply {
	if c.data == nil || len(c.data.Controls) == 0 {
		return reply{handled: true, status: "no candidate C dump to choose from"}
	}
	return reply{handled: true, open: newChooserPane(c), at: screenChooser}
}
