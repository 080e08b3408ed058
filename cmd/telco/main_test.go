package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/internal/rules"
	"github.com/telcosdk/telco/telcotest"
)

// harness runs the tool in process against one fake service.
type harness struct {
	t   testing.TB
	srv *telcotest.Server
	env map[string]string
}

func newHarness(t *testing.T, opts ...telcotest.ServerOption) *harness {
	t.Helper()
	srv := telcotest.NewServer(opts...)
	t.Cleanup(srv.Close)
	return &harness{t: t, srv: srv, env: map[string]string{
		"TELCO_BASE_URL":     srv.URL,
		"TELCO_ACCOUNT_SID":  srv.AccountSid,
		"TELCO_TOKEN":        srv.Token,
		"TELCO_PROPERTY_SID": srv.PropertySid,
		"XDG_STATE_HOME":     t.TempDir(), // the ledger of sms send --external-id
		"TZ":                 "UTC",       // times in tables and JSON, whatever the machine's zone
	}}
}

type result struct {
	code           int
	stdout, stderr string
}

func (h *harness) runIn(stdin string, args ...string) result {
	h.t.Helper()
	var out, errOut bytes.Buffer
	a := newApp(context.Background(), newInterrupts(nil), strings.NewReader(stdin), &out, &errOut,
		func(k string) string { return h.env[k] })
	var calls opRecorder
	a.clientOpts = []telco.Option{telco.WithTransport(calls.wrap)}
	cmd, code := a.execute(args)
	checkOperations(h.t, cmd, calls.names())
	return result{code, out.String(), errOut.String()}
}

// opRecorder records the SDK operation of every request a client sends.
type opRecorder struct {
	mu  sync.Mutex
	ops []string
}

func (r *opRecorder) wrap(next http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		if info, ok := telco.CallInfo(req.Context()); ok {
			r.mu.Lock()
			r.ops = append(r.ops, info.Op)
			r.mu.Unlock()
		}
		return next.RoundTrip(req)
	})
}

func (r *opRecorder) names() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.ops...)
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// checkOperations fails a test whose command called an operation its
// annotation does not name: every command the tests run keeps its
// annotation (and so the CLI reference and the catalogue check) true.
// telco api is the escape hatch: it calls whatever it is given.
func checkOperations(t testing.TB, cmd *cobra.Command, called []string) {
	t.Helper()
	if cmd == nil || cmd.Name() == "api" {
		return
	}
	for _, op := range called {
		if !slices.Contains(operationsOf(cmd), op) {
			t.Errorf("%s called %s, which its operation annotation (%q) does not name", cmd.CommandPath(), op, cmd.Annotations[annOperation])
		}
	}
}

func (h *harness) run(args ...string) result {
	h.t.Helper()
	return h.runIn("", args...)
}

// ok runs a command that must succeed.
func (h *harness) ok(args ...string) string {
	h.t.Helper()
	r := h.run(args...)
	require.Equal(h.t, 0, r.code, "telco %s\nstderr: %s", strings.Join(args, " "), r.stderr)
	return r.stdout
}

// jsonOf runs a command with -o json and decodes its output into v.
func (h *harness) jsonOf(v any, args ...string) {
	h.t.Helper()
	out := h.ok(append(args, "-o", "json")...)
	require.NoError(h.t, json.Unmarshal([]byte(out), v), out)
}

func TestExitCodes(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	cases := []struct {
		name  string
		args  []string
		env   map[string]string // replaces the harness's environment when set
		code  int
		wants []string
	}{

		{"unknown command", []string{"frobnicate"}, nil, 2, []string{`unknown command "frobnicate"`}},
		{"suggestion", []string{"projcts"}, nil, 2, []string{"did you mean projects"}},
		{"unknown subcommand", []string{"sms", "sned"}, nil, 2, []string{`unknown command "sned"`, "did you mean send"}},
		{"unknown flag", []string{"projects", "list", "--frob"}, nil, 2, []string{"unknown flag: --frob"}},
		{"bad flag value", []string{"projects", "list", "--count", "many"}, nil, 2, []string{"invalid argument"}},
		{"missing argument", []string{"logins", "get"}, nil, 2, []string{"takes one ONLINE_LOGIN_SID"}},
		{"no project to get", []string{"projects", "get"}, map[string]string{"TELCO_ACCOUNT_SID": "AC1", "TELCO_TOKEN": "t"}, 2,
			[]string{"give a PROPERTY_SID, set TELCO_PROPERTY_SID"}},
		{"bad output", []string{"projects", "list", "-o", "yaml"}, nil, 2, []string{"--output must be one of table, wide, json"}},
		{"no credentials", []string{"projects", "list"}, map[string]string{}, 2, []string{"no credentials"}},
		{"no property", []string{"sms", "send", "--to", "+61400000001", "--text", "hi"},
			map[string]string{"TELCO_ACCOUNT_SID": h.srv.AccountSid, "TELCO_TOKEN": h.srv.Token, "TELCO_BASE_URL": h.srv.URL},
			2, []string{"give --property"}},
		{"bad base URL", []string{"projects", "list"},
			map[string]string{"TELCO_ACCOUNT_SID": "AC1", "TELCO_TOKEN": "t", "TELCO_BASE_URL": "http://example.com"}, 2, []string{"refusing plain http"}},
		{"bad time", []string{"sms", "find", "--since", "last tuesday"}, nil, 2, []string{"--since", "is not a time"}},
		{"bad trunk type", []string{"sip-trunks", "create", "--type", "fax"}, nil, 2, []string{"--type must be one of ip, auth"}},
		{"bad port date", []string{"porting", "submit", "--schedule", "date", "--date", "01/02/2027"}, nil, 2, []string{"--date must be YYYY-MM-DD"}},
		{"bad schedule word", []string{"porting", "submit", "--schedule", "soon"}, nil, 2, []string{"--schedule must be one of asap, date"}},
		{"update with nothing to change", []string{"projects", "update", "PRXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX"}, nil, 2, []string{"at least one field"}},
		{"lookup without numbers", []string{"lookup"}, nil, 2, []string{"at least one NUMBER"}},
		{"validation: bad recipient", []string{"sms", "send", "--to", "0400000001", "--text", "hi"}, nil, 2,
			[]string{"telco: --to must be an E.164 number"}},
		{"validation: missing fields", []string{"projects", "create", "--name", "X"}, nil, 2,
			[]string{"projects create: 2 invalid parameters", "--domain is required", "--time-zone is required"}},
		{"validation: weak SIP password", []string{"sip-trunks", "create", "--name", "T", "--caller-id", "+61299990000",
			"--type", "auth", "--password", "short"}, nil, 2, []string{"Password"}},
		{"service: unknown project", []string{"projects", "get", "PRXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX"}, nil, 1,
			[]string{"telco: projects get: 400 Bad Request: PROPERTY_NOT_FOUND: The property was not found.\n"}},
		{"service: unknown country", []string{"addresses", "create", "--line1", "1 Main St", "--city", "Sydney",
			"--country", "XX"}, nil, 1, []string{"telco: addresses create: 400 Bad Request: COUNTRY_NOT_FOUND\n",
			"  --country: The country XX was not found.\n"}},
		{"unknown time zone", []string{"projects", "create", "--name", "X", "--domain", "x.example",
			"--time-zone", "Mars Standard Time"}, nil, 2, []string{`telco: --time-zone: unknown time zone "Mars Standard Time": give a Windows time zone ID`}},
		{"service: wrong token", []string{"projects", "list"},
			map[string]string{"TELCO_ACCOUNT_SID": h.srv.AccountSid, "TELCO_TOKEN": "wrong", "TELCO_BASE_URL": h.srv.URL}, 1, []string{"401"}},
		{"service: address unknown", []string{"addresses", "delete", "ADXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX", "--yes"}, nil, 1, []string{"ADDRESS_NOT_FOUND"}},
		{"flags win over the environment", []string{"projects", "list", "--token", "wrong"}, nil, 1, []string{"401"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := h.env
			if tc.env != nil {
				env = tc.env
			}
			var out, errOut bytes.Buffer
			code := run(context.Background(), tc.args, strings.NewReader(""), &out, &errOut, func(k string) string { return env[k] })
			assert.Equal(t, tc.code, code, "stderr: %s", errOut.String())
			for _, w := range tc.wants {
				assert.Contains(t, errOut.String(), w)
			}
			assert.NotContains(t, errOut.String(), h.srv.Token, "the token is never printed")
		})
	}
}

func TestSendTextFromStdinAndLease(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	var m telco.Message
	out := h.runIn("Multi\nline\n", "sms", "send", "--to", "+61400000009", "--text", "-", "--no-receipt",
		"--webhook-url", "https://acme.example/lease", "-o", "json")
	require.Equal(t, 0, out.code, out.stderr)
	require.NoError(t, json.Unmarshal([]byte(out.stdout), &m))
	assert.Equal(t, "Multi\nline", m.Text)
	assert.False(t, m.DeliveryReceipt)
	assert.True(t, rules.IsE164(m.From), "a leased sender: %q", m.From)
}

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
