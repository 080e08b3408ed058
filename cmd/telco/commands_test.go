package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/telcosdk/telco/internal/catalog"
)

// testTree is the command tree as it runs, for tests that read it.
func testTree() *cobra.Command {
	return newApp(context.Background(), newInterrupts(nil), strings.NewReader(""), io.Discard, io.Discard, envOf(nil)).commandTree()
}

// walk calls fn for c and every command below it, parents first.
func walk(c *cobra.Command, fn func(*cobra.Command)) {
	fn(c)
	for _, sub := range c.Commands() {
		walk(sub, fn)
	}
}

// operationProblems holds the command tree and the catalogue to each
// other: every row has a command that names it unless its NoCommand says
// why, every operation a command names is a row, and every command that
// runs names its operations or says why it calls none. sources are the
// command files' texts by name: a row that one of them names in ops(...)
// while no command of the tree does has a command that is not in the tree
// (not in its group, or its group not in rootCmd).
func operationProblems(root *cobra.Command, rows []catalog.Operation, sources map[string]string) []string {
	known := map[string]catalog.Operation{}
	for _, o := range rows {
		known[o.Name] = o
	}
	var out []string
	named := map[string][]string{}
	walk(root, func(c *cobra.Command) {
		path := c.CommandPath()
		names := operationsOf(c)
		_, none := c.Annotations[annNoOperation]
		for _, op := range names {
			if _, ok := known[op]; !ok {
				out = append(out, fmt.Sprintf("%s names operation %q, which is no row of internal/catalog", path, op))
			}
			named[op] = append(named[op], path)
		}
		switch {
		case len(names) > 0 && none:
			out = append(out, fmt.Sprintf("%s names operations and says it calls none", path))
		case c.HasSubCommands() || !c.Runnable():
		case len(names) == 0 && !none:
			out = append(out, fmt.Sprintf("%s names no operation: give it Annotations: ops(...), or noOps(why) when it calls none", path))
		}
	})
	for _, o := range rows {
		switch cmds := named[o.Name]; {
		case o.NoCommand == "" && len(cmds) == 0:
			if file := namedIn(sources, o.Name); file != "" {
				out = append(out, fmt.Sprintf("catalogue row %s has no command in the tree, though %s names it: list the command in its group's a.group(...), and the group in rootCmd's AddCommand (root.go)", o.Name, file))
				continue
			}
			out = append(out, fmt.Sprintf("catalogue row %s has no command: add one with Annotations: ops(%q), or say why in the row's NoCommand", o.Name, o.Name))
		case o.NoCommand != "" && len(cmds) > 0:
			out = append(out, fmt.Sprintf("catalogue row %s says it has no command (%s), but %s names it: drop the NoCommand", o.Name, o.NoCommand, strings.Join(cmds, ", ")))
		}
	}
	return out
}

// namedIn is the first file, in name order, whose text passes name to
// ops(...), or "".
func namedIn(sources map[string]string, name string) string {
	re := regexp.MustCompile(`ops\([^)]*"` + regexp.QuoteMeta(name) + `"`)
	for _, file := range slices.Sorted(maps.Keys(sources)) {
		if re.MatchString(sources[file]) {
			return file
		}
	}
	return ""
}

// commandSources are the texts of the package's non-test Go files.
func commandSources(t *testing.T) map[string]string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	out := map[string]string{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		out["cmd/telco/"+f] = string(b)
	}
	return out
}

// Every operation of the catalogue is reachable from the command line, or
// the catalogue says why not; no command names an operation that does
// not exist.
func TestEveryOperationHasACommand(t *testing.T) {
	t.Parallel()
	root := testTree()
	for _, p := range operationProblems(root, catalog.Operations(), commandSources(t)) {
		t.Error(p)
	}
	// Each command that names an operation can be asked for its help.
	walk(root, func(c *cobra.Command) {
		if len(operationsOf(c)) > 0 {
			args := append(strings.Fields(strings.TrimPrefix(c.CommandPath(), "telco")), "--help")
			assert.Equal(t, c, mustFind(t, root, args), c.CommandPath())
		}
	})
}

func mustFind(t *testing.T, root *cobra.Command, args []string) *cobra.Command {
	t.Helper()
	c, _, err := root.Find(args)
	assert.NoError(t, err, args)
	return c
}

// The check itself fails where it should: a row without a command, a
// command naming no row, a command naming nothing, and a reason that has
// gone stale.
func TestOperationProblemsAreFound(t *testing.T) {
	t.Parallel()
	run := func(*cobra.Command, []string) error { return nil }
	root := &cobra.Command{Use: "telco"}
	root.AddCommand(
		&cobra.Command{Use: "a", RunE: run, Annotations: ops("S.A", "S.Typo")},
		&cobra.Command{Use: "b", RunE: run},
		&cobra.Command{Use: "c", RunE: run, Annotations: noOps("local")},
		&cobra.Command{Use: "d", RunE: run, Annotations: ops("S.D")},
	)
	got := operationProblems(root, []catalog.Operation{{Name: "S.A"}, {Name: "S.Missing"},
		{Name: "S.D", NoCommand: "not for the command line"}, {Name: "S.Absent", NoCommand: "deliberately"}, {Name: "S.Unlisted"}},
		map[string]string{"cmd/telco/e.go": `Annotations: ops("S.Other", "S.Unlisted")`, "cmd/telco/f.go": `"S.Missing"`})
	assert.ElementsMatch(t, []string{
		`telco a names operation "S.Typo", which is no row of internal/catalog`,
		"telco b names no operation: give it Annotations: ops(...), or noOps(why) when it calls none",
		`catalogue row S.Missing has no command: add one with Annotations: ops("S.Missing"), or say why in the row's NoCommand`,
		"catalogue row S.D says it has no command (not for the command line), but telco d names it: drop the NoCommand",
		"catalogue row S.Unlisted has no command in the tree, though cmd/telco/e.go names it: list the command in its group's a.group(...), and the group in rootCmd's AddCommand (root.go)",
	}, got)
}

// A mistyped command is named, with a suggestion, even when flags follow
// it; a flag given to the wrong command names the commands that take it.
func TestMistypesAreNamed(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"sms", "sedn", "--to", "x"}, `telco: unknown command "sedn" for "telco sms"; did you mean send?`},
		{[]string{"-o", "json", "sms", "sedn", "--to", "x"}, `unknown command \"sedn\" for \"telco sms\"; did you mean send?`},
		{[]string{"projcts", "list", "--frob"}, `unknown command "projcts" for "telco"; did you mean projects?`},
		{[]string{"sms", "find", "--text", "hi"}, "telco: unknown flag --text for telco sms find; it belongs to: telco sms send\n"},
		{[]string{"numbers", "get", "+61299990000", "--routing", "Flow"}, "unknown flag --routing for telco numbers get; it belongs to: telco numbers configure\n"},
		{[]string{"sms", "find", "-y"}, "unknown flag -y for telco sms find; it belongs to: telco addresses delete\n"},
		{[]string{"sms", "find", "--frob"}, "unknown flag: --frob"},
		{[]string{"sms", "--frob"}, "unknown flag: --frob"},
	} {
		r := h.run(tc.args...)
		assert.Equal(t, 2, r.code, "%v: %s", tc.args, r.stderr)
		assert.Contains(t, r.stderr, tc.want, tc.args)
		assert.Empty(t, r.stdout, tc.args)
	}
}
