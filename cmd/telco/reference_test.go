package main

// The CLI reference in docs/ is generated from the command tree, so that
// it cannot say what the tool does not do: one page for the tool (its
// global flags and every command), and one page per top-level command
// with each of its subcommands. TestCLIReference fails when a page is
// stale, missing or left over; -update rewrites them. It is a small
// generator of its own: cobra's doc package would bring go-md2man and
// blackfriday into the module for what a page of code does.

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// referenceDir is where the reference is written, beside this file.
const referenceDir = "docs"

// regenerate is the command that rewrites the reference.
const regenerate = "go test ./cmd/telco -run TestCLIReference -update"

// reference renders the reference: file name to content.
func reference(root *cobra.Command) map[string]string {
	pages := map[string]string{}
	var idx bytes.Buffer
	fmt.Fprintf(&idx, "<!-- Generated from the command tree by %s; do not edit. -->\n\n", regenerate)
	fmt.Fprintf(&idx, "# telco command reference\n\n%s.\n\n", strings.TrimSuffix(root.Short, "."))
	writeBody(&idx, root)
	fmt.Fprintf(&idx, "## Global flags\n\nEvery command takes these.\n\n```text\n%s```\n\n", root.PersistentFlags().FlagUsages())
	fmt.Fprintf(&idx, "## Commands\n\n| Command | What it does |\n|---|---|\n")
	for _, top := range available(root) {
		page := pageName(top)
		walk(top, func(c *cobra.Command) {
			if c.IsAvailableCommand() {
				fmt.Fprintf(&idx, "| [`%s`](%s#%s) | %s |\n", c.CommandPath(), page, anchor(c), strings.ReplaceAll(c.Short, "|", `\|`))
			}
		})
		var b bytes.Buffer
		fmt.Fprintf(&b, "<!-- Generated from the command tree by %s; do not edit. -->\n\n", regenerate)
		writeCommand(&b, top, 1)
		pages[page] = b.String()
	}
	pages["README.md"] = idx.String()
	return pages
}

// available are c's subcommands a user sees, by name.
func available(c *cobra.Command) []*cobra.Command {
	var out []*cobra.Command
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() {
			out = append(out, sub)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out
}

func pageName(top *cobra.Command) string { return "telco_" + top.Name() + ".md" }

// anchor is the link GitHub makes for the heading of c.
func anchor(c *cobra.Command) string {
	return strings.ReplaceAll(strings.ToLower(c.CommandPath()), " ", "-")
}

// writeCommand writes c and, below it, its subcommands.
func writeCommand(b *bytes.Buffer, c *cobra.Command, level int) {
	fmt.Fprintf(b, "%s %s\n\n", strings.Repeat("#", level), c.CommandPath())
	if c.Short != "" {
		fmt.Fprintf(b, "%s.\n\n", strings.TrimSuffix(c.Short, "."))
	}
	fmt.Fprintf(b, "```text\n%s\n```\n\n", c.UseLine())
	writeBody(b, c)
	if ops := operationsOf(c); len(ops) > 0 {
		fmt.Fprintf(b, "Calls the SDK's `%s`.\n\n", strings.Join(ops, "`, `"))
	}
	if c.Example != "" {
		fmt.Fprintf(b, "Examples:\n\n```sh\n%s\n```\n\n", dedent(c.Example))
	}
	if fs := c.LocalNonPersistentFlags(); fs.HasAvailableFlags() {
		fmt.Fprintf(b, "Flags:\n\n```text\n%s```\n\n", fs.FlagUsages())
	}
	fmt.Fprintf(b, "The [global flags](README.md#global-flags) apply too.\n\n")
	subs := available(c)
	if len(subs) > 0 {
		fmt.Fprintf(b, "Commands:\n\n")
		for _, sub := range subs {
			fmt.Fprintf(b, "- [`%s`](#%s): %s\n", sub.CommandPath(), anchor(sub), sub.Short)
		}
		fmt.Fprintln(b)
	}
	for _, sub := range subs {
		writeCommand(b, sub, level+1)
	}
}

// writeBody writes a command's Long help as Markdown: its paragraphs as
// they are, its indented lines (examples, lists of names) as code.
func writeBody(b *bytes.Buffer, c *cobra.Command) {
	long := strings.TrimSpace(c.Long)
	if long == "" {
		return
	}
	lines := strings.Split(long, "\n")
	for i := 0; i < len(lines); {
		if !indented(lines[i]) {
			fmt.Fprintln(b, strings.TrimRight(lines[i], " "))
			i++
			continue
		}
		j := i
		for j < len(lines) && (indented(lines[j]) || (strings.TrimSpace(lines[j]) == "" && j+1 < len(lines) && indented(lines[j+1]))) {
			j++
		}
		fmt.Fprintf(b, "```text\n%s\n```\n", dedent(strings.Join(lines[i:j], "\n")))
		i = j
	}
	fmt.Fprintln(b)
}

func indented(line string) bool {
	return strings.HasPrefix(line, "  ") || strings.HasPrefix(line, "\t")
}

// dedent removes the indent the lines share.
func dedent(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	common := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, " \t"))
		if common < 0 || n < common {
			common = n
		}
	}
	for i, l := range lines {
		if len(l) >= common && common > 0 {
			lines[i] = l[common:]
		}
	}
	return strings.Join(lines, "\n")
}

// The reference in docs/ is the command tree's: a command, flag or help
// text changed without regenerating it fails here, naming the page.
func TestCLIReference(t *testing.T) {
	t.Parallel()
	pages := reference(testTree())
	if *update {
		require.NoError(t, os.MkdirAll(referenceDir, 0o755))
		old, _ := filepath.Glob(filepath.Join(referenceDir, "*.md"))
		for _, p := range old {
			if _, ok := pages[filepath.Base(p)]; !ok {
				require.NoError(t, os.Remove(p))
			}
		}
		for name, content := range pages {
			require.NoError(t, os.WriteFile(filepath.Join(referenceDir, name), []byte(content), 0o644))
		}
		return
	}
	for name, want := range pages {
		path := filepath.Join("cmd", "telco", referenceDir, name)
		got, err := os.ReadFile(filepath.Join(referenceDir, name))
		switch {
		case err != nil:
			t.Errorf("%s is missing (%v): regenerate the reference with %s", path, err, regenerate)
		case string(got) != want:
			t.Errorf("%s is stale: the command tree says otherwise; regenerate the reference with %s", path, regenerate)
		}
	}
	old, err := filepath.Glob(filepath.Join(referenceDir, "*.md"))
	require.NoError(t, err)
	for _, p := range old {
		if _, ok := pages[filepath.Base(p)]; !ok {
			t.Errorf("cmd/telco/%s documents no command: regenerate the reference with %s, which removes it", filepath.ToSlash(p), regenerate)
		}
	}
}

// commandLines finds the telco command lines a Markdown text shows: the
// lines of its sh code blocks that run telco (after a pipe, $( or <(
// too), and its inline code that starts with "telco ".
func commandLines(md string) []string {
	var out []string
	take := func(s string) {
		for _, m := range telcoCallRe.FindAllStringIndex(s, -1) {
			cmd := s[m[0]:]
			cmd = cmd[strings.Index(cmd, "telco "):]
			if i := shellEndRe.FindStringIndex(cmd); i != nil {
				cmd = cmd[:i[0]]
			}
			out = append(out, strings.TrimSpace(cmd))
		}
	}
	inSh := false
	for _, line := range strings.Split(strings.ReplaceAll(md, "\\\n", " "), "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "```"):
			inSh = !inSh && (trimmed == "```sh" || trimmed == "```bash")
		case inSh:
			if i := strings.Index(line, " #"); i >= 0 {
				line = line[:i] // a comment
			}
			take(line)
		default:
			for _, m := range inlineCodeRe.FindAllStringSubmatch(line, -1) {
				take(m[1])
			}
		}
	}
	return out
}

var (
	// telcoCallRe is where a command line runs telco.
	telcoCallRe = regexp.MustCompile(`(^|[\s|(;])telco `)
	// shellEndRe is where the command ends: a pipe, a redirection, a
	// comment, a subshell's end, another command.
	shellEndRe   = regexp.MustCompile(` \| | \|\| | > | 2> | # |\)|;| && |&$`)
	inlineCodeRe = regexp.MustCompile("`(telco [^`]+)`")
)

// The documents show commands and flags that exist: every telco command
// line in the README's command-line section and in cmd/telco/README.md
// names a command of the tree, with flags that command takes.
func TestDocumentsShowRealCommands(t *testing.T) {
	t.Parallel()
	root := testTree()
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	require.NoError(t, err)
	section := string(readme)
	start := strings.Index(section, "## Command line: telco")
	require.GreaterOrEqual(t, start, 0, "README.md has its command-line section")
	section = section[start:]
	if end := strings.Index(section[3:], "\n## "); end >= 0 {
		section = section[:end+3]
	}
	operators, err := os.ReadFile("README.md")
	require.NoError(t, err)
	n := 0
	for doc, text := range map[string]string{"README.md (Command line: telco)": section, "cmd/telco/README.md": string(operators)} {
		for _, line := range commandLines(text) {
			n++
			words := strings.Fields(strings.NewReplacer(`"`, " ", `'`, " ").Replace(line))[1:]
			cmd, rest, err := root.Find(words)
			if !assert.NoError(t, err, "%s shows %q", doc, line) {
				continue
			}
			if cmd.HasSubCommands() && len(rest) > 0 && !strings.HasPrefix(rest[0], "-") && rest[0] != strings.ToUpper(rest[0]) {
				t.Errorf("%s shows %q: %s has no command %q", doc, line, cmd.CommandPath(), rest[0])
			}
			for _, w := range words {
				if !strings.HasPrefix(w, "-") || w == "-" || strings.HasPrefix(w, "-6") || strings.HasPrefix(w, "-1") {
					continue
				}
				name, _, _ := strings.Cut(strings.TrimLeft(w, "-"), "=")
				if name == "help" || name == "version" && cmd == root {
					continue // cobra adds these as the command runs
				}
				var f *pflag.Flag
				if strings.HasPrefix(w, "--") {
					f = cmd.Flags().Lookup(name)
					if f == nil {
						f = cmd.InheritedFlags().Lookup(name)
					}
				} else if len(name) == 1 {
					f = cmd.Flags().ShorthandLookup(name)
					if f == nil {
						f = cmd.InheritedFlags().ShorthandLookup(name)
					}
				}
				assert.NotNil(t, f, "%s shows %q: %s takes no %s", doc, line, cmd.CommandPath(), w)
			}
		}
	}
	assert.Greater(t, n, 30, "the documents' command lines were found")

	// The table of telco mock's flags lists exactly the flags it takes.
	mock, _, err := root.Find([]string{"mock"})
	require.NoError(t, err)
	_, table, found := strings.Cut(string(operators), "| Flag | What it does |")
	require.True(t, found, "cmd/telco/README.md has the table of telco mock's flags")
	table, _, _ = strings.Cut(table, "\n\n")
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile("`--([a-z0-9-]+)").FindAllStringSubmatch(table, -1) {
		listed[m[1]] = true
	}
	mock.LocalNonPersistentFlags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden && f.Name != "help" {
			assert.True(t, listed[f.Name], "the table of telco mock's flags in cmd/telco/README.md leaves out --%s", f.Name)
			delete(listed, f.Name)
		}
	})
	for name := range listed {
		t.Errorf("the table of telco mock's flags in cmd/telco/README.md lists --%s, which telco mock does not take", name)
	}
}
