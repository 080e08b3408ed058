package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/telcosdk/telco"
)

func TestNumbersPurchaseGetAndList(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	var bought telco.NumberPurchase
	h.jsonOf(&bought, "numbers", "purchase", "+61299990001")
	assert.Equal(t, telco.NumberPending, bought.Status, "no address yet")

	var addr telco.Address
	h.jsonOf(&addr, "addresses", "create", "--line1", "1 Example St", "--city", "Sydney", "--country", "AU")
	out := h.ok("numbers", "purchase", "+611800990002", "--address", addr.AddressSid)
	assert.Contains(t, out, "Active")

	var n telco.Number
	h.jsonOf(&n, "numbers", "get", "611800990002")
	assert.Equal(t, telco.NumberTollFree, n.Type)
	assert.Equal(t, addr.AddressSid, n.AddressSid)
	assert.Contains(t, h.ok("numbers", "get", "+61299990001"), "Pending")

	var page []telco.Number
	h.jsonOf(&page, "numbers", "list", "--type", "Local")
	require.Len(t, page, 1)
	assert.Equal(t, "61299990001", page[0].Number)
	out = h.ok("numbers", "list", "--account", h.srv.AccountSid, "--capability", "Voice", "--all")
	assert.Contains(t, out, "611800990002")
	assert.Contains(t, out, "61299990001")

	assert.Equal(t, 2, h.run("numbers", "list", "--type", "Mobile").code, "refused before sending")
	r := h.run("numbers", "purchase", "+61299990001")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "NUMBER_ALREADY_PURCHASED")
}

func TestNumbersConfigureToAFlow(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.srv.AddNumber(h.srv.PropertySid, "+61299990000")
	var flows []telco.Flow
	h.jsonOf(&flows, "flows", "list")
	require.NotEmpty(t, flows)
	out := h.ok("numbers", "configure", "+61299990000", "--routing", "Flow", "--flow", flows[0].ConfigID)
	assert.Contains(t, out, flows[0].ConfigID)
	r := h.run("numbers", "configure", "+61299990000", "--routing", "Flow", "--flow", "nope")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "FLOW_NOT_FOUND")
}
