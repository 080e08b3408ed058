package telcotest_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/telcotest"
)

// The failures a client of the real service meets from the web server in
// front of it: an HTML page, an empty body, a 503 with Retry-After. None
// acts on the request.
func TestFaultBody_OnTheWire(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name        string
		fault       telcotest.Fault
		status      int
		contentType string
		body        string // a substring of the body; "" for an empty one
		retryAfter  string
	}{
		{"html 500", telcotest.Fault{Kind: telcotest.FaultStatus, Body: telcotest.FaultBodyHTML}, 500,
			"text/html", "<h1>500 Internal Server Error</h1>", ""},
		{"html 502", telcotest.Fault{Kind: telcotest.FaultStatus, Status: 502, Body: telcotest.FaultBodyHTML}, 502,
			"text/html", "<title>502 Bad Gateway</title>", ""},
		{"empty 500", telcotest.Fault{Kind: telcotest.FaultStatus, Status: 500, Body: telcotest.FaultBodyEmpty}, 500, "", "", ""},
		{"html 503 with Retry-After", telcotest.Fault{Kind: telcotest.FaultStatus, Status: 503, RetryAfter: "7",
			Body: telcotest.FaultBodyHTML}, 503, "text/html", "503 Service Unavailable", "7"},
		{"empty 503 with Retry-After", telcotest.Fault{Kind: telcotest.FaultStatus, Status: 503, RetryAfter: "3",
			Body: telcotest.FaultBodyEmpty}, 503, "", "", "3"},
		{"service envelope by default", telcotest.Fault{Kind: telcotest.FaultStatus, Status: 503}, 503,
			"application/json", "INJECTED_FAULT", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := newServer(t)
			srv.Inject(1, tc.fault)
			resp, body, err := rawSend(t, srv, "x")
			require.NoError(t, err)
			assert.Equal(t, tc.status, resp.StatusCode)
			assert.Equal(t, tc.retryAfter, resp.Header.Get("Retry-After"))
			if tc.body == "" {
				assert.Empty(t, body)
				assert.Equal(t, "0", resp.Header.Get("Content-Length"))
				assert.Empty(t, resp.Header.Get("Content-Type"), "an empty answer names no type")
			} else {
				assert.Contains(t, string(body), tc.body)
				assert.True(t, strings.HasPrefix(resp.Header.Get("Content-Type"), tc.contentType), resp.Header.Get("Content-Type"))
			}
			assert.Empty(t, srv.Messages(srv.PropertySid), "a status fault never acts")
		})
	}
}

// The SDK reports each of them as an *APIError with the status: the HTML
// page kept in Body, the Retry-After read, a send left in doubt.
func TestFaultBody_SDKReportsTheStatus(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client(telco.WithRetryPolicy(telco.RetryPolicy{MaxRetries: 0}))
	ctx := testCtx(t)
	var ae *telco.APIError

	srv.Inject(1, telcotest.Fault{Kind: telcotest.FaultStatus, Body: telcotest.FaultBodyHTML, Op: "Properties.Get"})
	_, err := c.Properties.Get(ctx, srv.PropertySid)
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, 500, ae.StatusCode)
	assert.Contains(t, string(ae.Body), "<html>", "the page is kept for the reader")
	assert.Empty(t, ae.Code)

	srv.Inject(1, telcotest.Fault{Kind: telcotest.FaultStatus, Body: telcotest.FaultBodyEmpty, Op: "Properties.Get"})
	_, err = c.Properties.Get(ctx, srv.PropertySid)
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, 500, ae.StatusCode)
	assert.Empty(t, ae.Body)

	srv.Inject(1, telcotest.Fault{Kind: telcotest.FaultStatus, Status: 503, RetryAfter: "2", Body: telcotest.FaultBodyHTML, Op: "Messages.Send"})
	_, err = c.Messages.Send(ctx, srv.PropertySid, &telco.SendMessageParams{To: "+61400000001", Text: "hi"})
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, 503, ae.StatusCode)
	assert.Equal(t, 2*time.Second, ae.RetryAfter)
	assert.True(t, errors.Is(err, telco.ErrMaybeSent), "a 503 from a proxy may come after the service acted")
	assert.Empty(t, srv.Messages(srv.PropertySid))
}

func TestFaultBody_String(t *testing.T) {
	t.Parallel()
	for b, want := range map[telcotest.FaultBody]string{
		telcotest.FaultBodyService: "service", telcotest.FaultBodyHTML: "html", telcotest.FaultBodyEmpty: "empty",
		telcotest.FaultBody(9): "FaultBody(9)",
	} {
		assert.Equal(t, want, b.String())
	}
	assert.Equal(t, "none", telcotest.FaultKind(0).String(), "the zero Kind, as the admin API names it")
}
