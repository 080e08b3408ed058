package main

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/telcosdk/telco"
)

func TestFindPagesAndWindows(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	for i := 0; i < 5; i++ {
		h.ok("sms", "send", "--from", "Acme", "--to", fmt.Sprintf("+6140000000%d", i), "--text", "hi")
	}
	var msgs []telco.Message
	r := h.run("sms", "find", "--count", "2", "--skip", "1", "-o", "json")
	require.Equal(t, 0, r.code, r.stderr)
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &msgs))
	assert.Len(t, msgs, 2)
	assert.Contains(t, r.stderr, "more results exist", "3 of 5 are left")
	for _, m := range msgs {
		assert.False(t, m.Created.Time().IsZero(), "Created reads back from RFC 3339")
	}
	assert.Regexp(t, `"Created": "\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"`, r.stdout, "times are RFC 3339")
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
