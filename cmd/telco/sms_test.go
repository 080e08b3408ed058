package main

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/telcosdk/telco"
)

func TestFindPagesAndWindows(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	for i := 0; i < 5; i++ {
		h.ok("sms", "send", "--from", "Acme", "--to", fmt.Sprintf("+6140000000%d", i), "--text", "hi")
	}
	var msgs telco.Page[telco.Message]
	h.jsonOf(&msgs, "sms", "find", "--count", "2", "--skip", "1")
	assert.Len(t, msgs.Items, 2)
	var all []telco.Message
	h.jsonOf(&all, "sms", "find", "--all", "--count", "2")
	assert.Len(t, all, 5, "every page of 2")
	h.jsonOf(&all, "sms", "find", "--all", "--since", "+1h", "--until", "+2h")
	assert.Empty(t, all)
}

func TestGetUnknownMessageExits1(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	r := h.run("sms", "get", "MGXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX")
	assert.Equal(t, 1, r.code, r.stderr)
}
