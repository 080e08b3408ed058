package telco_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	mdLink      = regexp.MustCompile(`\]\(([^)#\s]+)(#[^)]*)?\)`)
	backticked  = regexp.MustCompile("`([^`\\s]+)`")
	fileLike    = regexp.MustCompile(`^[A-Za-z0-9_./-]+\.(go|md|yaml|yml|sh|json|csv|golden|txt)$|^[a-z0-9_.-]+(/[A-Za-z0-9_.-]+)+/?$`)
	testFuncRef = regexp.MustCompile(`^(Test|Benchmark|Fuzz|Example)[A-Z_][A-Za-z0-9_]*$`)
	testFuncDef = regexp.MustCompile(`(?m)^func ((Test|Benchmark|Fuzz|Example)[A-Za-z0-9_]*)\(`)
)

// TestDocumentsCiteWhatExists: every file a Markdown document of the
// repository links to or names in backticks (a path with a slash, or a
// file name with an extension), and every test, benchmark or fuzz target
// it names, exists; a document that cites a file renamed or removed fails
// here by name.
func TestDocumentsCiteWhatExists(t *testing.T) {
	t.Parallel()
	root := "."
	funcs := map[string]bool{}
	files := map[string]bool{} // base names of every file, for bare names
	var docs []string
	require.NoError(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && p != ".") {
			return filepath.SkipDir
		}
		if d.IsDir() {
			return nil
		}
		files[d.Name()] = true
		switch {
		case strings.HasSuffix(p, "_test.go"):
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for _, m := range testFuncDef.FindAllStringSubmatch(string(b), -1) {
				funcs[m[1]] = true
			}
		case strings.HasSuffix(p, ".md") && !strings.Contains(p, "testdata") && d.Name() != "CHANGELOG.md":
			// The changelog records history, files since removed included.
			docs = append(docs, p)
		}
		return nil
	}))
	require.NotEmpty(t, docs)
	topDirs := map[string]bool{}
	entries, err := os.ReadDir(root)
	require.NoError(t, err)
	for _, e := range entries {
		if e.IsDir() {
			topDirs[e.Name()] = true
		}
	}
	for _, doc := range docs {
		b, err := os.ReadFile(doc)
		require.NoError(t, err)
		text := string(b)
		dir := filepath.Dir(doc)
		exists := func(ref string) bool {
			ref = strings.TrimSuffix(ref, "/")
			for _, base := range []string{dir, root} {
				if _, err := os.Stat(filepath.Join(base, ref)); err == nil {
					return true
				}
			}
			return !strings.Contains(ref, "/") && files[ref]
		}
		for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
			ref := m[1]
			if strings.Contains(ref, "://") || strings.HasPrefix(ref, "mailto:") {
				continue
			}
			assert.True(t, exists(ref), "%s links to %s, which does not exist", doc, ref)
		}
		for _, m := range backticked.FindAllStringSubmatch(text, -1) {
			ref := m[1]
			switch {
			case testFuncRef.MatchString(ref):
				assert.True(t, funcs[ref], "%s names %s, which no test file defines", doc, ref)
			case fileLike.MatchString(ref) && cited(ref, topDirs):
				assert.True(t, exists(ref), "%s names %s, which does not exist", doc, ref)
			}
		}
	}
}

// cited says whether a backticked name is meant as a file of this
// repository: a path under one of its top directories, or a bare file
// name with an extension; import paths (net/http) and placeholders
// (thing.go, examples/NAME/) are not.
func cited(ref string, topDirs map[string]bool) bool {
	if strings.Contains(ref, "thing") || strings.Contains(ref, "NAME") || strings.Contains(ref, "...") {
		return false
	}
	first, _, nested := strings.Cut(ref, "/")
	if nested {
		return topDirs[first]
	}
	ext := filepath.Ext(ref)
	return ext == ".go" || ext == ".md" || ext == ".sh" || ext == ".yaml" || ext == ".golden"
}
