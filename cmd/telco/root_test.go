package main

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/telcosdk/telco/telcotest"
)

func TestHelpListsEveryGroup(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	help := h.ok("--help")
	n := 0
	for _, c := range testTree().Commands() {
		if c.IsAvailableCommand() {
			assert.Contains(t, help, "\n  "+c.Name()+" ", "help lists %s", c.Name())
			n++
		}
	}
	assert.GreaterOrEqual(t, n, 15, "the tree holds every group")
}

// A bare group prints its help and succeeds, as --help does.
func TestBareGroupsPrintHelp(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	for _, args := range [][]string{nil, {"sms"}, {"projects"}} {
		r := h.run(args...)
		assert.Equal(t, 0, r.code, "%v: %s", args, r.stderr)
		assert.Contains(t, r.stdout, "Available Commands:", args)
	}
	assert.Contains(t, h.ok("sms"), "batch")
}

// --debug logs one line per attempt on standard error, never the token.
func TestDebugLogsEachAttempt(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.srv.FailNext(1, 503)
	r := h.run("projects", "list", "--debug")
	require.Equal(t, 0, r.code, r.stderr)
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	require.Len(t, lines, 2, "a 503 and its retry: %s", r.stderr)
	assert.Contains(t, lines[0], "status=503")
	assert.Contains(t, lines[0], "op=Properties.List")
	assert.Contains(t, lines[1], "status=200")
	assert.NotContains(t, r.stderr, h.srv.Token)
	assert.NotContains(t, h.run("projects", "list").stderr, "attempt", "quiet without --debug")
}

// --timeout bounds each request: a stalled attempt is given up and
// retried, instead of waited for.
func TestTimeoutBoundsEachRequest(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.srv.Inject(1, telcotest.Fault{Kind: telcotest.FaultLatency, Delay: 3 * time.Second, Op: "Properties.List"})
	start := time.Now()
	r := h.run("projects", "list", "--timeout", "100ms", "--debug")
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Less(t, time.Since(start), 2*time.Second, "not the 3s of the fake's latency")
	assert.Equal(t, 2, strings.Count(r.stderr, "telco request attempt"), "the stalled attempt, then its retry: %s", r.stderr)
	assert.Equal(t, 2, h.run("projects", "list", "--timeout", "-1s").code)
}

// Enumerations complete in the shell.
func TestEnumerationsComplete(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"sms", "find", "--status", ""}, "Delivered"},
		{[]string{"sms", "find", "--direction", ""}, "Receive"},
		{[]string{"numbers", "configure", "+61299990000", "--routing", ""}, "Flow"},
		{[]string{"numbers", "configure", "+61299990000", "--recording", ""}, "Call"},
		{[]string{"numbers", "configure", "+61299990000", "--clear", "address,"}, "address,sms-webhook-url"},
		{[]string{"logins", "create", "--scopes", "Manage,"}, "Manage,Reporting"},
		{[]string{"projects", "list", "-o", ""}, "wide"},
	} {
		assert.Contains(t, h.ok(append([]string{"__complete"}, tc.args...)...), tc.want, tc.args)
	}
}

func TestRenderTableFitsAWidth(t *testing.T) {
	t.Parallel()
	rows := [][]string{{"SID", "NAME", "TEXT"}, {"PR1", "Acme", strings.Repeat("x", 50)}, {"PR2", "Beta Company Pty Ltd", "short"}}
	full := renderTable(rows, 0)
	assert.Contains(t, full, strings.Repeat("x", 50), "no width: nothing cut")
	fit := renderTable(rows, 30)
	for _, l := range strings.Split(strings.TrimSuffix(fit, "\n"), "\n") {
		assert.LessOrEqual(t, utf8.RuneCountInString(l), 30, l)
	}
	assert.Contains(t, fit, "…")
	assert.Contains(t, fit, "PR1", "narrow columns are kept whole")
	assert.Equal(t, "ab…", cut("abcdef", 3))
	assert.Equal(t, "abc", cut("abc", 3))
}
