package main

import (
	"fmt"
	"maps"
	"slices"
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
// standing for the project, which holds the examples' number, AC... for
// the account, $TOKEN for its token and http://127.0.0.1:8080 for the
// fake's URL: an example that the SDK or the service refuses teaches the
// wrong thing. A command's lines run in order, one session; those that
// log in or use a profile run without credentials in the environment, as
// a newcomer's shell has none.
func TestHelpExamplesRunAgainstTheFake(t *testing.T) {
	t.Parallel()
	var cmds []*cobra.Command
	walk(testTree(), func(c *cobra.Command) {
		if c.Example != "" {
			cmds = append(cmds, c)
		}
	})
	require.GreaterOrEqual(t, len(cmds), 12, "the commands with examples")

	for _, c := range cmds {
		// A subtest per command, named by its path, not by an example's
		// text: t.TempDir names its directory after the test, which the
		// text can make too long for the file system (Go 1.23 does not
		// shorten it). A failure quotes the line.
		t.Run(c.CommandPath(), func(t *testing.T) {
			t.Parallel()
			// A fake per command: one (projects update --sms=false) must
			// not change what another meets.
			h := newHarness(t)
			h.env["XDG_CONFIG_HOME"] = t.TempDir()
			h.srv.AddNumber(h.srv.PropertySid, "+61299999999")
			vars := map[string]string{"PW": "Str0ng-Passw0rd!", "TOKEN": h.srv.Token}
			for _, line := range strings.Split(strings.ReplaceAll(c.Example, "\\\n", " "), "\n") {
				line = strings.TrimSpace(line)
				if line == "" {
					continue
				}
				line = strings.NewReplacer("PR...", h.srv.PropertySid, "AC...", h.srv.AccountSid, "http://127.0.0.1:8080", h.srv.URL).Replace(line)
				stdin := ""
				if left, right, piped := strings.Cut(line, " | "); piped {
					words := shellWords(t, left, vars)
					require.Equal(t, "printf", words[0], "only printf feeds an example")
					stdin, line = printfOut(words[1:]), right
				}
				words := shellWords(t, line, vars)
				require.Equal(t, "telco", words[0])
				env := h.env
				if slices.Contains(words, "login") || slices.Contains(words, "--profile") {
					h.env = maps.Clone(env)
					delete(h.env, "TELCO_ACCOUNT_SID")
					delete(h.env, "TELCO_TOKEN")
					delete(h.env, "TELCO_BASE_URL")
				}
				r := h.runIn(stdin, words[1:]...)
				h.env = env
				assert.Equal(t, 0, r.code, "%s\nstdout: %s\nstderr: %s", line, r.stdout, r.stderr)
			}
		})
	}
}
