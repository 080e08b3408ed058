package riversend_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestExportedNamesAreDocumented keeps a doc comment on every exported
// top-level name of the module's packages, as the SDK's own test does.
func TestExportedNamesAreDocumented(t *testing.T) {
	for _, dir := range []string{".", "pgtest"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		fset := token.NewFileSet()
		checked := 0
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range f.Decls {
				switch d := d.(type) {
				case *ast.FuncDecl:
					if d.Name.IsExported() && (d.Recv == nil || exportedRecv(d.Recv)) {
						checked++
						if d.Doc == nil {
							t.Errorf("%s: %s has no doc comment", fset.Position(d.Pos()), d.Name.Name)
						}
					}
				case *ast.GenDecl:
					for _, s := range d.Specs {
						var names []*ast.Ident
						var doc *ast.CommentGroup
						switch s := s.(type) {
						case *ast.TypeSpec:
							names, doc = []*ast.Ident{s.Name}, s.Doc
						case *ast.ValueSpec:
							names, doc = s.Names, s.Doc
						}
						for _, n := range names {
							if n.IsExported() {
								checked++
								if doc == nil && d.Doc == nil {
									t.Errorf("%s: %s has no doc comment", fset.Position(n.Pos()), n.Name)
								}
							}
						}
					}
				}
			}
		}
		if checked == 0 {
			t.Errorf("%s: no exported names found; is the path right?", dir)
		}
	}
}

func exportedRecv(r *ast.FieldList) bool {
	t := r.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	id, ok := t.(*ast.Ident)
	return ok && id.IsExported()
}
