package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/telcotest"
)

func TestIterateOnTheEmbeddedFake(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out, config{pageSize: 20}))
	s := out.String()
	assert.Contains(t, s, "1 project(s)")
	assert.Contains(t, s, "55 message(s) in the last day:")
	assert.Contains(t, s, "Processing=0 Submitted=6 Delivered=21 Failed=3 Received=25")
	assert.Contains(t, s, "received, page 1: 20 message(s)")
	assert.Contains(t, s, "received, page 2: 5 message(s)")
	assert.NotContains(t, s, "page 3")
}

// With credentials the example only reads; the fake stands in for the
// service and sees no write.
func TestIterateWithCredentialsReadsOnly(t *testing.T) {
	srv := telcotest.NewServer()
	defer srv.Close()
	useEnv(t, map[string]string{telco.EnvAccountSid: srv.AccountSid, telco.EnvToken: srv.Token, telco.EnvBaseURL: srv.URL})
	c := srv.Client()
	for i := range 3 {
		_, err := c.Properties.Create(context.Background(), &telco.CreatePropertyParams{
			Name: strings.Repeat("p", i+1), MainDomain: "x.example.com", TimeZone: "UTC"})
		require.NoError(t, err)
	}
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out, config{live: true, pageSize: 2}))
	assert.Contains(t, out.String(), "4 project(s)")
	assert.Contains(t, out.String(), "0 message(s) in the last day")
	assert.Contains(t, out.String(), "received, page 1: 0 message(s)")
}
