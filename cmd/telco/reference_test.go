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
	"sort"
	"strings"
	"testing"

	"github.com/spf13/cobra"
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

func indented(line string) bool { return strings.HasPrefix(line, "  ") || strings.HasPrefix(line, "\t") }

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
