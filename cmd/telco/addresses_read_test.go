package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/telcosdk/telco"
)

func TestAddressListAndGet(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	var sydney, melbourne telco.Address
	h.jsonOf(&sydney, "addresses", "create", "--line1", "1 Example St", "--city", "Sydney", "--country", "AU")
	h.jsonOf(&melbourne, "addresses", "create", "--line1", "9 Queen St", "--city", "Melbourne", "--country", "AU")

	var page []telco.Address
	h.jsonOf(&page, "addresses", "list", "--city", "Sydney")
	require.Len(t, page, 1)
	assert.Equal(t, sydney.AddressSid, page[0].AddressSid)
	out := h.ok("addresses", "list", "--all", "--count", "1")
	assert.Contains(t, out, sydney.AddressSid)
	assert.Contains(t, out, melbourne.AddressSid)

	var got telco.Address
	h.jsonOf(&got, "addresses", "get", melbourne.AddressSid)
	assert.Equal(t, melbourne, got)
	r := h.run("addresses", "get", "ADNOPE")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "ADDRESS_NOT_FOUND")
	assert.Equal(t, 2, h.run("addresses", "list", "--country", "Australia").code, "refused before sending")
}
