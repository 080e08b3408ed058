package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/internal/rules"
	"github.com/telcosdk/telco/telcotest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// harness runs the tool in process against one fake service.
type harness struct {
	t   *testing.T
	srv *telcotest.Server
	env map[string]string
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	srv := telcotest.NewServer()
	t.Cleanup(srv.Close)
	return &harness{t: t, srv: srv, env: map[string]string{
		"TELCO_BASE_URL":     srv.URL,
		"TELCO_ACCOUNT_SID":  srv.AccountSid,
		"TELCO_TOKEN":        srv.Token,
		"TELCO_PROPERTY_SID": srv.PropertySid,
	}}
}

type result struct {
	code           int
	stdout, stderr string
}

func (h *harness) runIn(stdin string, args ...string) result {
	h.t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(stdin), &out, &errOut,
		func(k string) string { return h.env[k] })
	return result{code, out.String(), errOut.String()}
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

// normaliser replaces what the fake generates (SIDs, UUIDs, times, leased
// numbers) with stable stand-ins of the same length, so that tables keep
// their alignment, numbering each distinct value in order of appearance.
type normaliser struct {
	seen map[string]string
}

var (
	sidRe     = regexp.MustCompile(`\b([A-Z]{2})[A-Z0-9]{30}\b`)
	uuidRe    = regexp.MustCompile(`\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`)
	rfc3339Re = regexp.MustCompile(`\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ`) // the fake's Timestamps, in UTC
	unixRe    = regexp.MustCompile(`": 1\d{9}\b`)
)

func (n *normaliser) stable(kind, v string, make func(i int) string) string {
	if n.seen == nil {
		n.seen = map[string]string{}
	}
	key := kind + v
	if s, ok := n.seen[key]; ok {
		return s
	}
	s := make(len(n.seen) + 1)
	n.seen[key] = s
	return s
}

func (n *normaliser) apply(s string) string {
	s = sidRe.ReplaceAllStringFunc(s, func(m string) string {
		return n.stable("sid", m, func(i int) string { return fmt.Sprintf("%s%030d", m[:2], i) })
	})
	s = uuidRe.ReplaceAllStringFunc(s, func(m string) string {
		return n.stable("uuid", m, func(i int) string { return fmt.Sprintf("00000000-0000-4000-8000-%012d", i) })
	})
	s = rfc3339Re.ReplaceAllStringFunc(s, func(m string) string {
		return "2000-01-01T00:00:00Z"
	})
	s = unixRe.ReplaceAllString(s, `": 1000000000`)
	return s
}

// messageStatuses hides what moves with time in a sent message: its status
// and the times of the moves. Table columns are re-spaced, since a status's
// width changes the alignment.
func messageStatuses(s string, table bool) string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, `"Submitted":`) || strings.HasPrefix(trimmed, `"Delivered":`) ||
			strings.HasPrefix(trimmed, "SUBMITTED ") || strings.HasPrefix(trimmed, "DELIVERED ") {
			continue
		}
		out = append(out, line)
	}
	s = strings.Join(out, "\n")
	s = regexp.MustCompile(`\b(Processing|Submitted|Delivered)\b`).ReplaceAllString(s, "<status>")
	if table && strings.Contains(s, "<status>") {
		s = regexp.MustCompile(` {2,}`).ReplaceAllString(s, "  ")
	}
	return s
}

// golden compares got with testdata/name.golden, or rewrites it under
// -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test ./cmd/telco -run %s -update to create it", t.Name())
	assert.Equal(t, string(want), got, "golden file %s (regenerate with -update)", path)
}

func TestGoldenOutputs(t *testing.T) {
	t.Parallel()
	h := newHarness(t)

	// The order matters: later steps use what earlier ones created.
	var prop telco.Property
	h.jsonOf(&prop, "projects", "create", "--name", "Acme AU", "--domain", "acme.example",
		"--time-zone", "AUS Eastern Standard Time", "--sms")
	require.NotEmpty(t, prop.PropertySid)
	h.srv.AddNumber(prop.PropertySid, "+61299990000")
	h.srv.AddNumberBlock(prop.PropertySid, telco.NumberBlock{ID: 7, NumberBlockSid: "NBFIXEDFIXEDFIXEDFIXEDFIXEDFIXED",
		NumberPattern: "+6129999XXXX", FriendlyName: "Sydney block", BlockSize: 10000, Active: true,
		SupportsVoice: true, SupportsSms: true,
		Created: telco.DateTime{Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("", 10*3600))}})

	var login telco.OnlineLogin
	{
		var out, errOut bytes.Buffer
		code := run(context.Background(), []string{"logins", "create", "--property", prop.PropertySid,
			"--email", "ops@acme.example", "--first-name", "Ops", "--last-name", "Team", "--scopes", "Reporting,Manage",
			"--enabled", "--password-stdin", "-o", "json"}, strings.NewReader("Corr3ct-Horse!\n"), &out, &errOut,
			func(k string) string { return h.env[k] })
		require.Equal(t, 0, code, errOut.String())
		require.NoError(t, json.Unmarshal(out.Bytes(), &login))
		assert.NotContains(t, out.String()+errOut.String(), "Corr3ct-Horse!", "the password is never printed")
	}
	var trunk struct{ SipTrunkSid string }
	h.jsonOf(&trunk, "sip-trunks", "create", "--property", prop.PropertySid, "--name", "Office",
		"--caller-id", "+61299990000", "--type", "ip", "--ip", "101.0.0.0/24", "--reference", "ref-1")
	var porting telco.PortingRequest
	h.jsonOf(&porting, "porting", "submit", "--property", prop.PropertySid, "--contact-name", "Jo Citizen",
		"--contact-email", "jo@acme.example", "--contact-number", "+61299990000", "--carrier", "Telstra",
		"--carrier-account", "12345", "--schedule", "asap", "--number", "+61299990001", "--port-address", "1 Example St")
	var msg telco.Message
	h.jsonOf(&msg, "sms", "send", "--property", prop.PropertySid, "--from", "Acme", "--to", "+61499999999",
		"--text", "Your order has shipped", "--external-id", "order-1042")
	inbound := h.srv.Receive(prop.PropertySid, "+61411111111", "+61299990000", "STOP")

	type step struct {
		name     string
		args     []string
		messages bool   // output shows statuses that move with time
		stdin    string // for sms batch
	}
	steps := []step{
		{"projects_list", []string{"projects", "list"}, false, ""},
		{"projects_get", []string{"projects", "get", prop.PropertySid}, false, ""},
		{"projects_update", []string{"projects", "update", prop.PropertySid, "--name", "Acme Australia", "--integrations"}, false, ""},
		{"numbers_configure", []string{"numbers", "configure", "+61299990000", "--friendly", "Reception",
			"--sms-webhook-url", "https://acme.example/sms", "--sms-webhook-method", "POST"}, false, ""},
		{"number_blocks_by_property", []string{"number-blocks", "list-by-property", prop.PropertySid}, false, ""},
		{"number_blocks_search", []string{"number-blocks", "search", "--property", prop.PropertySid, "--all"}, false, ""},
		{"logins_get", []string{"logins", "get", login.OnlineLoginSid}, false, ""},
		{"logins_list", []string{"logins", "list", "--all"}, false, ""},
		{"sip_trunks_list", []string{"sip-trunks", "list", "--property", prop.PropertySid}, false, ""},
		{"sip_trunks_get", []string{"sip-trunks", "get", trunk.SipTrunkSid, "--property", prop.PropertySid}, false, ""},
		{"porting_status", []string{"porting", "status", "--property", prop.PropertySid}, false, ""},
		{"addresses_create", []string{"addresses", "create", "--line1", "1 Example St", "--city", "Sydney",
			"--region", "NSW", "--postal-code", "2000", "--country", "AU", "--friendly", "Head office"}, false, ""},
		{"lookup", []string{"lookup", "+61299990000"}, false, ""},
		{"sms_get", []string{"sms", "get", msg.MessageSid}, true, ""},
		{"sms_get_inbound", []string{"sms", "get", inbound.MessageSid}, false, ""},
		{"sms_find", []string{"sms", "find", "--property", prop.PropertySid, "--direction", "Receive"}, false, ""},
		{"sms_find_all", []string{"sms", "find", "--property", prop.PropertySid, "--all"}, true, ""},
		{"sms_batch", []string{"sms", "batch", "--property", prop.PropertySid, "--format", "csv"}, true,
			"From,To,Text,ExternalId\nAcme,+61400000001,Hello one,g-1\nAcme,0400000002,Hello two,g-2\n"},
	}
	for _, st := range steps {
		for _, format := range []string{"table", "json"} {
			t.Run(st.name+"_"+format, func(t *testing.T) {
				r := h.runIn(st.stdin, append(st.args, "-o", format)...)
				wantCode := 0
				if st.name == "sms_batch" {
					wantCode = 1 // one line is rejected
				}
				require.Equal(t, wantCode, r.code, r.stderr)
				var n normaliser
				got := n.apply(r.stdout)
				if st.messages {
					got = messageStatuses(got, format == "table")
				}
				if format == "json" {
					assert.True(t, json.Valid([]byte(r.stdout)), "JSON output parses: %s", r.stdout)
				}
				golden(t, st.name+"."+format, got)
			})
		}
	}
}

func TestBatchFromCSVAndJSONLines(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	csvIn := "From,To,Text,ExternalId,Schedule,DeliveryReceipt\n" +
		"Acme,+61400000001,Hello one,b-1,,true\n" +
		"Acme,+61400000002,\"Hello, two\",b-2,,false\n" +
		"Acme,0400000003,Hello three,b-3,,\n"
	jsonl := `{"From":"Acme","To":"+61400000004","Text":"Hi four","ExternalId":"j-4"}` + "\n\n" +
		`{"From":"Acme","To":"+61400000005","Text":"Hi five","ExternalId":"j-5","DeliveryReceipt":false,"Schedule":` +
		fmt.Sprint(time.Now().Add(time.Hour).Unix()) + `}` + "\n"

	dir := t.TempDir()
	csvFile := filepath.Join(dir, "msgs.csv")
	require.NoError(t, os.WriteFile(csvFile, []byte(csvIn), 0o644))
	jsonlFile := filepath.Join(dir, "msgs.jsonl")
	require.NoError(t, os.WriteFile(jsonlFile, []byte(jsonl), 0o644))
	plainFile := filepath.Join(dir, "msgs.txt") // detected from its first character
	require.NoError(t, os.WriteFile(plainFile, []byte(jsonl), 0o644))

	cases := []struct {
		name, stdin string
		args        []string
		wantCode    int
		accepted    []string // ExternalIds
		rejected    []int    // line numbers
	}{
		{"CSV from a file, chunks of 2", "", []string{csvFile, "--chunk-size", "2"}, 1, []string{"b-1", "b-2"}, []int{4}},
		{"CSV from stdin", csvIn, nil, 1, []string{"b-1", "b-2"}, []int{4}},
		{"CSV from stdin with -", csvIn, []string{"-", "--format", "csv"}, 1, []string{"b-1", "b-2"}, []int{4}},
		{"JSON lines from a file", "", []string{jsonlFile}, 0, []string{"j-4", "j-5"}, nil},
		{"JSON lines detected by content", "", []string{plainFile}, 0, []string{"j-4", "j-5"}, nil},
		{"JSON lines from stdin", jsonl, []string{"--format", "jsonl"}, 0, []string{"j-4", "j-5"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var rows []struct {
				Line    int
				Message *telco.Message
				Err     *telco.APIError
			}
			r := h.runIn(tc.stdin, append([]string{"sms", "batch", "-o", "json"}, tc.args...)...)
			require.Equal(t, tc.wantCode, r.code, r.stderr)
			require.NoError(t, json.Unmarshal([]byte(r.stdout), &rows), r.stdout)
			var accepted []string
			var rejected []int
			for _, row := range rows {
				if row.Message != nil {
					accepted = append(accepted, row.Message.ExternalID)
				} else {
					require.NotNil(t, row.Err)
					assert.Equal(t, telco.CodeInvalidPhoneNumberFormat, row.Err.Code)
					rejected = append(rejected, row.Line)
				}
			}
			assert.Equal(t, tc.accepted, accepted)
			assert.Equal(t, tc.rejected, rejected)
			if tc.wantCode == 1 {
				assert.Contains(t, r.stderr, "1 of 3 messages rejected")
			}
		})
	}

	// The messages really reached the fake, with their options.
	var found []telco.Message
	h.jsonOf(&found, "sms", "find", "--all")
	byID := map[string]telco.Message{}
	for _, m := range found {
		byID[m.ExternalID] = m
	}
	assert.True(t, byID["b-1"].DeliveryReceipt)
	assert.False(t, byID["b-2"].DeliveryReceipt)
	assert.Equal(t, "Hello, two", byID["b-2"].Text)
	assert.NotZero(t, byID["j-5"].Scheduled)
	assert.False(t, byID["j-5"].DeliveryReceipt)

	// The table names the line and the service's code and field.
	r := h.runIn(csvIn, "sms", "batch")
	assert.Equal(t, 1, r.code)
	assert.Regexp(t, `(?m)^4\s+0400000003\s+INVALID_PHONENUMBER_FORMAT: .*\[To\]$`, r.stdout)
	assert.Regexp(t, `(?m)^2\s+\+61400000001\s+MG[A-Z0-9]{30}\s+b-1\s+accepted$`, r.stdout)
}

func TestBatchInputErrors(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	cases := []struct{ name, stdin, format, want string }{
		{"unknown CSV column", "To,Txt\n+61400000001,hi\n", "", `unknown column "Txt"`},
		{"short CSV row", "To,Text\n+61400000001\n", "", "wrong number of fields"},
		{"bad schedule", "To,Text,Schedule\n+61400000001,hi,tomorrow\n", "", "line 2: the Schedule value"},
		{"bad receipt flag", "To,Text,DeliveryReceipt\n+61400000001,hi,perhaps\n", "", "DeliveryReceipt"},
		{"bad JSON line", `{"To":"+61400000001","Text":"hi"}` + "\n{oops\n", "jsonl", "line 2: not a JSON object"},
		{"unknown JSON field", `{"To":"+61400000001","Txt":"hi"}`, "jsonl", `unknown field "Txt"`},
		{"empty input", "", "", "no messages"},
		{"header only", "To,Text\n", "csv", "no messages"},
		{"unknown format", "To,Text\n", "xml", "--format must be csv or jsonl"},
		{"number for To", `{"To":61400000001,"Text":"hi"}`, "", `line 1: field "To" must be a JSON string, not 61400000001`},
		{"object for Text", `{"To":"+61400000001","Text":{"a":1}}`, "jsonl", `field "Text" must be a JSON string`},
		{"bool for ExternalId", "\n" + `{"To":"+61400000001","Text":"hi"}` + "\n" + `{"To":"+61400000001","Text":"hi","ExternalId":true}`, "", `line 3: field "ExternalId"`},
		{"array element not an object", `[{"To":"+61400000001","Text":"hi"}, 5]`, "", "array element 2: not a JSON object"},
		{"array element with a number", `[{"To":"+61400000001","Text":7}]`, "", `array element 1: field "Text" must be a JSON string`},
		{"broken array", `[{"To":"+61400000001","Text":"hi"}`, "", "batch JSON array"},
		{"input after the array", `[{"To":"+61400000001","Text":"hi"}] {}`, "", "more input after the array"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"sms", "batch"}
			if tc.format != "" {
				args = append(args, "--format", tc.format)
			}
			r := h.runIn(tc.stdin, args...)
			assert.Equal(t, 2, r.code, r.stderr)
			assert.Contains(t, r.stderr, tc.want)
			assert.Empty(t, r.stdout, "nothing is sent")
		})
	}
	r := h.run("sms", "batch", filepath.Join(t.TempDir(), "missing.csv"))
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "no such file")
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
		{"no command", nil, nil, 2, []string{"needs a subcommand"}},
		{"unknown command", []string{"frobnicate"}, nil, 2, []string{`unknown command "frobnicate"`}},
		{"suggestion", []string{"projcts"}, nil, 2, []string{"did you mean projects"}},
		{"group without subcommand", []string{"sms"}, nil, 2, []string{"telco sms needs a subcommand"}},
		{"unknown subcommand", []string{"sms", "sned"}, nil, 2, []string{`unknown command "sned"`, "did you mean send"}},
		{"unknown flag", []string{"projects", "list", "--frob"}, nil, 2, []string{"unknown flag: --frob"}},
		{"bad flag value", []string{"projects", "list", "--count", "many"}, nil, 2, []string{"invalid argument"}},
		{"missing argument", []string{"projects", "get"}, nil, 2, []string{"takes one PROPERTY_SID"}},
		{"bad output", []string{"projects", "list", "-o", "yaml"}, nil, 2, []string{"--output must be table or json"}},
		{"no credentials", []string{"projects", "list"}, map[string]string{}, 2, []string{"no credentials"}},
		{"no property", []string{"sms", "send", "--to", "+61400000001", "--text", "hi"},
			map[string]string{"TELCO_ACCOUNT_SID": h.srv.AccountSid, "TELCO_TOKEN": h.srv.Token, "TELCO_BASE_URL": h.srv.URL},
			2, []string{"give --property"}},
		{"bad base URL", []string{"projects", "list"},
			map[string]string{"TELCO_ACCOUNT_SID": "AC1", "TELCO_TOKEN": "t", "TELCO_BASE_URL": "http://example.com"}, 2, []string{"refusing plain http"}},
		{"bad time", []string{"sms", "find", "--since", "last tuesday"}, nil, 2, []string{"--since", "is not a time"}},
		{"bad trunk type", []string{"sip-trunks", "create", "--type", "fax"}, nil, 2, []string{"--type must be ip or auth"}},
		{"bad port date", []string{"porting", "submit", "--schedule", "date", "--date", "01/02/2027"}, nil, 2, []string{"--date must be YYYY-MM-DD"}},
		{"bad schedule word", []string{"porting", "submit", "--schedule", "soon"}, nil, 2, []string{"--schedule must be asap or date"}},
		{"update with nothing to change", []string{"projects", "update", "PRXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX"}, nil, 2, []string{"at least one field"}},
		{"lookup without numbers", []string{"lookup"}, nil, 2, []string{"at least one NUMBER"}},
		{"validation: bad recipient", []string{"sms", "send", "--to", "0400000001", "--text", "hi"}, nil, 2,
			[]string{"invalid parameters (Messages.Send)", "To:", "INVALID_PHONENUMBER_FORMAT"}},
		{"validation: missing fields", []string{"projects", "create", "--name", "X"}, nil, 2,
			[]string{"MainDomain", "TimeZone", "PARAMETER_REQUIRED"}},
		{"validation: weak SIP password", []string{"sip-trunks", "create", "--name", "T", "--caller-id", "+61299990000",
			"--type", "auth", "--password", "short"}, nil, 2, []string{"Password"}},
		{"service: unknown project", []string{"projects", "get", "PRXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX"}, nil, 1,
			[]string{"400", "code:    PROPERTY_NOT_FOUND", "message:"}},
		{"service: unknown time zone", []string{"projects", "create", "--name", "X", "--domain", "x.example",
			"--time-zone", "Mars Standard Time"}, nil, 1, []string{"code:    UNKNOWN_TIME_ZONE", "field:   TimeZone"}},
		{"service: wrong token", []string{"projects", "list"},
			map[string]string{"TELCO_ACCOUNT_SID": h.srv.AccountSid, "TELCO_TOKEN": "wrong", "TELCO_BASE_URL": h.srv.URL}, 1, []string{"401"}},
		{"service: address unknown", []string{"addresses", "delete", "ADXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX"}, nil, 1, []string{"ADDRESS_NOT_FOUND"}},
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

func TestPasswordsFromFlagEnvAndStdin(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	const pw = "Sup3r-Secret!x"
	cases := []struct {
		name  string
		args  []string
		stdin string
		env   string
	}{
		{"stdin", []string{"--password-stdin"}, pw + "\n", ""},
		{"environment", nil, "", pw},
		{"flag", []string{"--password", pw}, "", ""},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h.env["TELCO_LOGIN_PASSWORD"], h.env["TELCO_SIP_PASSWORD"] = tc.env, tc.env
			defer func() { delete(h.env, "TELCO_LOGIN_PASSWORD"); delete(h.env, "TELCO_SIP_PASSWORD") }()
			r := h.runIn(tc.stdin, append([]string{"logins", "create", "--email", fmt.Sprintf("u%d@acme.example", i),
				"--first-name", "U", "--last-name", "V", "--scopes", "Reporting"}, tc.args...)...)
			require.Equal(t, 0, r.code, r.stderr)
			assert.NotContains(t, r.stdout+r.stderr, pw)

			r = h.runIn(tc.stdin, append([]string{"sip-trunks", "create", "--name", "Auth", "--caller-id", "+61299990000",
				"--type", "auth", "--realm", "acme"}, tc.args...)...)
			require.Equal(t, 0, r.code, r.stderr)
			assert.Regexp(t, `^ST[A-Z0-9]+\n$|^[A-Z]{2}[A-Z0-9]{30}\n$`, r.stdout)
			assert.NotContains(t, r.stdout+r.stderr, pw)
		})
	}
	// A password the service refuses is not echoed either.
	r := h.runIn("Zq9\n", "logins", "create", "--email", "w@acme.example", "--first-name", "W", "--last-name", "X",
		"--scopes", "Reporting", "--password-stdin")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "Password")
	assert.NotContains(t, r.stderr, "Zq9")
	r = h.runIn("", "logins", "create", "--email", "w@acme.example", "--password-stdin")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "no password on standard input")
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

func TestMockServesTheFake(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	var out, errOut syncBuffer
	done := make(chan int)
	go func() {
		done <- run(ctx, []string{"mock", "--addr", "127.0.0.1:0", "--account-sid", "ACMOCKMOCKMOCKMOCKMOCKMOCKMOCKMO", "--token", "t0ken"},
			strings.NewReader(""), &out, &errOut, func(string) string { return "" })
	}()

	var info mockInfo
	require.Eventually(t, func() bool {
		line, _, found := strings.Cut(out.String(), "\n")
		return found && json.Unmarshal([]byte(line), &info) == nil
	}, 5*time.Second, 10*time.Millisecond, "the tool prints one JSON line: %s %s", out.String(), errOut.String())
	assert.Equal(t, "ACMOCKMOCKMOCKMOCKMOCKMOCKMOCKMO", info.AccountSid)
	assert.Equal(t, "t0ken", info.Token)
	assert.NotEmpty(t, info.PropertySid)

	// The other commands work against it.
	var got bytes.Buffer
	code := run(context.Background(), []string{"projects", "get", info.PropertySid, "-o", "json"}, strings.NewReader(""), &got, &errOut,
		envOf(map[string]string{"TELCO_ACCOUNT_SID": info.AccountSid, "TELCO_TOKEN": info.Token, "TELCO_BASE_URL": info.URL}))
	require.Equal(t, 0, code, errOut.String())
	var p telco.Property
	require.NoError(t, json.Unmarshal(got.Bytes(), &p))
	assert.True(t, p.SmsEnabled)

	// The seeded number and block make the number commands usable, and
	// the address-in-use rule reachable.
	assert.Equal(t, "+61299990000", info.Number)
	env := envOf(map[string]string{"TELCO_ACCOUNT_SID": info.AccountSid, "TELCO_TOKEN": info.Token, "TELCO_BASE_URL": info.URL})
	cli := func(want int, args ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		code := run(context.Background(), append(args, "-o", "json"), strings.NewReader(""), &out, &errOut, env)
		require.Equal(t, want, code, "%v: %s %s", args, out.String(), errOut.String())
		return out.String() + errOut.String()
	}
	var addr telco.Address
	require.NoError(t, json.Unmarshal([]byte(cli(0, "addresses", "create", "--line1", "1 Mock St", "--city", "Sydney", "--country", "AU")), &addr))
	cli(0, "numbers", "configure", info.Number, "--friendly", "Front desk", "--address", addr.AddressSid)
	assert.Contains(t, cli(1, "addresses", "delete", addr.AddressSid), "ADDRESS_CANNOT_BE_DELETED")
	var blocks telco.NumberBlockPage
	require.NoError(t, json.Unmarshal([]byte(cli(0, "number-blocks", "search", "--property", info.PropertySid)), &blocks))
	require.Len(t, blocks.Data, 1)
	assert.Equal(t, "Mock block", blocks.Data[0].Name)
	assert.Contains(t, cli(0, "number-blocks", "list-by-account"), "Mock block")

	cancel()
	select {
	case code := <-done:
		assert.Equal(t, 0, code)
	case <-time.After(5 * time.Second):
		t.Fatal("mock did not stop when its context ended")
	}
	assert.Equal(t, 1, strings.Count(out.String(), "\n"), "exactly one line: %s", out.String())
}

func TestMockFlagErrors(t *testing.T) {
	t.Parallel()
	var errOut bytes.Buffer
	noEnv := func(string) string { return "" }
	assert.Equal(t, 2, run(context.Background(), []string{"mock", "--token", "only"}, nil, &bytes.Buffer{}, &errOut, noEnv))
	assert.Contains(t, errOut.String(), "both")

	errOut.Reset()
	assert.Equal(t, 1, run(context.Background(), []string{"mock", "--addr", "256.0.0.1:1"}, nil, &bytes.Buffer{}, &errOut, noEnv))
	assert.Contains(t, errOut.String(), "listen")
}

func TestVersionHelpAndCompletion(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	assert.Equal(t, "telco-go "+telco.Version+"\n", h.ok("version"))

	help := h.ok("--help")
	for _, cmd := range []string{"mock", "projects", "numbers", "number-blocks", "sms", "logins", "sip-trunks",
		"porting", "addresses", "lookup", "completion", "version"} {
		assert.Contains(t, help, "\n  "+cmd+" ", "help lists %s", cmd)
	}
	assert.Contains(t, h.ok("sms", "batch", "--help"), "ExternalId")

	for shell, marker := range map[string]string{"bash": "bash completion", "zsh": "#compdef telco", "fish": "complete -c telco", "powershell": "Register-ArgumentCompleter"} {
		assert.Contains(t, h.ok("completion", shell), marker, shell)
	}
	// Dynamic completion of a flag's values.
	assert.Contains(t, h.ok("__complete", "projects", "list", "--output", ""), "json")
	assert.Contains(t, h.ok("__complete", "sms", "s"), "send")
}

func TestEveryOperationIsReachable(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	want := []string{
		"projects create", "projects get", "projects list", "projects update",
		"numbers configure",
		"number-blocks search", "number-blocks search-text", "number-blocks list-by-property", "number-blocks list-by-account",
		"sms send", "sms batch", "sms find", "sms get",
		"logins create", "logins get", "logins list",
		"sip-trunks create", "sip-trunks list", "sip-trunks get",
		"porting submit", "porting status",
		"addresses create", "addresses delete",
		"lookup",
	}
	for _, path := range want {
		r := h.run(append(strings.Fields(path), "--help")...)
		assert.Equal(t, 0, r.code, path)
		assert.Contains(t, r.stdout, "telco "+path, path)
	}
}

func TestListsAndSearchesAgainstTheFake(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	for i := 0; i < 3; i++ {
		h.srv.AddNumberBlock(h.srv.PropertySid, telco.NumberBlock{NumberPattern: fmt.Sprintf("+612888%d0XXX", i), SupportsSms: i%2 == 0})
	}
	var blocks []telco.NumberBlock
	h.jsonOf(&blocks, "number-blocks", "list-by-account", "--all", "--page-size", "2")
	assert.Len(t, blocks, 3, "--all walks every page")
	h.jsonOf(&blocks, "number-blocks", "search-text", "+6128881", "--all")
	assert.Len(t, blocks, 1)
	var page telco.NumberBlockPage
	h.jsonOf(&page, "number-blocks", "search", "--account", h.srv.AccountSid, "--sms", "--page-size", "1")
	assert.Equal(t, 2, page.TotalCount, "--sms=true filters")
	assert.Len(t, page.Data, 1)
	h.jsonOf(&page, "number-blocks", "list-by-account", h.srv.AccountSid, "--sms=false")
	assert.Equal(t, 1, page.TotalCount)

	for i := 0; i < 5; i++ {
		h.ok("sms", "send", "--from", "Acme", "--to", fmt.Sprintf("+6140000000%d", i), "--text", "hi")
	}
	var msgs telco.Page[telco.Message]
	h.jsonOf(&msgs, "sms", "find", "--count", "2", "--skip", "1")
	assert.Len(t, msgs.Items, 2)
	var all []telco.Message
	h.jsonOf(&all, "sms", "find", "--all", "--count", "2")
	assert.Len(t, all, 5, "every page of 2")
	h.jsonOf(&all, "sms", "find", "--all", "--since", "+1h", "--until", "+2h")
	assert.Empty(t, all)

	var logins []telco.OnlineLogin
	h.jsonOf(&logins, "logins", "list", "--all")
	assert.Empty(t, logins)
	var porting []telco.PortingRequest
	h.jsonOf(&porting, "porting", "status", "--all")
	assert.Empty(t, porting)
	var trunks telco.Page[telco.SipTrunk]
	h.jsonOf(&trunks, "sip-trunks", "list", "--type", "auth", "--active", "--state", "2", "--all=false")
	assert.Empty(t, trunks.Items)

	var addr telco.Address
	h.jsonOf(&addr, "addresses", "create", "--line1", "1 Example St", "--city", "Sydney", "--country", "AU")
	assert.Equal(t, "deleted "+addr.AddressSid+"\n", h.ok("addresses", "delete", addr.AddressSid))
	r := h.run("addresses", "delete", addr.AddressSid)
	assert.Equal(t, 1, r.code)
}

func TestProgressBar(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	p := &progress{w: &buf, label: "sending", total: 4, shown: -1}
	p.add(1)
	p.add(1)
	p.add(2)
	p.finish()
	out := buf.String()
	assert.Contains(t, out, "\rsending [")
	assert.Contains(t, out, "] 4/4")
	assert.Contains(t, out, "["+strings.Repeat("=", barWidth)+"]")
	assert.True(t, strings.HasSuffix(out, "\n"))

	buf.Reset()
	q := &progress{w: &buf, label: "messages", shown: -1}
	for i := 0; i < 250; i++ {
		q.tick()
	}
	q.finish()
	assert.Contains(t, buf.String(), "messages 200")
	assert.Contains(t, buf.String(), "messages 250\n")

	buf.Reset()
	r := &progress{w: &buf, label: "messages", shown: -1}
	for i := 0; i < 200; i++ {
		r.tick()
	}
	r.finish()
	assert.Equal(t, 1, strings.Count(buf.String(), "messages 200"), "the last count is not drawn twice")

	var nilBar *progress // what newProgress returns off a terminal
	nilBar.add(3)
	nilBar.tick()
	nilBar.finish()

	a := &app{stderr: &buf}
	assert.Nil(t, a.newProgress("x", 1), "a buffer is not a terminal")
	f, err := os.CreateTemp(t.TempDir(), "stderr")
	require.NoError(t, err)
	defer f.Close()
	assert.False(t, isTerminal(f), "a regular file is not a terminal")
	if tty, err := os.OpenFile("/dev/null", os.O_WRONLY, 0); err == nil {
		defer tty.Close()
		assert.True(t, isTerminal(tty), "/dev/null is a character device")
	}
}

func TestParseTime(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)
	cases := map[string]time.Time{
		"":                     {},
		"now":                  now,
		"-24h":                 now.Add(-24 * time.Hour),
		"+30m":                 now.Add(30 * time.Minute),
		"1763780000":           time.Unix(1763780000, 0),
		"2026-11-01":           time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC),
		"2026-11-01T10:00:00Z": time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC),
		"2026-11-01T10:00":     time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC),
	}
	for in, want := range cases {
		got, err := parseTime("since", in, now)
		require.NoError(t, err, in)
		assert.True(t, want.Equal(got), "%q: %v", in, got)
	}
	for _, bad := range []string{"yesterday", "-1d", "2026-13-01"} {
		_, err := parseTime("since", bad, now)
		assert.Error(t, err, bad)
	}
}

// syncBuffer lets the test read what the tool prints while it runs.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestBatchWholeRequestFailure(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.srv.FailNext(1, 500)
	r := h.runIn("To,Text,ExternalId\n+61400000001,a,x-1\n+61400000002,b,x-2\n+61400000003,c,x-3\n",
		"sms", "batch", "--chunk-size", "2")
	assert.Equal(t, 1, r.code, r.stderr)
	assert.Contains(t, r.stderr, "lines 2 to 3 may have been sent")
	assert.Contains(t, r.stderr, "later lines were not sent")
	assert.Contains(t, r.stderr, "check before repeating it")
	assert.Empty(t, r.stdout, "no line has a result")
}

func TestSipTrunkGetByAccount(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	sid := strings.TrimSpace(h.ok("sip-trunks", "create", "--name", "Office", "--caller-id", "+61299990000", "--ip", "101.0.0.1"))
	delete(h.env, "TELCO_PROPERTY_SID")
	var tr telco.SipTrunk
	h.jsonOf(&tr, "sip-trunks", "get", sid)
	assert.Equal(t, "Office", tr.Name)
	require.Len(t, tr.SipTrunkIPAddresses, 1)
	assert.Equal(t, "101.0.0.1/32", tr.SipTrunkIPAddresses[0].IPAddress)
	var ls telco.Page[telco.OnlineLogin]
	h.jsonOf(&ls, "logins", "list", "--count", "5")
	assert.Empty(t, ls.Items)
	r := h.run("logins", "get", "00000000-0000-4000-8000-000000000000")
	assert.Equal(t, 1, r.code, r.stderr)
	r = h.run("sms", "get", "MGXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX")
	assert.Equal(t, 1, r.code, r.stderr)
}

// An explicit --account wins over $TELCO_PROPERTY_SID, and a command
// given both --property and --account refuses to guess.
func TestScopeFlags(t *testing.T) {
	t.Parallel()
	h := newHarness(t) // sets TELCO_PROPERTY_SID
	other := h.srv.AddAccount("", "")
	h.srv.AddNumberBlock(h.srv.PropertySid, telco.NumberBlock{Name: "Mine"})
	wrong := "AC" + strings.Repeat("W", 30)

	r := h.run("porting", "status", "--account", wrong)
	assert.Equal(t, 1, r.code, "%s", r.stdout)
	assert.Contains(t, r.stderr, telco.CodeAccountNotFound, "--account was used, not the environment's project")
	r = h.run("porting", "status", "--account", other.AccountSid)
	assert.Equal(t, 1, r.code, "%s", r.stdout)
	assert.Contains(t, r.stderr, telco.CodeForbidden)
	h.ok("porting", "status", "--account", h.srv.AccountSid)
	h.ok("porting", "status") // the environment's project

	r = h.run("sip-trunks", "get", "STXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX", "--account", wrong)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, telco.CodeAccountNotFound)

	var page telco.NumberBlockPage
	h.jsonOf(&page, "number-blocks", "search") // the environment's project
	require.Len(t, page.Data, 1)
	r = h.run("number-blocks", "search", "--account", wrong)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, telco.CodeAccountNotFound)

	for _, args := range [][]string{
		{"porting", "status", "--property", h.srv.PropertySid, "--account", h.srv.AccountSid},
		{"number-blocks", "search", "--property", h.srv.PropertySid, "--account", h.srv.AccountSid},
		{"sip-trunks", "get", "ST1", "--property", h.srv.PropertySid, "--account", h.srv.AccountSid},
	} {
		r := h.run(args...)
		assert.Equal(t, 2, r.code, "%v: %s", args, r.stderr)
		assert.Contains(t, r.stderr, "not both", args)
	}
}

// Mistakes on the command line exit 2, whatever part of the tool meets
// them.
func TestUsageEdgeCasesExit2(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	// An already ended context: a mock that did start returns at once
	// instead of serving until the test times out.
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	for _, addr := range []string{"nonsense", "127.0.0.1", "127.0.0.1:http", "127.0.0.1:70000"} {
		var out, errOut bytes.Buffer
		code := run(ended, []string{"mock", "--addr", addr}, strings.NewReader(""), &out, &errOut, func(string) string { return "" })
		assert.Equal(t, 2, code, "--addr %s: %s", addr, errOut.String())
		assert.Contains(t, errOut.String(), "host:port", addr)
		assert.Empty(t, out.String(), "no mock line for %s", addr)
	}

	r := h.run("completion", "tcsh")
	assert.Equal(t, 2, r.code, r.stdout)
	assert.Contains(t, r.stderr, `unknown command "tcsh"`)

	// Every line refused before sending: nothing was sent, a validation
	// error. One accepted line makes it a service answer again.
	r = h.runIn("To,Text\n0400000001,a\n+61400000002,\n", "sms", "batch")
	assert.Equal(t, 2, r.code, r.stderr)
	assert.Contains(t, r.stderr, "2 of 2 messages refused before sending")
	assert.Contains(t, r.stdout, "INVALID_PHONENUMBER_FORMAT", "each line's result is still printed")
	assert.Empty(t, h.srv.Messages(h.srv.PropertySid))
	r = h.runIn("To,Text\n0400000001,a\n+61400000002,b\n", "sms", "batch")
	assert.Equal(t, 1, r.code, r.stderr)
	assert.Contains(t, r.stderr, "1 of 2 messages rejected")
}

// A JSON array, as jq -s writes, is read as JSON whatever the format
// hint; Schedule may be a number and DeliveryReceipt a boolean.
func TestBatchJSONArray(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	in := `  [{"To":"+61400000001","Text":"one","ExternalId":"a-1","DeliveryReceipt":false},
 {"To":"+61400000002","Text":"two","ExternalId":"a-2","Schedule":null}]`
	for _, args := range [][]string{{"sms", "batch"}, {"sms", "batch", "--format", "jsonl"}} {
		var rows []struct {
			Line    int
			Message *telco.Message
		}
		r := h.runIn(in, append(args, "-o", "json")...)
		require.Equal(t, 0, r.code, r.stderr)
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &rows), r.stdout)
		require.Len(t, rows, 2)
		assert.Equal(t, 1, rows[0].Line)
		assert.Equal(t, "a-1", rows[0].Message.ExternalID)
		assert.False(t, rows[0].Message.DeliveryReceipt)
		assert.Equal(t, 2, rows[1].Line)
		assert.Equal(t, "two", rows[1].Message.Text)
	}
	file := filepath.Join(t.TempDir(), "msgs.json")
	require.NoError(t, os.WriteFile(file, []byte(in), 0o644))
	r := h.run("sms", "batch", file)
	assert.Equal(t, 0, r.code, r.stderr)
}
