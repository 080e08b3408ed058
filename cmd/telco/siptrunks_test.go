package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/telcosdk/telco"
)

func TestSipTrunkGetByAccount(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	sid := strings.TrimSpace(h.ok("sip-trunks", "create", "--name", "Office", "--caller-id", "+61299990000", "--ip", "101.0.0.1"))
	delete(h.env, "TELCO_PROPERTY_SID")
	var tr struct {
		Name, Type, ProvisioningState string // enumerations by name
		Created                       string // RFC 3339
		SipTrunkIPAddresses           []telco.SipTrunkIPAddress
	}
	h.jsonOf(&tr, "sip-trunks", "get", sid)
	assert.Equal(t, "Office", tr.Name)
	assert.Equal(t, "IP to IP", tr.Type)
	assert.NotEmpty(t, tr.ProvisioningState)
	_, err := time.Parse(time.RFC3339, tr.Created)
	assert.NoError(t, err, "Created is RFC 3339: %q", tr.Created)
	require.Len(t, tr.SipTrunkIPAddresses, 1)
	assert.Equal(t, "101.0.0.1/32", tr.SipTrunkIPAddresses[0].IPAddress)
}

func TestSipTrunkListFilters(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.ok("sip-trunks", "create", "--name", "Office", "--caller-id", "+61299990000", "--ip", "101.0.0.1")
	var trunks []map[string]any
	h.jsonOf(&trunks, "sip-trunks", "list")
	assert.Len(t, trunks, 1)
	h.jsonOf(&trunks, "sip-trunks", "list", "--type", "AUTH", "--active", "--state", "active", "--all=false")
	assert.Empty(t, trunks, "the IP trunk is filtered out")
	h.jsonOf(&trunks, "sip-trunks", "list", "--type", "ip", "--state", "2")
	assert.Len(t, trunks, 1, "a state by number too")
	r := h.run("sip-trunks", "list", "--state", "up")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "--state must be one of Inactive, Provisioning, Active, Deprovisioning")
}

// An IP-to-IP trunk takes no password, from a flag or the environment.
func TestSipTrunkIPRefusesAPassword(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	base := []string{"sip-trunks", "create", "--name", "Office", "--caller-id", "+61299990000", "--type", "ip", "--ip", "101.0.0.1"}
	r := h.run(append(base, "--password", "Tr0ub4dor&3x")...)
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "--type ip takes no password")
	assert.NotContains(t, r.stderr, "Tr0ub4dor&3x")
	r = h.runIn("Tr0ub4dor&3x\n", append(base, "--password-stdin")...)
	assert.Equal(t, 2, r.code)
	h.env["TELCO_SIP_PASSWORD"] = "Tr0ub4dor&3x"
	r = h.run(base...)
	delete(h.env, "TELCO_SIP_PASSWORD")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "TELCO_SIP_PASSWORD is set")
	h.ok(base...)
}

func TestSipTrunksUpdate(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	sid, err := h.srv.Client().SipTrunks.Create(context.Background(), h.srv.PropertySid, &telco.CreateSipTrunkParams{
		Name: "PBX", DefaultCallerID: "+61299999999", Type: telco.SipTrunkIPToIP, IPAddresses: []string{"8.8.8.0/24"}})
	require.NoError(t, err)

	var got struct { // enumerations by name, times as RFC 3339: the CLI's JSON contract
		Name, Type          string
		ChannelLimit        int
		SipTrunkIPAddresses []struct {
			IPAddress string `json:"IpAddress"`
		}
	}
	h.jsonOf(&got, "sip-trunks", "update", sid, "--channels", "4", "--ip", "1.1.1.1", "--ip", "9.9.9.0/24")
	assert.Equal(t, 4, got.ChannelLimit)
	require.Len(t, got.SipTrunkIPAddresses, 2)
	assert.Equal(t, "1.1.1.1/32", got.SipTrunkIPAddresses[0].IPAddress)

	h.jsonOf(&got, "sip-trunks", "update", sid, "--account", h.srv.AccountSid, "--name", "PBX 2")
	assert.Equal(t, "PBX 2", got.Name)
	assert.Equal(t, 4, got.ChannelLimit, "left alone")

	const pw = "Tr0unk!Pass#9"
	r := h.runIn(pw+"\n", "sip-trunks", "update", sid, "--type", "auth", "--realm", "pbx.example.com", "--password-stdin")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "pbx.example.com")
	assert.NotContains(t, r.stdout+r.stderr, pw)

	assert.Equal(t, 2, h.run("sip-trunks", "update", sid).code, "nothing to change")
	assert.Equal(t, 2, h.run("sip-trunks", "update", sid, "--channels", "0").code)
}
