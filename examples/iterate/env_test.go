package main

import (
	"bytes"
	"context"
	"os"
	"testing"

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
		"TELCO_PROPERTY_SID"} {
		t.Setenv(k, env[k])
	}
}

// The README's mock recipe exports TELCO_BASE_URL with the credentials:
// the example must read there, never from the real service.
func TestEnvConfigHonoursBaseURL(t *testing.T) {
	srv := telcotest.NewServer()
	defer srv.Close()
	useEnv(t, map[string]string{telco.EnvAccountSid: srv.AccountSid, telco.EnvToken: srv.Token,
		telco.EnvBaseURL: srv.URL, "TELCO_PROPERTY_SID": srv.PropertySid})
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out, envConfig(os.Getenv)))
	assert.Contains(t, out.String(), "Using the service at "+srv.URL)
	assert.Positive(t, srv.Requests(), "the example read from the mock")
}
