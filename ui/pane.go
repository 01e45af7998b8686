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
}

// reply is what a pane's Update hands back: whether it used the key, and
// what it asks of the root, which owns the screen stack, the footer and the
// backend requests.
type reply struct {
	handled bool
	status  string   // footer message
	open    pane     // a detail screen to push
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

// textInput is a pane that is reading text (a filter, a step number):
// then every key goes to it before the root's own keys.
type textInput interface{ capturing() bool }

// candidateSource is a pane with a candidate under the cursor, the one `p`
// pins.
type candidateSource interface{ candidate() *model.Anomaly }

// openChooser is the reply that opens the control-group chooser.
func openChooser(c common) reply {
	if c.data == nil || len(c.data.Controls) == 0 {
		return reply{handled: true, status: "no candidate C dump to choose from"}
	}
	return reply{handled: true, open: newChooserPane(c)}
}
