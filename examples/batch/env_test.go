package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/telcosdk/telco/telcotest"
)

// The README's mock recipe exports TELCO_BASE_URL with the credentials:
// the example must send there, never to the real service.
func TestEnvConfigHonoursBaseURL(t *testing.T) {
	t.Parallel()
	srv := telcotest.NewServer()
	defer srv.Close()
	env := map[string]string{"TELCO_ACCOUNT_SID": srv.AccountSid, "TELCO_TOKEN": srv.Token,
		"TELCO_BASE_URL": srv.URL, "TELCO_PROPERTY_SID": srv.PropertySid}
	cfg := envConfig(func(k string) string { return env[k] })
	cfg.to = []string{"+61400000001", "+61400000002"}
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out, cfg))
	assert.Contains(t, out.String(), "Using the service at "+srv.URL)
	assert.Len(t, srv.Messages(srv.PropertySid), 2, "the batch went to the mock")
}
