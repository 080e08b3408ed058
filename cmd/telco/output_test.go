package main

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/telcosdk/telco"
)

var rfc3339AnyRe = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(Z|[+-]\d\d:\d\d)`)

// Every command that prints times prints them in one zone, the user's
// (the local zone, TZ here; UTC with --utc), in RFC 3339, in tables as in
// JSON, and a table shows no time that its JSON does not.
func TestTimesAreShownInTheUsersZone(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.env["TZ"] = "Australia/Sydney"
	syd, err := time.LoadLocation("Australia/Sydney")
	require.NoError(t, err)

	ctx := context.Background()
	c := h.srv.Client()
	prop := h.srv.PropertySid
	login, err := c.OnlineLogins.Create(ctx, prop, &telco.CreateOnlineLoginParams{Email: "ops@example.com", Password: "Str0ng-Passw0rd!",
		FirstName: "O", LastName: "P", Scopes: telco.Scopes{telco.ScopeReporting}})
	require.NoError(t, err)
	trunk, err := c.SipTrunks.Create(ctx, prop, &telco.CreateSipTrunkParams{Name: "PBX", DefaultCallerID: "+61299999999",
		Type: telco.SipTrunkIPToIP, IPAddresses: []string{"8.8.8.0/24"}})
	require.NoError(t, err)
	msg, err := c.Messages.Send(ctx, prop, &telco.SendMessageParams{To: "+61400000001", Text: "hi", Schedule: time.Now().Add(time.Hour)})
	require.NoError(t, err)
	_, err = c.Porting.Submit(ctx, prop, &telco.PortingRequestParams{AuthorisedContactName: "Jo", AuthorisedContactEmail: "jo@example.com",
		DaytimeContactNumber: "+61299990000", CurrentCarrier: "Telstra", CurrentCarrierAccountNo: "1", PreferredPortSchedule: telco.PortASAP,
		PortingNumbers: []telco.PortingNumberParams{{Number: "+61299990001", PortType: telco.PortTypeCatA, PortAddress: "1 Example St"}}})
	require.NoError(t, err)
	call := h.srv.AddCall(prop, telco.Call{From: "+61412345001"})
	h.srv.AddNumberBlock(prop, telco.NumberBlock{NumberPattern: "+6129999XXXX",
		Created: telco.DateTime{Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("", -5*3600))}})

	commands := [][]string{
		{"sms", "get", msg.MessageSid}, {"sms", "find"},
		{"logins", "get", login.OnlineLoginSid}, {"logins", "list"},
		{"sip-trunks", "get", trunk}, {"sip-trunks", "list"},
		{"porting", "status"}, {"flows", "list"},
		{"calls", "get", call.CallSid}, {"calls", "list"},
		{"number-blocks", "list-by-property", prop},
	}
	for _, utc := range []bool{false, true} {
		zone := syd
		if utc {
			zone = time.UTC
		}
		for _, args := range commands {
			if utc {
				args = append(append([]string{}, args...), "--utc")
			}
			table := rfc3339AnyRe.FindAllString(h.ok(args...), -1)
			json := rfc3339AnyRe.FindAllString(h.ok(append(args, "-o", "json")...), -1)
			require.NotEmpty(t, json, "%v prints times", args)
			for _, s := range append(table, json...) {
				at, err := time.Parse(time.RFC3339, s)
				require.NoError(t, err)
				assert.Equal(t, at.In(zone).Format(time.RFC3339), s, "%v: a time in the user's zone", args)
			}
			for _, s := range table {
				assert.Contains(t, json, s, "%v: the table's time is the JSON's", args)
			}
			if !utc {
				assert.NotContains(t, strings.Join(json, " "), "Z", "%v: not UTC", args)
			}
		}
	}
}

func TestPlural(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "0 lines", plural(0, "line"))
	assert.Equal(t, "1 line", plural(1, "line"))
	assert.Equal(t, "2 lines", plural(2, "line"))
	h := newHarness(t)
	r := h.run("projects", "list", "extra")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "(got 1 argument)")
}
