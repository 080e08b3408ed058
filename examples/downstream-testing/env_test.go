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
// the example must send there, never to the real service.
func TestRunHonoursBaseURL(t *testing.T) {
	srv := telcotest.NewServer()
	defer srv.Close()
	useEnv(t, map[string]string{telco.EnvAccountSid: srv.AccountSid, telco.EnvToken: srv.Token,
		telco.EnvBaseURL: srv.URL, "TELCO_PROPERTY_SID": srv.PropertySid})
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out, os.Getenv, "+61400000001"))
	assert.Contains(t, out.String(), "Using the service at "+srv.URL)
	assert.Len(t, srv.Messages(srv.PropertySid), 1, "the notice went to the mock")
}

// With credentials, run refuses before sending anything unless both the
// recipient (-to) and the project are given: a default recipient would send
// a real SMS to a stranger.
func TestRunWithCredentialsNeedsToAndProperty(t *testing.T) {
	srv := telcotest.NewServer()
	defer srv.Close()
	for _, tt := range []struct {
		name, to, property string
	}{
		{"no -to", "", srv.PropertySid},
		{"no property", "+61400000001", ""},
	} {
		useEnv(t, map[string]string{telco.EnvAccountSid: srv.AccountSid, telco.EnvToken: srv.Token,
			telco.EnvBaseURL: srv.URL, "TELCO_PROPERTY_SID": tt.property})
		var out bytes.Buffer
		err := run(context.Background(), &out, os.Getenv, tt.to)
		require.Error(t, err, tt.name)
		assert.Contains(t, err.Error(), "set -to and TELCO_PROPERTY_SID", tt.name)
	}
	assert.Zero(t, srv.Requests(), "nothing reached the service")
	assert.Empty(t, srv.Messages(srv.PropertySid))
}
