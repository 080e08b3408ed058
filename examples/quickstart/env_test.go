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
// the tour must read there, never from the real service.
func TestRunHonoursBaseURL(t *testing.T) {
	t.Parallel()
	srv := telcotest.NewServer()
	defer srv.Close()
	env := map[string]string{"TELCO_ACCOUNT_SID": srv.AccountSid, "TELCO_TOKEN": srv.Token, "TELCO_BASE_URL": srv.URL}
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out, func(k string) string { return env[k] }, ""))
	assert.Contains(t, out.String(), "at "+srv.URL)
	assert.Positive(t, srv.Requests(), "the tour read from the mock")
}
