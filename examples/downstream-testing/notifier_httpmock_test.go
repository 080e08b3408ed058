package main

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/telcosdk/telco"
)

const mockBase = "https://telco.invalid"

// newMock returns a Notifier whose client talks to an httpmock transport:
// no network, and every request must have a responder.
func newMock(t *testing.T) (*Notifier, *httpmock.MockTransport) {
	t.Helper()
	mt := httpmock.NewMockTransport()
	c, err := telco.NewClient("AC00000000000000000000000000MOCK", "token",
		telco.WithBaseURL(mockBase), telco.WithHTTPClient(&http.Client{Transport: mt}),
		// Retries off: an unmatched request fails at once instead of
		// being retried for about 2 s, and each canned answer is used once.
		telco.WithRetryPolicy(telco.RetryPolicy{MaxRetries: 0}),
		// SendOnce looks a maybe-sent message up after a settle time
		// (5 s by default): canned answers need none.
		telco.WithReconcilePolicy(telco.ReconcilePolicy{SettleTime: time.Millisecond}))
	require.NoError(t, err)
	return &Notifier{Messages: c.Messages, PropertySid: "PR00000000000000000000000000MOCK", From: "Acme"}, mt
}

const sendPath = mockBase + "/v2/Properties/PR00000000000000000000000000MOCK/Messages"

func TestNotifier_Mock_SendsTheExpectedRequest(t *testing.T) {
	t.Parallel()
	n, mt := newMock(t)
	var body map[string]any
	mt.RegisterResponder(http.MethodPost, sendPath, func(r *http.Request) (*http.Response, error) {
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			return nil, err
		}
		return httpmock.NewStringResponse(200, `{"Message":{"MessageSid":"MG00000000000000000000000000000A","Status":"Processing"}}`), nil
	})
	sid, err := n.OrderShipped(context.Background(), "+61400000001", "A-1")
	require.NoError(t, err)
	assert.Equal(t, "MG00000000000000000000000000000A", sid)
	assert.Equal(t, "+61400000001", body["To"])
	assert.Equal(t, "Acme", body["From"])
	assert.Equal(t, "ship-A-1", body["ExternalId"])
	assert.Equal(t, 1, mt.GetTotalCallCount())
}

// After a 503 the notifier finds the notice by its ExternalId and does not
// send it again.
func TestNotifier_Mock_AmbiguousFailureFoundNotResent(t *testing.T) {
	t.Parallel()
	n, mt := newMock(t)
	mt.RegisterResponder(http.MethodPost, sendPath,
		httpmock.NewStringResponder(503, `{"ResponseStatus":{"ErrorCode":"UNAVAILABLE","Message":"try later"}}`))
	mt.RegisterResponder(http.MethodGet, sendPath,
		httpmock.NewStringResponder(200, `{"Messages":[{"MessageSid":"MG00000000000000000000000000000B","ExternalId":"ship-A-2","Status":"Submitted"}]}`))
	sid, err := n.OrderShipped(context.Background(), "+61400000001", "A-2")
	require.NoError(t, err)
	assert.Equal(t, "MG00000000000000000000000000000B", sid)
	assert.Equal(t, 1, mt.GetCallCountInfo()["POST "+sendPath], "sent once only")
}

func TestNotifier_Mock_ServiceErrorIsReturned(t *testing.T) {
	t.Parallel()
	n, mt := newMock(t)
	mt.RegisterResponder(http.MethodPost, sendPath, httpmock.NewStringResponder(403,
		`{"ResponseStatus":{"ErrorCode":"FORBIDDEN","Message":"The project is not enabled for SMS."}}`))
	_, err := n.OrderShipped(context.Background(), "+61400000001", "A-3")
	var apiErr *telco.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, telco.CodeForbidden, apiErr.Code)
	assert.NotErrorIs(t, err, telco.ErrMaybeSent)
}
