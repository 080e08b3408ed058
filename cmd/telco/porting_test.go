package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/telcosdk/telco"
)

func TestPortingStatusAll(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	var porting []telco.PortingRequest
	h.jsonOf(&porting, "porting", "status", "--all")
	assert.Empty(t, porting)
}
