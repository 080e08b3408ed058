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
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "UNKNOWN_TIME_ZONE", "neither: the service says so")
	assert.NotContains(t, r.stderr, "sent ")
}
