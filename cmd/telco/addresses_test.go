package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/telcosdk/telco"
)

func TestAddressCreateAndDelete(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	var addr telco.Address
	h.jsonOf(&addr, "addresses", "create", "--line1", "1 Example St", "--city", "Sydney", "--country", "AU")
	assert.Equal(t, "deleted "+addr.AddressSid+"\n", h.ok("addresses", "delete", addr.AddressSid))
	r := h.run("addresses", "delete", addr.AddressSid)
	assert.Equal(t, 1, r.code)
}
