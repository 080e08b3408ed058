package main

import (
	"bytes"
	"context"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/telcotest"
)

// useEnv sets every variable the example reads, "" for those env leaves
// out, so that the shell's own TELCO_* cannot reach the test. Tests that
// call it cannot run in parallel.
func useEnv(t *testing.T, env map[string]string) {
	t.Helper()
	for _, k := range []string{telco.EnvAccountSid, telco.EnvToken, telco.EnvBaseURL, telco.EnvAllowInsecureHTTP,
		"TELCO_PROPERTY_SID", "TELCO_CALLS_TOKEN", "TELCO_FOLLOW_FOR", "TELCO_POLL_INTERVAL"} {
		t.Setenv(k, env[k])
	}
}

// The README's mock recipe exports TELCO_BASE_URL with the credentials:
// the example must read there, never from the real service.
func TestEnvConfigHonoursBaseURL(t *testing.T) {
	srv := telcotest.NewServer()
	defer srv.Close()
	useEnv(t, map[string]string{telco.EnvAccountSid: srv.AccountSid, telco.EnvToken: srv.Token,
		telco.EnvBaseURL: srv.URL, "TELCO_FOLLOW_FOR": "100ms", "TELCO_POLL_INTERVAL": "20ms"})
	cfg := envConfig(os.Getenv)
	assert.Equal(t, 100*time.Millisecond, cfg.followFor)
	assert.Equal(t, 20*time.Millisecond, cfg.interval)
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out, cfg))
	assert.Contains(t, out.String(), "Following the service at "+srv.URL)
	assert.Contains(t, out.String(), "0 call(s)")
	assert.Positive(t, srv.Requests(), "the example read from the mock")
}

func TestEnvConfigDefaults(t *testing.T) {
	t.Parallel()
	defaults := envConfig(func(string) string { return "" })
	assert.False(t, defaults.live, "no credentials: the fake")
	assert.Equal(t, time.Minute, defaults.followFor)
	assert.Equal(t, 15*time.Second, defaults.interval)
}
