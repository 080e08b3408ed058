package main

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

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

func TestNumberBlocksPurchaseAndConfigure(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	var raw struct {
		NumberBlockSid string
		Block          struct{ NumberBlockSid, Created string }
		Raw            struct {
			NumberBlock struct{ NumberBlockSid string }
		} // the service's answer as sent
	}
	h.jsonOf(&raw, "number-blocks", "purchase", "--answer-point", "0299990000", "--group-type", "1")
	require.NotEmpty(t, raw.NumberBlockSid)
	assert.Equal(t, raw.NumberBlockSid, raw.Block.NumberBlockSid)
	assert.Equal(t, raw.NumberBlockSid, raw.Raw.NumberBlock.NumberBlockSid)
	_, err := time.Parse(time.RFC3339, raw.Block.Created)
	assert.NoError(t, err, "the block follows the CLI's JSON contract: %q", raw.Block.Created)

	out := h.ok("number-blocks", "configure", raw.NumberBlockSid, "--routing", "endpoint", "--endpoint", "0399990000")
	assert.Contains(t, out, raw.NumberBlockSid)
	var page []struct{ TerminationNumber string }
	h.jsonOf(&page, "number-blocks", "list-by-property", h.srv.PropertySid)
	require.Len(t, page, 1)
	assert.Equal(t, "61399990000", page[0].TerminationNumber)

	assert.Equal(t, 2, h.run("number-blocks", "configure", raw.NumberBlockSid, "--routing", "flow").code, "flow needs --flow")
	assert.Equal(t, 2, h.run("number-blocks", "purchase", "--answer-point", "0299990000", "--field", "AnswerPoint=1").code)
	assert.Equal(t, 2, h.run("number-blocks", "purchase", "--answer-point", "0299990000", "--preamble", "3").code)
}
