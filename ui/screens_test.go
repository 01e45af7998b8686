package ui

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"strings"
	"testing"
)

// The typed pane of a screen, for tests that look inside one (the root
// itself reaches its panes only through the pane contract); nil when the
// screen has no pane of that type.
func paneOn[P pane](m *Model, s screen) P { p, _ := m.panes[s].(P); return p }

func (m *Model) loading() *loadingPane { return paneOn[*loadingPane](m, screenLoading) }
func (m *Model) p1() *phase1Pane       { return paneOn[*phase1Pane](m, screenPhase1) }
func (m *Model) series() *seriesPane   { return paneOn[*seriesPane](m, screenSeries) }
func (m *Model) p2() *phase2Pane       { return paneOn[*phase2Pane](m, screenPhase2) }
func (m *Model) p3() *phase3Pane       { return paneOn[*phase3Pane](m, screenPhase3) }
func (m *Model) drill() *drillPane     { return paneOn[*drillPane](m, screenDrill) }
func (m *Model) chooser() *chooserPane { return paneOn[*chooserPane](m, screenChooser) }

// TestRootRoutesThroughThePaneContract: the root keeps its panes by screen
// (Model.panes) and reaches them through the pane interface: no field of
// Model holds a pane type, and no type switch anywhere in the package picks
// a pane by its type (a new screen is a screen value and its pane file).
func TestRootRoutesThroughThePaneContract(t *testing.T) {
	isPane := func(e ast.Expr) bool {
		if s, ok := e.(*ast.StarExpr); ok {
			e = s.X
		}
		id, ok := e.(*ast.Ident)
		return ok && strings.HasSuffix(id.Name, "Pane")
	}
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	model, switches := false, 0
	for _, f := range pkgs["ui"].Files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.TypeSpec:
				if st, ok := n.Type.(*ast.StructType); ok && n.Name.Name == "Model" {
					model = true
					for _, fl := range st.Fields.List {
						if isPane(fl.Type) {
							t.Errorf("%s: Model holds a %s: keep it in Model.panes", fset.Position(fl.Pos()), types.ExprString(fl.Type))
						}
					}
				}
			case *ast.TypeSwitchStmt:
				switches++
				for _, c := range n.Body.List {
					for _, e := range c.(*ast.CaseClause).List {
						if isPane(e) {
							t.Errorf("%s: a type switch on %s: route through the pane contract", fset.Position(e.Pos()), types.ExprString(e))
						}
					}
				}
			}
			return true
		})
	}
	if !model || switches == 0 {
		t.Fatalf("found the Model struct: %v, type switches: %d: the check checks nothing", model, switches)
	}
}
