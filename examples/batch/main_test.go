package main

import (
	"bytes"
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/telcotest"
)

func TestBatchOnTheEmbeddedFake(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out, config{}))
	s := out.String()
	for _, want := range []string{"0 +61400000001 accepted: MG", "2 +61400000003 accepted", "3 0400 000 004 rejected: INVALID_PHONENUMBER_FORMAT (To)"} {
		assert.Contains(t, s, want)
	}
}

// A 503 leaves the batch's fate unknown: the example finds nothing stored
// under its ExternalIds and sends the batch once more, so every message is
// stored exactly once.
func TestBatchReconcilesAfterAmbiguousFailure(t *testing.T) {
	srv := telcotest.NewServer()
	defer srv.Close()
	useEnv(t, mockEnv(srv))
	srv.FailNext(1, http.StatusServiceUnavailable)
	cfg := config{live: true, propertySid: srv.PropertySid, to: []string{"+61400000001", "+61400000002"}}
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out, cfg))
	assert.Contains(t, out.String(), "reconciling by ExternalId")
	assert.Contains(t, out.String(), "0 already sent, sending 2 again")

	page, err := srv.Client().Messages.Find(context.Background(), srv.PropertySid, &telco.FindMessagesParams{
		DateFrom: time.Now().Add(-time.Hour), DateTo: time.Now().Add(time.Hour)})
	require.NoError(t, err)
	assert.Len(t, page.Items, 2, "each message stored once")
}

func TestBatchNeedsRecipientsWithCredentials(t *testing.T) {
	t.Parallel()
	err := run(context.Background(), &bytes.Buffer{}, config{live: true})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "-to")
}
