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

// The README's mock recipe exports TELCO_BASE_URL with the credentials:
// the example must read there, never from the real service.
func TestEnvConfigHonoursBaseURL(t *testing.T) {
	t.Parallel()
	srv := telcotest.NewServer()
	defer srv.Close()
	env := map[string]string{"TELCO_ACCOUNT_SID": srv.AccountSid, "TELCO_TOKEN": srv.Token,
		"TELCO_BASE_URL": srv.URL, "TELCO_FOLLOW_FOR": "100ms", "TELCO_POLL_INTERVAL": "20ms"}
	cfg := envConfig(func(k string) string { return env[k] })
	assert.Equal(t, 100*time.Millisecond, cfg.followFor)
	assert.Equal(t, 20*time.Millisecond, cfg.interval)
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out, cfg))
	assert.Contains(t, out.String(), "Following the service at "+srv.URL)
	assert.Contains(t, out.String(), "0 call(s)")
	assert.Positive(t, srv.Requests(), "the example read from the mock")

	defaults := envConfig(func(string) string { return "" })
	assert.Equal(t, time.Minute, defaults.followFor)
	assert.Equal(t, 15*time.Second, defaults.interval)
}
