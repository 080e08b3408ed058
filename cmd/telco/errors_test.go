package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/telcosdk/telco/telcotest"
)

// The wording of errors, pinned in golden files: validation errors name
// the flags the user typed, enumerations list their values, and -o json
// prints the error as one JSON object on standard error.
func TestGoldenErrors(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	cases := []struct {
		name string
		args []string
		code int
	}{
		{"porting_submit_missing", []string{"porting", "submit", "--schedule", "ASAP", "--number", "+61299990001"}, 2},
		{"sms_find_window", []string{"sms", "find", "--since", "2026-11-08", "--until", "2026-11-01"}, 2},
		{"sms_find_status", []string{"sms", "find", "--status", "sent"}, 2},
		{"sms_send_recipient", []string{"sms", "send", "--to", "0400000001", "--text", "hi"}, 2},
		{"numbers_empty_flag", []string{"numbers", "configure", "+61299990000", "--address", ""}, 2},
		{"numbers_set_and_clear", []string{"numbers", "configure", "+61299990000", "--address", "ADQ7M2K9XW4TBN8RPLZC5VHJ3EYG6DFA", "--clear", "address"}, 2},
		{"numbers_clear_unknown", []string{"numbers", "configure", "+61299990000", "--clear", "routing"}, 2},
		{"logins_scope", []string{"logins", "create", "--email", "a@b.example", "--scopes", "reporting,Everything"}, 2},
		{"sip_ip_password", []string{"sip-trunks", "create", "--name", "T", "--caller-id", "+61299990000", "--ip", "101.0.0.1", "--password", "Tr0ub4dor&3x"}, 2},
		{"addresses_delete_no_yes", []string{"addresses", "delete", "ADXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX"}, 2},
		{"output_value", []string{"projects", "list", "-o", "yaml"}, 2},
		{"service_unknown_project", []string{"projects", "get", "PRXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX"}, 1},
		{"service_unknown_country", []string{"addresses", "create", "--line1", "1 Main St", "--city", "Sydney", "--country", "XX"}, 1},
		{"time_zone_near_miss", []string{"projects", "create", "--name", "X", "--domain", "x.example", "--time-zone", "Australia/Sydny"}, 2},
	}
	for _, tc := range cases {
		for _, format := range []string{"table", "json"} {
			if format == "json" && tc.name == "output_value" {
				continue // -o json would replace -o yaml
			}
			t.Run(tc.name+"_"+format, func(t *testing.T) {
				args := tc.args
				if format == "json" {
					args = append(append([]string{}, args...), "-o", "json")
				}
				r := h.run(args...)
				assert.Equal(t, tc.code, r.code, r.stderr)
				assert.Empty(t, r.stdout)
				if format == "json" {
					var e struct{ Error errorReport }
					require.NoError(t, json.Unmarshal([]byte(r.stderr), &e), "one JSON object: %s", r.stderr)
					assert.Equal(t, tc.code, e.Error.ExitCode)
					assert.Equal(t, 1, strings.Count(r.stderr, "\n"), "one line")
				}
				var n normaliser
				golden(t, "error_"+tc.name+"."+format, n.apply(r.stderr))
			})
		}
	}
}

// A maybe-sent send exits 3 and names the command that settles it.
// With --external-id the send stays unresolved only when its look-ups
// fail too; running the same command again then settles it.
func TestMaybeSentNamesTheLookUp(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.env["TELCO_TEST_SETTLE_TIME"] = "20ms"
	h.srv.FailNext(1, 500)
	r := h.run("sms", "send", "--to", "+61400000001", "--text", "hi")
	assert.Equal(t, 3, r.code, "may have been sent: 3, not 1")
	assert.Contains(t, r.stderr, "may have reached the service")
	assert.Regexp(t, `to find out: telco sms find --property PR[A-Z0-9]{30} --since \S+ --direction Transmit`, r.stderr)

	h.srv.Inject(1, telcotest.Fault{Kind: telcotest.FaultStatus, Status: 500, Op: "Messages.Send"})
	h.srv.Inject(100, telcotest.Fault{Kind: telcotest.FaultStatus, Status: 400, Op: "Messages.Find"})
	r = h.run("sms", "send", "--to", "+61400000001", "--text", "hi", "--external-id", "order-7")
	assert.Equal(t, 3, r.code, r.stderr)
	assert.Contains(t, r.stderr, "may have reached the service")
	assert.Regexp(t, `to find out: telco sms find --property PR[A-Z0-9]{30} --since \S+ --direction Transmit --external-id order-7`, r.stderr)
	h.srv.ClearFaults()
	r = h.run("sms", "send", "--to", "+61400000001", "--text", "hi", "--external-id", "order-7")
	assert.Equal(t, 0, r.code, "looked up, not found, sent: %s", r.stderr)
	assert.Equal(t, 1, storedIDs(h.srv)["order-7"])

	h.srv.FailNext(1, 500)
	r = h.run("sms", "send", "--to", "+61400000001", "--text", "hi", "-o", "json")
	var e struct{ Error errorReport }
	require.NoError(t, json.Unmarshal([]byte(r.stderr), &e), r.stderr)
	assert.True(t, e.Error.MaybeSent)
	assert.Equal(t, 3, e.Error.ExitCode)
	assert.Equal(t, 500, e.Error.Status)
	h.srv.Inject(1, telcotest.Fault{Kind: telcotest.FaultStatus, Status: 500, Op: "Messages.Send"})
	h.srv.Inject(100, telcotest.Fault{Kind: telcotest.FaultStatus, Status: 400, Op: "Messages.Find"})
	r = h.run("sms", "send", "--to", "+61400000001", "--text", "hi", "--external-id", "order 8", "-o", "json")
	require.NoError(t, json.Unmarshal([]byte(r.stderr), &e), r.stderr)
	assert.Contains(t, e.Error.Resolve, "--external-id 'order 8'", "quoted for the shell")
	h.srv.ClearFaults()

	// And the look-up itself: the message that did go out is found.
	h.ok("sms", "send", "--to", "+61400000002", "--text", "hi", "--external-id", "order-9")
	out := h.ok("sms", "find", "--since", "-5m", "--external-id", "order-9")
	assert.Contains(t, out, "order-9")
	r = h.run("sms", "find", "--since", "-5m", "--external-id", "order-9", "--external-id", "nope")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stdout, "order-9")
	assert.Contains(t, r.stderr, "not found since")
	assert.Contains(t, r.stderr, "nope")
}

// Issue "operators and newcomers": an error repeated its sentence up to
// four times (the SDK's text, then its code, message and fields again)
// and named the SDK's internals (Client.Do, Properties.Get). Each is now
// said once, by the command that failed.
func TestErrorsSayItOnce(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	for _, tc := range []struct {
		args  []string
		once  []string // each said exactly once
		fault *telcotest.Fault
	}{
		{args: []string{"addresses", "create", "--line1", "1 Main St", "--city", "Sydney", "--country", "XX"},
			once: []string{"The country XX was not found.", "COUNTRY_NOT_FOUND", "addresses create"}},
		{args: []string{"projects", "get", "PRXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX"}, once: []string{"The property was not found.", "PROPERTY_NOT_FOUND"}},
		{args: []string{"api", "GET", "/v2/Properties/PRXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX"}, once: []string{"The property was not found.", "telco: api: 400"}},
		{args: []string{"sms", "send", "--to", "+61400000001", "--text", "hi"}, once: []string{"injected failure", "may have reached the service"},
			fault: &telcotest.Fault{Kind: telcotest.FaultStatus, Status: 500, Op: "Messages.Send"}},
		{args: []string{"sms", "send", "--to", "+61400000001", "--text", "hi"}, once: []string{"Service Unavailable", "may have reached the service"},
			fault: &telcotest.Fault{Kind: telcotest.FaultStatus, Status: 503, Body: telcotest.FaultBodyHTML, Op: "Messages.Send"}},
	} {
		if tc.fault != nil {
			h.srv.Inject(1, *tc.fault)
		}
		r := h.run(tc.args...)
		assert.NotEqual(t, 0, r.code, tc.args)
		for _, s := range tc.once {
			assert.Equal(t, 1, strings.Count(r.stderr, s), "%v says %q once:\n%s", tc.args, s, r.stderr)
		}
		for _, internal := range []string{"Client.Do", "Properties.", "Messages.", "telco: telco"} {
			assert.NotContains(t, r.stderr, internal, tc.args)
		}
		assert.True(t, strings.HasPrefix(r.stderr, "telco: "+strings.Join(tc.args[:min(2, len(tc.args))], " ")+": ") ||
			strings.HasPrefix(r.stderr, "telco: api: "), "names the command: %s", r.stderr)
	}

	// A request that never got an answer says which request, in plain
	// words, not Go's.
	h.env["TELCO_BASE_URL"] = "http://127.0.0.1:1"
	r := h.run("projects", "list")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "telco: projects list: GET http://127.0.0.1:1/v2/Properties: ")
}
