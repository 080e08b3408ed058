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

// mockEnv is what the README's mock recipe exports for srv.
func mockEnv(srv *telcotest.Server) map[string]string {
	return map[string]string{telco.EnvAccountSid: srv.AccountSid, telco.EnvToken: srv.Token,
		telco.EnvBaseURL: srv.URL, "TELCO_PROPERTY_SID": srv.PropertySid}
}

// The README's mock recipe exports TELCO_BASE_URL with the credentials:
// the example must send there, never to the real service.
func TestEnvConfigHonoursBaseURL(t *testing.T) {
	srv := telcotest.NewServer()
	defer srv.Close()
	useEnv(t, mockEnv(srv))
	cfg := envConfig(os.Getenv)
	cfg.to = []string{"+61400000001", "+61400000002"}
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out, cfg))
	assert.Contains(t, out.String(), "Using the service at "+srv.URL)
	assert.Len(t, srv.Messages(srv.PropertySid), 2, "the batch went to the mock")
}

// Half the credentials is a mistake to report, not a reason to run on the
// fake: the error names the variable that is missing, never the token.
func TestHalfTheCredentialsIsAnError(t *testing.T) {
	useEnv(t, map[string]string{telco.EnvToken: "s3cret-token-value", "TELCO_PROPERTY_SID": "PR1"})
	cfg := envConfig(os.Getenv)
	cfg.to = []string{"+61400000001"}
	var out bytes.Buffer
	err := run(context.Background(), &out, cfg)
	require.Error(t, err)
	assert.Contains(t, err.Error(), telco.EnvAccountSid+" not set")
	assert.NotContains(t, err.Error(), "s3cret-token-value")
	assert.NotContains(t, out.String(), "fake")
}
