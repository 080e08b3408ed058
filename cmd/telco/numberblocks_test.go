package main

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/telcosdk/telco"
)

func TestNumberBlockListingsAgainstTheFake(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	for i := 0; i < 3; i++ {
		h.srv.AddNumberBlock(h.srv.PropertySid, telco.NumberBlock{NumberPattern: fmt.Sprintf("+612888%d0XXX", i), SupportsSms: i%2 == 0})
	}
	var blocks []telco.NumberBlock
	h.jsonOf(&blocks, "number-blocks", "list-by-account", "--all", "--page-size", "2")
	assert.Len(t, blocks, 3, "--all walks every page")
	h.jsonOf(&blocks, "number-blocks", "search-text", "+6128881", "--all")
	assert.Len(t, blocks, 1)
	r := h.run("number-blocks", "search", "--account", h.srv.AccountSid, "--sms", "--page-size", "1", "-o", "json")
	require.Equal(t, 0, r.code, r.stderr)
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &blocks))
	assert.Len(t, blocks, 1)
	assert.Contains(t, r.stderr, "more results exist", "--sms=true leaves 2 blocks: a page of 1 has a next")
	assert.Contains(t, r.stderr, "--page 1")
	r = h.run("number-blocks", "list-by-account", h.srv.AccountSid, "--sms=false", "-o", "json")
	require.Equal(t, 0, r.code, r.stderr)
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &blocks))
	assert.Len(t, blocks, 1)
	assert.NotContains(t, r.stderr, "more results", "the last page says nothing")
}
