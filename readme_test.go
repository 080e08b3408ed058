package telco_test

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readmeBlock is one ```go block of a Markdown file: the file, the line of
// the block's first line of code, and the code.
type readmeBlock struct {
	file string
	line int
	code string
}

// readmeGoBlocks returns the ```go blocks of a Markdown file, in order.
func readmeGoBlocks(t *testing.T, path string) []readmeBlock {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var (
		blocks []readmeBlock
		cur    *readmeBlock
		code   strings.Builder
	)
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && strings.TrimSpace(line) == "```go":
			cur = &readmeBlock{file: filepath.Base(path), line: n + 1}
			code.Reset()
		case cur != nil && strings.TrimSpace(line) == "```":
			cur.code = code.String()
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			code.WriteString(line + "\n")
		}
	}
	require.NoError(t, sc.Err())
	require.Nil(t, cur, "%s: a ```go block starting at line %d is not closed", path, func() int {
		if cur == nil {
			return 0
		}
		return cur.line - 1
	}())
	return blocks
}

// fragmentImports are the packages a README fragment (a block without a
// package clause) may use without importing them; each is referenced once
// so that a fragment need not use them all.
var fragmentImports = []struct{ path, use string }{
	{"context", "context.Background"},
	{"errors", "errors.Is"},
	{"fmt", "fmt.Println"},
	{"log", "log.Println"},
	{"net/http", "http.NewRequest"},
	{"net/http/httptest", "httptest.NewServer"},
	{"os", "os.Getenv"},
	{"testing", "testing.Short"},
	{"time", "time.Now"},
	{"github.com/jarcoal/httpmock", "httpmock.NewMockTransport"},
	{"github.com/telcosdk/telco", "telco.NewClient"},
	{"github.com/telcosdk/telco/telcotest", "telcotest.NewServer"},
}

// topLevelFunc spots a fragment made of declarations (a test function, a
// helper) rather than statements.
var topLevelFunc = regexp.MustCompile(`(?m)^func `)

// readmeSource turns a block into a Go file. A block with a package clause
// is a whole file and is used as it is. Any other block is a fragment: one
// of declarations is put at the top level, one of statements in a function
// body where ctx, client, propertySid and t are already declared, as the
// README's prose says they are. A //line directive makes the compiler
// report positions as lines of the Markdown file.
func readmeSource(pkg string, b readmeBlock) (name, src string) {
	directive := fmt.Sprintf("//line %s:%d\n", b.file, b.line)
	if strings.HasPrefix(strings.TrimSpace(b.code), "package ") || strings.Contains(b.code, "\npackage ") {
		name = "block.go"
		if regexp.MustCompile(`(?m)^package \w+_test\b`).MatchString(b.code) {
			name = "block_test.go"
		}
		return name, directive + b.code
	}
	var s strings.Builder
	s.WriteString("package " + pkg + "\n\nimport (\n")
	for _, imp := range fragmentImports {
		fmt.Fprintf(&s, "\t%q\n", imp.path)
	}
	s.WriteString(")\n\n")
	for _, imp := range fragmentImports {
		fmt.Fprintf(&s, "var _ = %s\n", imp.use)
	}
	if topLevelFunc.MatchString(b.code) {
		s.WriteString(directive + b.code)
		return "block.go", s.String()
	}
	s.WriteString("\nfunc _(ctx context.Context, client *telco.Client, propertySid string, t *testing.T) {\n")
	s.WriteString(directive + b.code)
	s.WriteString("}\n")
	return "block.go", s.String()
}

// readmeDocs are the Markdown files whose Go blocks must compile.
var readmeDocs = []string{"README.md", "RELIABILITY.md", "SECURITY.md", "CONTRIBUTING.md", "TESTING.md"}

// TestReadmeGoBlocksCompile type-checks and vets every ```go block of
// README.md and the documents beside it against this module, so that they
// never show code that no longer builds. All blocks go into one temporary
// module (a package each) that replaces the SDK with this checkout; one
// `go vet` run checks them, offline, from the module cache the main
// module's tests already use.
func TestReadmeGoBlocksCompile(t *testing.T) {
	var blocks []readmeBlock
	for _, doc := range readmeDocs {
		found := readmeGoBlocks(t, doc)
		if doc == "README.md" {
			require.NotEmpty(t, found, "README.md has Go blocks to check")
		}
		blocks = append(blocks, found...)
	}

	root, err := os.Getwd()
	require.NoError(t, err)
	goMod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	require.NoError(t, err)
	goSum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	require.NoError(t, err)

	dir := t.TempDir()
	// The main module's requirements, so that fragments find httpmock and
	// friends at the versions whose sums go.sum holds.
	reqs := regexp.MustCompile(`(?s)require \((.*?)\)`).FindAllSubmatch(goMod, -1)
	var mod strings.Builder
	mod.WriteString("module example.com/readme\n\ngo 1.23\n\nrequire github.com/telcosdk/telco v0.0.0\n\n")
	for _, r := range reqs {
		mod.WriteString("require (" + string(r[1]) + ")\n\n")
	}
	fmt.Fprintf(&mod, "replace github.com/telcosdk/telco => %s\n", root)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte(mod.String()), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.sum"), goSum, 0o644))

	for i, b := range blocks {
		pkg := fmt.Sprintf("b%02d", i)
		name, src := readmeSource(pkg, b)
		require.NoError(t, os.MkdirAll(filepath.Join(dir, pkg), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, pkg, name), []byte(src), 0o644))
	}

	goTool := goCommand(t)
	cmd := exec.Command(goTool, "vet", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off", "GOTOOLCHAIN=local")
	out, err := cmd.CombinedOutput()
	if err == nil {
		return
	}
	// Name each failing block by the line of its opening ```go.
	failed := map[readmeBlock]bool{}
	for _, m := range regexp.MustCompile(`([A-Z]+\.md):(\d+)`).FindAllSubmatch(out, -1) {
		var n int
		fmt.Sscan(string(m[2]), &n)
		var hit readmeBlock
		for _, b := range blocks {
			if b.file == string(m[1]) && b.line <= n && b.line > hit.line {
				hit = b
			}
		}
		failed[hit] = true
	}
	for _, b := range blocks {
		if failed[b] {
			t.Errorf("%s:%d: this ```go block does not compile or vet", b.file, b.line-1)
		}
	}
	t.Fatalf("go vet of the documents' Go blocks failed:\n%s", bytes.TrimSpace(out))
}

// goCommand finds the go tool: on PATH, else under GOROOT.
func goCommand(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	if root := os.Getenv("GOROOT"); root != "" {
		p := filepath.Join(root, "bin", "go")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	t.Fatal("no go tool on PATH or under GOROOT")
	return ""
}

// The README is a user's introduction: the details live in the documents
// it links, and it stays short enough to read in one sitting.
func TestReadmeStaysAnIntroduction(t *testing.T) {
	b, err := os.ReadFile("README.md")
	require.NoError(t, err)
	lines := bytes.Count(b, []byte("\n"))
	require.Less(t, lines, 350, "README.md has %d lines: move details to the documents it links", lines)
}

// boldLeads returns the bold words that open a paragraph ("**A stub.**
// Depend on...") in text, in order.
func boldLeads(text string) []string {
	var leads []string
	for _, m := range regexp.MustCompile(`(?m)^\*\*([^*]+)\*\*`).FindAllStringSubmatch(text, -1) {
		leads = append(leads, m[1])
	}
	return leads
}

// TESTING.md holds the details of the ways the README's "Testing your
// code" introduces, under the same names and in the same order, and
// speaks of no other (issue 36: it still named a hand-written fake the
// README had replaced with telcotest.MessagesStub).
func TestTestingGuideFollowsTheReadme(t *testing.T) {
	section := readmeSection(t, "Testing your code")
	ways := boldLeads(section)
	require.Len(t, ways, 3, "the README's testing section introduces three ways: %v", ways)

	guide, err := os.ReadFile("TESTING.md")
	require.NoError(t, err)
	var found []string
	for _, lead := range boldLeads(string(guide)) {
		for _, w := range ways {
			if lead == w {
				found = append(found, lead)
			}
		}
	}
	require.Equal(t, ways, found, "TESTING.md has a paragraph for each of the README's ways, led by the same words, in the same order")
	intro, _, _ := strings.Cut(string(guide), "\n\n**")
	assert.NotContains(t, strings.ToLower(intro), "hand-written fake", "TESTING.md's introduction names the README's ways")
	for _, w := range ways {
		assert.Contains(t, intro, strings.Trim(strings.ToLower(w), "."), "TESTING.md's introduction names %q", w)
	}
}

// Every recipe that turns retries off for httpmock says why: a request no
// responder matches would otherwise be retried, with backoff, for about
// two seconds before the test sees it fail.
func TestHTTPMockRecipesSayWhyRetriesAreOff(t *testing.T) {
	files := []string{"README.md", "TESTING.md"}
	for _, pattern := range []string{"example_*_test.go", "examples/*/*.go"} {
		more, err := filepath.Glob(pattern)
		require.NoError(t, err)
		files = append(files, more...)
	}
	n := 0
	for _, path := range files {
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		if !bytes.Contains(b, []byte("httpmock")) {
			continue
		}
		lines := strings.Split(string(b), "\n")
		for i, line := range lines {
			if !strings.Contains(line, "MaxRetries: 0") {
				continue
			}
			n++
			near := strings.ToLower(strings.Join(lines[max(0, i-6):min(len(lines), i+3)], " "))
			assert.True(t, strings.Contains(near, "unmatched") || strings.Contains(near, "no responder"),
				"%s:%d sets MaxRetries: 0 without saying why (an unmatched request is retried for about 2 s)", path, i+1)
		}
	}
	assert.GreaterOrEqual(t, n, 3, "the recipes in TESTING.md and the examples")
}

// README's install section is true of the repository as it is: what
// works from a clone comes first, and what needs a published release
// (go install ...@latest, the release archives, the registry's image)
// only after the words that say so (issue 36).
func TestReadmeInstallSaysWhatNeedsARelease(t *testing.T) {
	section := readmeSection(t, "Install")
	clone, released, found := strings.Cut(section, "Once a version is tagged")
	require.True(t, found, "the section says what needs a tagged release, after what works today:\n%s", section)
	for _, needsRelease := range []string{"@latest", "ghcr.io", "archives"} {
		assert.NotContains(t, clone, needsRelease, "what works from a clone comes first")
		assert.Contains(t, released, needsRelease, "and what needs a release after")
	}
	for _, today := range []string{"go install ./cmd/telco", "go run ./cmd/telco", "go build ./cmd/telco", "docker build"} {
		assert.Contains(t, clone, today, "what works from a clone today")
	}
}

// readmeSection returns README.md's "## title" section, from its heading to
// the next one.
func readmeSection(t *testing.T, title string) string {
	t.Helper()
	b, err := os.ReadFile("README.md")
	require.NoError(t, err)
	s := string(b)
	start := strings.Index(s, "\n## "+title+"\n")
	require.GreaterOrEqual(t, start, 0, "README.md has a %q section", title)
	s = s[start+1:]
	if end := strings.Index(s[3:], "\n## "); end >= 0 {
		s = s[:end+3]
	}
	return s
}
