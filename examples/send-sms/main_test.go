package main

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/telcosdk/telco/telcotest"
)

func TestSendOnTheEmbeddedFake(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out, config{text: "Hi there"}))
	s := out.String()
	assert.Contains(t, s, "No credentials")
	assert.Contains(t, s, "to +61400000000: Processing")
	// Submitted lasts DeliverDelay on the fake: a loaded machine may poll
	// past it, so only the final status is certain.
	assert.Contains(t, s, "now Delivered")
}

// With credentials the example talks to the given service: here the fake,
// standing in for the real one.
func TestSendWithCredentials(t *testing.T) {
	srv := telcotest.NewServer()
	defer srv.Close()
	useEnv(t, mockEnv(srv, srv.URL))
	cfg := config{live: true, propertySid: srv.PropertySid,
		from: "Acme", to: "+61400000001", text: "Hello", poll: 100 * time.Millisecond}
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out, cfg))
	assert.Contains(t, out.String(), "from Acme to +61400000001")
	assert.Contains(t, out.String(), "now Delivered")

	srv.FailMessagesTo("+61400000666")
	cfg.to = "+61400000666"
	err := run(context.Background(), &out, cfg)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "UNDELIVERABLE")
}

func TestSendRefusesBadInputAndMissingTarget(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	err := run(context.Background(), &out, config{live: true})
	require.Error(t, err, "with credentials, -to is required")
	assert.Contains(t, err.Error(), "-to")

	err = run(context.Background(), &out, config{to: "0400", text: "x"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not sent")
}
