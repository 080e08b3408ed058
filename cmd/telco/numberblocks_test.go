package main

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
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
	var page telco.NumberBlockPage
	h.jsonOf(&page, "number-blocks", "search", "--account", h.srv.AccountSid, "--sms", "--page-size", "1")
	assert.Equal(t, 2, page.TotalCount, "--sms=true filters")
	assert.Len(t, page.Data, 1)
	h.jsonOf(&page, "number-blocks", "list-by-account", h.srv.AccountSid, "--sms=false")
	assert.Equal(t, 1, page.TotalCount)
}
