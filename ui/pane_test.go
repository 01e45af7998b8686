package ui

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// testCommon is the context a pane built outside the root starts from.
func testCommon(d *Data) common { return common{st: NewStyles(true), keys: newKeyMap(), data: d} }

// pressOf is the key press whose String() is name (home, pgup, ctrl+z, …).
func pressOf(t *testing.T, name string) tea.KeyPressMsg {
	t.Helper()
	codes := map[string]rune{"up": tea.KeyUp, "down": tea.KeyDown, "left": tea.KeyLeft, "right": tea.KeyRight,
		"home": tea.KeyHome, "end": tea.KeyEnd, "pgup": tea.KeyPgUp, "pgdown": tea.KeyPgDown,
		"enter": tea.KeyEnter, "esc": tea.KeyEscape, "backspace": tea.KeyBackspace, "tab": tea.KeyTab}
	var msg tea.KeyPressMsg
	switch {
	case name == "shift+tab":
		msg = tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	case strings.HasPrefix(name, "ctrl+"):
		msg = tea.KeyPressMsg{Code: rune(name[len("ctrl+")]), Mod: tea.ModCtrl}
	case codes[name] != 0:
		msg = tea.KeyPressMsg{Code: codes[name]}
	default:
		msg = tea.KeyPressMsg{Code: []rune(name)[0], Text: name}
	}
	if msg.String() != name {
		t.Fatalf("key %q reads as %q", name, msg.String())
	}
	return msg
}

// everyKey is every key of the keymap plus keys bound to nothing.
func everyKey() []string {
	out := []string{"x", "z", "ctrl+e"}
	v := reflect.ValueOf(newKeyMap())
	for i := range v.NumField() {
		out = append(out, v.Field(i).Interface().(key.Binding).Keys()...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func helpKeys(groups [][]key.Binding) map[string]bool {
	out := map[string]bool{}
	for _, g := range groups {
		for _, b := range g {
			for _, k := range b.Keys() {
				out[k] = true
			}
		}
	}
	return out
}

// TestHelpListsHandledKeys: on every screen, a key does something exactly
// when the screen's help lists it, and the footer names only such keys;
// help is built from the bindings the panes match, so it cannot drift.
func TestHelpListsHandledKeys(t *testing.T) {
	screens := []struct {
		name string
		at   func(t *testing.T) *Model
	}{
		{"loading", func(t *testing.T) *Model {
			m := New(Options{Backend: &fakeBackend{block: true}})
			m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
			return m
		}},
		{"error", func(t *testing.T) *Model {
			m := New(Options{Backend: &fakeBackend{err: errFixtureLoad}})
			m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
			m.Update(loadedMsg{id: m.loadID, err: errFixtureLoad})
			return m
		}},
		{"phase1", func(t *testing.T) *Model { return loaded(t, fixtureBackend(), fixture(), 160, 48, true) }},
		{"series", func(t *testing.T) *Model { return at(t, "enter") }},
		{"phase2", func(t *testing.T) *Model { return at(t, "2") }},
		{"phase3", func(t *testing.T) *Model { return at(t, "3") }},
		{"phase3_idle", func(t *testing.T) *Model {
			b := emptyBackend()
			m := loaded(t, b, b.data, 160, 48, true)
			press(m, "3")
			return m
		}},
		{"drill", func(t *testing.T) *Model { return at(t, "3", "enter") }},
		{"chain", func(t *testing.T) *Model { return at(t, "3", "enter", "enter") }},
		{"chooser", func(t *testing.T) *Model { return at(t, "3", "c") }},
		{"verdict", func(t *testing.T) *Model { return at(t, "v") }},
		{"gradnorm", func(t *testing.T) *Model { return at(t, "t") }},
	}
	for _, sc := range screens {
		t.Run(sc.name, func(t *testing.T) {
			m := sc.at(t)
			kh := m.keyHelp()
			listed := helpKeys(kh.FullHelp())
			for k := range helpKeys([][]key.Binding{kh.ShortHelp()}) {
				if !listed[k] {
					t.Errorf("footer names %q, the full help does not", k)
				}
			}
			for _, k := range everyKey() {
				fresh := sc.at(t)
				before := fresh.screen
				handled, _ := fresh.key(pressOf(t, k))
				switch {
				case handled && !listed[k]:
					t.Errorf("%q works on screen %d but the help does not list it", k, before)
				case !handled && listed[k]:
					t.Errorf("the help lists %q but it does nothing on screen %d", k, before)
				}
			}
		})
	}
}

// at is the fixture model after keys.
func at(t *testing.T, ks ...string) *Model {
	m := loaded(t, fixtureBackend(), fixture(), 160, 48, true)
	press(m, ks...)
	return m
}

// TestUpdateTouchesNoFiles: the functions of the files that use the file
// system (os, io/fs, path/filepath) are called only inside a command (a
// func literal, run off the loop) or by each other, never on the update
// loop itself.
func TestUpdateTouchesNoFiles(t *testing.T) {
	fset := token.NewFileSet()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	fsFuncs := map[string]bool{}
	for _, e := range entries {
		n := e.Name()
		if !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, n, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	// a file-system function names os, io/fs, path/filepath, or calls one
	// (a fixed point over the package's functions)
	for grew := true; grew; {
		grew = false
		for _, f := range files {
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Recv != nil || fd.Body == nil || fsFuncs[fd.Name.Name] {
					continue
				}
				ast.Inspect(fd.Body, func(n ast.Node) bool {
					switch n := n.(type) {
					case *ast.FuncLit: // a command: runs off the loop
						return false
					case *ast.SelectorExpr:
						if id, ok := n.X.(*ast.Ident); ok && (id.Name == "os" || id.Name == "fs" || id.Name == "filepath") {
							fsFuncs[fd.Name.Name] = true
						}
					case *ast.CallExpr:
						if id, ok := n.Fun.(*ast.Ident); ok && fsFuncs[id.Name] {
							fsFuncs[fd.Name.Name] = true
						}
					}
					return true
				})
				grew = grew || fsFuncs[fd.Name.Name]
			}
		}
	}
	if !fsFuncs["writeReportFile"] {
		t.Fatal("the check found no file-system function: it checks nothing")
	}
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil || (fd.Recv == nil && fsFuncs[fd.Name.Name]) {
				continue
			}
			var lits []ast.Node // the func literals enclosing the current node
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				if n == nil {
					return true
				}
				for len(lits) > 0 && n.Pos() >= lits[len(lits)-1].End() {
					lits = lits[:len(lits)-1]
				}
				switch n := n.(type) {
				case *ast.FuncLit:
					lits = append(lits, n)
				case *ast.CallExpr:
					if id, ok := n.Fun.(*ast.Ident); ok && fsFuncs[id.Name] && len(lits) == 0 {
						t.Errorf("%s: %s calls %s (file system) outside a command", fset.Position(n.Pos()), fd.Name.Name, id.Name)
					}
				}
				return true
			})
		}
	}
}
