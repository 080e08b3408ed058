package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// shellWords splits one example command line as a POSIX shell would for
// the forms the examples use: single and double quotes, backslash-newline
// continuations and $NAME in double quotes (from vars).
func shellWords(t *testing.T, line string, vars map[string]string) []string {
	t.Helper()
	line = strings.ReplaceAll(line, "\\\n", " ")
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words, inWord = append(words, cur.String()), false
				cur.Reset()
			}
		case c == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			require.GreaterOrEqual(t, j, 0, "unterminated quote in %q", line)
			cur.WriteString(line[i+1 : i+1+j])
			i, inWord = i+1+j, true
		case c == '"':
			j := strings.IndexByte(line[i+1:], '"')
			require.GreaterOrEqual(t, j, 0, "unterminated quote in %q", line)
			s := line[i+1 : i+1+j]
			for k, v := range vars {
				s = strings.ReplaceAll(s, "$"+k, v)
			}
			cur.WriteString(s)
			i, inWord = i+1+j, true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

// printfOut is what `printf FORMAT ARGS...` writes, for the %s and \n the
// examples use.
func printfOut(args []string) string {
	format := strings.ReplaceAll(args[0], `\n`, "\n")
	vals := make([]any, len(args)-1)
	for i, a := range args[1:] {
		vals[i] = a
	}
	return fmt.Sprintf(format, vals...)
}

// Every command's help Example runs as shown against the fake, with PR...
// standing for the project, which holds the examples' number:
// an example that the SDK or the service refuses teaches the wrong thing.
func TestHelpExamplesRunAgainstTheFake(t *testing.T) {
	t.Parallel()
	vars := map[string]string{"PW": "Str0ng-Passw0rd!"}

	var cmds []*cobra.Command
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Example != "" {
			cmds = append(cmds, c)
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk((&app{}).rootCmd())
	require.GreaterOrEqual(t, len(cmds), 11, "the commands with examples")

	for _, c := range cmds {
		// Subtests are named by command and example number, not by the
		// example's text: t.TempDir names its directory after the test,
		// which the text can make too long for the file system (Go 1.23
		// does not shorten it).
		k := 0
		for _, line := range strings.Split(strings.ReplaceAll(c.Example, "\\\n", " "), "\n") {
			line = strings.TrimSpace(line)
			if line == "" {
				continue
			}
			k++
			t.Run(fmt.Sprintf("%s/%d", c.CommandPath(), k), func(t *testing.T) {
				t.Logf("example: %s", line)
				t.Parallel()
				// A fake per example: one (projects update --sms=false)
				// must not change what another meets.
				h := newHarness(t)
				h.srv.AddNumber(h.srv.PropertySid, "+61299999999")
				line := strings.ReplaceAll(line, "PR...", h.srv.PropertySid)
				stdin := ""
				if left, right, piped := strings.Cut(line, " | "); piped {
					words := shellWords(t, left, vars)
					require.Equal(t, "printf", words[0], "only printf feeds an example")
					stdin, line = printfOut(words[1:]), right
				}
				words := shellWords(t, line, vars)
				require.Equal(t, "telco", words[0])
				r := h.runIn(stdin, words[1:]...)
				assert.Equal(t, 0, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
			})
		}
	}
}
