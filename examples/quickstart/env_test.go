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

// The README's mock recipe exports TELCO_BASE_URL with the credentials:
// the tour must read there, never from the real service.
func TestRunHonoursBaseURL(t *testing.T) {
	srv := telcotest.NewServer()
	defer srv.Close()
	// Every variable the tour reads, so that the shell's own cannot leak in.
	t.Setenv(telco.EnvAccountSid, srv.AccountSid)
	t.Setenv(telco.EnvToken, srv.Token)
	t.Setenv(telco.EnvBaseURL, srv.URL)
	t.Setenv(telco.EnvAllowInsecureHTTP, "")
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out, os.Getenv, ""))
	assert.Contains(t, out.String(), "at "+srv.URL)
	assert.Positive(t, srv.Requests(), "the tour read from the mock")
}
