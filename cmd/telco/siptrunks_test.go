package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/telcosdk/telco"
)

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
}

func TestSipTrunkListFilters(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.ok("sip-trunks", "create", "--name", "Office", "--caller-id", "+61299990000", "--ip", "101.0.0.1")
	var trunks telco.Page[telco.SipTrunk]
	h.jsonOf(&trunks, "sip-trunks", "list")
	assert.Len(t, trunks.Items, 1)
	h.jsonOf(&trunks, "sip-trunks", "list", "--type", "auth", "--active", "--state", "2", "--all=false")
	assert.Empty(t, trunks.Items, "the IP trunk is filtered out")
}
