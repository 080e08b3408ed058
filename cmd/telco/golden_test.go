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
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/telcosdk/telco"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

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
				args := append(st.args, "-o", format)
				wantCode := 0
				if st.name == "sms_batch" {
					wantCode = 1 // one line is rejected
					// A ledger of its own for each format: the account's
					// would know the line the other format sent.
					args = append(args, "--ledger", filepath.Join(t.TempDir(), "ledger"))
				}
				r := h.runIn(st.stdin, args...)
				require.Equal(t, wantCode, r.code, r.stderr)
				var n normaliser
				got := n.apply(r.stdout)
				if st.messages {
					got = messageStatuses(got, format == "table")
				}
				switch {
				case format == "json" && st.name == "sms_batch": // JSON lines: one object per line
					for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
						assert.True(t, json.Valid([]byte(line)), "JSON line parses: %s", line)
					}
				case format == "json":
					assert.True(t, json.Valid([]byte(r.stdout)), "JSON output parses: %s", r.stdout)
				}
				golden(t, st.name+"."+format, got)
			})
		}
	}
}
