package telco

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/telcosdk/telco/internal/catalog"
)

// undocumented parses the non-test Go files of dir and returns every
// exported name without a doc comment, and every function, method or type
// whose doc comment does not start with its name (an article before it is
// allowed), as "file:line: name: problem". Struct fields and interface
// methods are left to review; constants and variables in a documented
// group are covered by the group's comment.
func undocumented(t *testing.T, dir string) []string {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	require.NoError(t, err)
	var problems []string
	report := func(pos token.Pos, name, problem string) {
		p := fset.Position(pos)
		problems = append(problems, filepath.ToSlash(filepath.Join(dir, filepath.Base(p.Filename)))+
			":"+strconv.Itoa(p.Line)+": "+name+": "+problem)
	}
	checkStart := func(pos token.Pos, name string, doc *ast.CommentGroup) {
		if doc == nil {
			report(pos, name, "no doc comment")
			return
		}
		text := doc.Text()
		for _, article := range []string{"A ", "An ", "The "} {
			text = strings.TrimPrefix(text, article)
		}
		if !strings.HasPrefix(text, name+" ") && !strings.HasPrefix(text, name+",") && !strings.HasPrefix(text, name+"'s ") {
			report(pos, name, "doc comment does not start with the name")
		}
	}
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		require.NoError(t, err)
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				name := d.Name.Name
				if d.Recv != nil {
					recv := receiverType(d.Recv.List[0].Type)
					if !ast.IsExported(recv) {
						continue // not part of the documented API
					}
					checkStart(d.Pos(), name, d.Doc)
					continue
				}
				checkStart(d.Pos(), name, d.Doc)
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						if !s.Name.IsExported() {
							continue
						}
						doc := s.Doc
						if doc == nil && !d.Lparen.IsValid() {
							doc = d.Doc
						}
						checkStart(s.Pos(), s.Name.Name, doc)
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() && s.Doc == nil && s.Comment == nil && d.Doc == nil {
								report(n.Pos(), n.Name, "no doc comment")
							}
						}
					}
				}
			}
		}
	}
	return problems
}

// receiverType names a method's receiver type: T, *T, T[X] or *T[X].
func receiverType(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// TestExportedNamesAreDocumented holds the house rule that every exported
// name has a doc comment starting with the name, in this package, in
// telcotest and in boltledger, so that pkg.go.dev has something to show
// for each.
func TestExportedNamesAreDocumented(t *testing.T) {
	t.Parallel()
	for _, dir := range []string{".", "telcotest", "boltledger"} {
		if _, err := os.Stat(dir); err != nil {
			t.Fatalf("package directory %s: %v", dir, err)
		}
		problems := undocumented(t, dir)
		assert.Empty(t, problems, "undocumented exported names in %s", dir)
	}
}

// TestUndocumentedFindsProblems keeps the checker honest: it must notice a
// missing comment and one that does not start with the name.
func TestUndocumentedFindsProblems(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := `package x

// Good is documented.
func Good() {}

func Bare() {}

// This comment is about something else.
type Misnamed int

// T is documented.
type T struct{}

func (T) Method() {}

// An Article is allowed before the name.
type Article int

var Loose = 1

// Grouped constants share the group's comment.
const (
	One = 1
	Two = 2
)

func (unexported) Hidden() {}

type unexported struct{}
`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "x.go"), []byte(src), 0o600))
	problems := undocumented(t, dir)
	var names []string
	for _, p := range problems {
		parts := strings.SplitN(p, ": ", 3)
		require.Len(t, parts, 3, p)
		names = append(names, parts[1])
	}
	assert.ElementsMatch(t, []string{"Bare", "Misnamed", "Method", "Loose"}, names, "%v", problems)
}

// serviceSource is what the package's non-test files declare about its
// services, read from the syntax: the file that declares each type, the
// method names of each interface, and the type each assertion
// "var _ XxxAPI = (*XxxService)(nil)" holds to its interface.
type serviceSource struct {
	fileOf   map[string]string   // type name -> file
	methods  map[string][]string // interface name -> its method names
	asserted map[string]string   // interface name -> the type asserted to implement it
}

func readServiceSource(t *testing.T) serviceSource {
	t.Helper()
	src := serviceSource{fileOf: map[string]string{}, methods: map[string][]string{}, asserted: map[string]string{}}
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		require.NoError(t, err)
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, spec := range gd.Specs {
				switch sp := spec.(type) {
				case *ast.TypeSpec:
					src.fileOf[sp.Name.Name] = path
					if it, ok := sp.Type.(*ast.InterfaceType); ok {
						for _, m := range it.Methods.List {
							for _, n := range m.Names {
								src.methods[sp.Name.Name] = append(src.methods[sp.Name.Name], n.Name)
							}
						}
					}
				case *ast.ValueSpec:
					// var _ XxxAPI = (*XxxService)(nil)
					iface, ok := sp.Type.(*ast.Ident)
					if !ok || len(sp.Names) != 1 || sp.Names[0].Name != "_" || len(sp.Values) != 1 {
						continue
					}
					if conv, ok := sp.Values[0].(*ast.CallExpr); ok {
						if paren, ok := conv.Fun.(*ast.ParenExpr); ok {
							if star, ok := paren.X.(*ast.StarExpr); ok {
								if id, ok := star.X.(*ast.Ident); ok {
									src.asserted[iface.Name] = id.Name
								}
							}
						}
					}
				}
			}
		}
	}
	return src
}

// TestAPIInterfacesListEveryMethod: each service of the catalogue is
// declared in its own file named after it (NumberBlocksService in
// numberblocks.go), with an interface XxxAPI that names every exported
// method of the service, the All iterators included, so that code written
// against an interface never misses an operation, and a compile-time
// assertion that the service implements it (which checks the signatures).
// The services come from internal/catalog, so a new one needs no entry
// here.
func TestAPIInterfacesListEveryMethod(t *testing.T) {
	t.Parallel()
	src := readServiceSource(t)
	ct := reflect.TypeFor[Client]()
	for _, s := range catalog.Services() {
		svc, api, file := s.Name+"Service", s.Name+"API", strings.ToLower(s.Name)+".go"
		assert.Equal(t, file, src.fileOf[svc], "the catalogue's service %s: declare type %s service in %s", s.Name, svc, file)
		methods, ok := src.methods[api]
		if !assert.True(t, ok, "the catalogue's service %s has no interface %s: declare it in %s with every method of %s", s.Name, api, file, svc) {
			continue
		}
		assert.NotEmpty(t, methods, api)
		assert.Equal(t, svc, src.asserted[api], "%s: add var _ %s = (*%s)(nil), so that the compiler holds %s to it", file, api, svc, svc)
		f, ok := ct.FieldByName(s.Name)
		if !ok {
			continue // TestEveryCatalogueServiceIsOnClient names it
		}
		var missing []string
		for i := range f.Type.NumMethod() {
			if m := f.Type.Method(i).Name; !slices.Contains(methods, m) {
				missing = append(missing, m)
			}
		}
		assert.Empty(t, missing, "%s lacks methods of %s: add them to the interface", api, svc)
	}
}

// TestUserAgentCarriesVersion checks that the Version constant is what the
// service sees, ahead of the caller's own product token.
func TestUserAgentCarriesVersion(t *testing.T) {
	t.Parallel()
	require.NotEmpty(t, Version)
	for _, tt := range []struct {
		name  string
		opts  []Option
		extra string
	}{
		{"default", nil, ""},
		{"with the caller's token", []Option{WithUserAgent("acme-crm/2.1")}, " acme-crm/2.1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, mt := newMockClient(t, tt.opts...)
			req := reply(mt, http.MethodGet, "/v2/Properties/"+testProp, 200, fixture(t, "get_property.json"))
			_, err := c.Properties.Get(context.Background(), testProp)
			require.NoError(t, err)
			got := req.Header.Get("User-Agent")
			want := "telco-go/" + Version + tt.extra
			assert.Equal(t, want, got)
		})
	}
	assert.Regexp(t, `^\d+\.\d+\.\d+$`, Version, "Version is semantic: MAJOR.MINOR.PATCH")
}

// TestChangelogHasVersion keeps CHANGELOG.md in Keep a Changelog form and
// in step with Version: an Unreleased section, and a dated section for the
// version the client reports.
func TestChangelogHasVersion(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("CHANGELOG.md")
	require.NoError(t, err)
	log := string(b)
	assert.Contains(t, log, "\n## [Unreleased]\n")
	assert.Regexp(t, `\n## \[`+regexp.QuoteMeta(Version)+`\] - \d{4}-\d{2}-\d{2}\n`, log,
		"CHANGELOG.md has no dated section for Version %s", Version)
	assert.Contains(t, log, "\n["+Version+"]: ", "a link for the version's section")
}

// operationNumber matches a reference to the interface document's
// numbering ("operation 8", "(op 2)", "ops 1, 2"), across a line break.
var operationNumber = regexp.MustCompile(`(?i)\b(operations?|ops?)\s+\d`)

// operationNumbers parses the non-test Go files of dir and returns every
// doc comment that go doc shows (the package's, and those of exported
// names, struct fields and interface methods included) that names an
// operation by its number, as "file:line: text".
func operationNumbers(t *testing.T, dir string) []string {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	require.NoError(t, err)
	var found []string
	check := func(cg *ast.CommentGroup) {
		if cg == nil {
			return
		}
		text := strings.Join(strings.Fields(cg.Text()), " ")
		if m := operationNumber.FindString(text); m != "" {
			p := fset.Position(cg.Pos())
			found = append(found, filepath.ToSlash(filepath.Join(dir, filepath.Base(p.Filename)))+":"+strconv.Itoa(p.Line)+": "+m)
		}
	}
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		require.NoError(t, err)
		check(f.Doc)
		ast.FileExports(f) // what go doc shows: exported names and their exported parts
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BlockStmt:
				return false // a function's body is not documentation
			case *ast.FuncDecl:
				check(n.Doc)
			case *ast.GenDecl:
				check(n.Doc)
			case *ast.TypeSpec:
				check(n.Doc)
				check(n.Comment)
			case *ast.ValueSpec:
				check(n.Doc)
				check(n.Comment)
			case *ast.Field:
				check(n.Doc)
				check(n.Comment)
			}
			return true
		})
	}
	return found
}

// go doc names operations by what they do, never by their number in the
// interface document, which a user of the SDK has not read (issue 36:
// "(operation 8)" on Messages.Find).
func TestDocNamesNoOperationNumbers(t *testing.T) {
	t.Parallel()
	for _, dir := range []string{".", "telcotest", "boltledger"} {
		assert.Empty(t, operationNumbers(t, dir), "doc comments in %s that name an operation by its number", dir)
	}
}

// TestOperationNumbersFindsThem keeps the checker honest: a number split
// from its word by a line break, in a field or in the package doc, is
// found; a number in an unexported name's comment or a body is not.
func TestOperationNumbersFindsThem(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := `// Package x is about operation
// 8.
package x

// Find finds (operation
// 8).
func Find() {}

// T holds.
type T struct {
	// F is set by op 2.
	F int
	// g is op 3, but unexported.
	g int
}

// hidden is operation 4, but unexported.
func hidden() {
	// operation 5, in a body.
	_ = 0
}

// Five operations are fine: no number follows the word.
const Five = 5
`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "x.go"), []byte(src), 0o600))
	found := operationNumbers(t, dir)
	var lines []string
	for _, f := range found {
		parts := strings.SplitN(f, ":", 3)
		require.Len(t, parts, 3, f)
		lines = append(lines, parts[1])
	}
	assert.ElementsMatch(t, []string{"1", "5", "11"}, lines, "%v", found)
}
