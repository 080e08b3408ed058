package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/telcosdk/telco"
)

// --time-zone takes an IANA name and sends its Windows ID from the SDK's
// table, saying so; a Windows ID goes as it is.
func TestProjectsTimeZoneByIANAName(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	r := h.run("projects", "create", "--name", "Acme", "--domain", "acme.example", "--time-zone", "Australia/Sydney", "-o", "json")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "telco: sent AUS Eastern Standard Time for Australia/Sydney\n", r.stderr)
	var p telco.Property
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &p))
	assert.Equal(t, "AUS Eastern Standard Time", p.TimeZone)

	r = h.run("projects", "update", p.PropertySid, "--time-zone", "Europe/London")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "sent GMT Standard Time for Europe/London")
	assert.Regexp(t, `TIME ZONE\s+GMT Standard Time`, r.stdout)

	r = h.run("projects", "update", p.PropertySid, "--time-zone", "tokyo standard time")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Empty(t, r.stderr, "a Windows ID is sent as it is")

	r = h.run("projects", "update", p.PropertySid, "--time-zone", "Mars/Olympus_Mons")
	assert.Equal(t, 2, r.code, "neither: refused before sending (TestProjectsTimeZoneCheckedBeforeAnyRequest)")
	assert.NotContains(t, r.stderr, "sent ")
}

// Issue 36: a time zone the SDK does not know is refused before any
// request (exit 2), with a suggestion for a near miss of an IANA name or
// a Windows ID; the service's own IDs, even those the CLDR table no longer
// lists, still go through.
func TestProjectsTimeZoneCheckedBeforeAnyRequest(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	var p telco.Property
	h.jsonOf(&p, "projects", "create", "--name", "Acme", "--domain", "acme.example", "--time-zone", "AUS Eastern Standard Time")
	sent := h.srv.Requests()
	for _, tc := range []struct {
		args    []string
		suggest string // "" for none
	}{
		{[]string{"projects", "create", "--name", "X", "--domain", "x.example", "--time-zone", "Australia/Sydny"}, "Australia/Sydney"},
		{[]string{"projects", "update", p.PropertySid, "--time-zone", "Australia/Sydny"}, "Australia/Sydney"},
		{[]string{"projects", "update", p.PropertySid, "--time-zone", "australia/sydney"}, "Australia/Sydney"},
		{[]string{"projects", "update", p.PropertySid, "--time-zone", "Europe/Londn"}, "Europe/London"},
		{[]string{"projects", "update", p.PropertySid, "--time-zone", "AUS Eastern Standard Tme"}, "AUS Eastern Standard Time"},
		{[]string{"projects", "update", p.PropertySid, "--time-zone", "Tokyo Standrd Time"}, "Tokyo Standard Time"},
		{[]string{"projects", "update", p.PropertySid, "--time-zone", "Mars Standard Time"}, ""},
		{[]string{"projects", "update", p.PropertySid, "--time-zone", "Mars/Olympus_Mons"}, ""},
	} {
		for _, format := range []string{"table", "json"} {
			r := h.run(append(tc.args, "-o", format)...)
			assert.Equal(t, 2, r.code, "%v: %s", tc.args, r.stderr)
			assert.Contains(t, r.stderr, "--time-zone", tc.args)
			if tc.suggest != "" {
				assert.Contains(t, r.stderr, "did you mean "+tc.suggest+"?", tc.args)
			} else {
				assert.NotContains(t, r.stderr, "did you mean", tc.args)
			}
			assert.Empty(t, r.stdout)
		}
	}
	assert.Equal(t, sent, h.srv.Requests(), "no request was sent")

	// Windows IDs the CLDR table no longer lists, which Windows and the
	// service still take (telcotest accepts them too), go as they are.
	for _, id := range []string{"Mid-Atlantic Standard Time", "kamchatka standard time"} {
		r := h.run("projects", "update", p.PropertySid, "--time-zone", id)
		assert.Equal(t, 0, r.code, "%s: %s", id, r.stderr)
	}
}
