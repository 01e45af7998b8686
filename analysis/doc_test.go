package analysis

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Every [name] of the package doc (doc.go's rule list) is a function or a
// method (Type.method) of the package: a renamed rule breaks this test, not
// the reader's search.
func TestDocNamesExist(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	var doc string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		af, err := parser.ParseFile(fset, f, src, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		if af.Doc != nil {
			doc += af.Doc.Text()
		}
		for _, d := range af.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok {
				continue
			}
			name := fd.Name.Name
			if fd.Recv != nil && len(fd.Recv.List) == 1 {
				typ := fd.Recv.List[0].Type
				if s, ok := typ.(*ast.StarExpr); ok {
					typ = s.X
				}
				if id, ok := typ.(*ast.Ident); ok {
					name = id.Name + "." + name
				}
			}
			have[name] = true
		}
	}
	names := regexp.MustCompile(`\[(\w+(?:\.\w+)?)\]`).FindAllStringSubmatch(doc, -1)
	if len(names) < 80 {
		t.Fatalf("the package doc names %d rules; the rule list is missing", len(names))
	}
	for _, n := range names {
		if !have[n[1]] {
			t.Errorf("the package doc names %s: no such function or method", n[1])
		}
	}
	for _, step := range []string{"Step 0", "Step 1", "Step 2.1", "Step 2.2", "Step 2.3", "Step 3.1", "Step 3.2", "Step 3.3", "Step 3.4", "Step 3.5", "Step 3.6"} {
		if !strings.Contains(doc, step+",") {
			t.Errorf("the package doc has no %s", step)
		}
	}
}
