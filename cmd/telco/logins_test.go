package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/telcosdk/telco"
)

func TestLoginListingsAndUnknownLogin(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	var logins []telco.OnlineLogin
	h.jsonOf(&logins, "logins", "list", "--all")
	assert.Empty(t, logins)
	var ls []telco.OnlineLogin
	h.jsonOf(&ls, "logins", "list", "--count", "5")
	assert.Empty(t, ls, "one page has the shape of --all: an array")
	r := h.run("logins", "get", "00000000-0000-4000-8000-000000000000")
	assert.Equal(t, 1, r.code, r.stderr)
}
