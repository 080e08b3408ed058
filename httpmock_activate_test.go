package telco_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"sync/atomic"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/telcosdk/telco"
)

// The pattern of httpmock's own README, as a user writes it against a
// Client built with the defaults: httpmock.Activate replaces
// http.DefaultTransport, and the Client, given no WithHTTPClient, sends
// through it. Not parallel: Activate changes a global.
func TestHTTPMockActivateInterceptsADefaultClient(t *testing.T) {
	httpmock.Activate()
	defer httpmock.DeactivateAndReset()

	const prop = "PRWLSPKGUXMQZMZAJQRCNHTOYEDBVFAS"
	page, err := os.ReadFile("testdata/get_property.json")
	require.NoError(t, err)
	httpmock.RegisterResponder("GET", "https://api.fonedynamics.com/v2/Properties/"+prop,
		httpmock.NewBytesResponder(200, page))
	httpmock.RegisterResponder("POST", "https://api.fonedynamics.com/v2/Properties/"+prop+"/Messages",
		httpmock.NewStringResponder(200, `{"Message":{"MessageSid":"MGXQNPRSVWTQFBJKLHOAZQWESDFGHJK","Status":"Processing"}}`))

	client, err := telco.NewClient("ACXQNPRSVWTQFBJKLHOAZQWESDFGHJKL", "token")
	require.NoError(t, err)

	p, err := client.Properties.Get(context.Background(), prop)
	require.NoError(t, err)
	assert.Equal(t, "Acme Marketing", p.Name)

	msg, err := client.Messages.Send(context.Background(), prop, &telco.SendMessageParams{
		From: "Acme", To: "+61499999999", Text: "Your order has shipped",
	})
	require.NoError(t, err)
	assert.Equal(t, "MGXQNPRSVWTQFBJKLHOAZQWESDFGHJK", msg.MessageSid)

	assert.Equal(t, 2, httpmock.GetTotalCallCount())
	assert.Equal(t, 1, httpmock.GetCallCountInfo()["POST https://api.fonedynamics.com/v2/Properties/"+prop+"/Messages"])
}

// A request nobody registered fails inside the process: with httpmock
// active nothing reaches the network, the real host included.
func TestHTTPMockActivateLetsNothingThrough(t *testing.T) {
	httpmock.Activate()
	defer httpmock.DeactivateAndReset()

	client, err := telco.NewClient("ACXQNPRSVWTQFBJKLHOAZQWESDFGHJKL", "token",
		telco.WithRetryPolicy(telco.RetryPolicy{MaxRetries: 0}))
	require.NoError(t, err)
	_, err = client.Messages.Send(context.Background(), "PRWLSPKGUXMQZMZAJQRCNHTOYEDBVFAS", &telco.SendMessageParams{
		From: "Acme", To: "+61499999999", Text: "must not leave the process",
	})
	require.Error(t, err)
	assert.ErrorIs(t, err, httpmock.NoResponderFound, "the mock answered, not the network")
}

// A Client built before httpmock.Activate is intercepted too: the choice
// is made per request. After DeactivateAndReset it reaches its base URL
// again, here a loopback server.
func TestHTTPMockActivateAfterTheClientWasBuilt(t *testing.T) {
	var real atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		real.Add(1)
		_, _ = w.Write([]byte(`{"Property":{"PropertySid":"PRWLSPKGUXMQZMZAJQRCNHTOYEDBVFAS","Name":"real"}}`))
	}))
	defer srv.Close()
	client, err := telco.NewClient("ACXQNPRSVWTQFBJKLHOAZQWESDFGHJKL", "token", telco.WithBaseURL(srv.URL))
	require.NoError(t, err)

	httpmock.Activate()
	httpmock.RegisterResponder("GET", srv.URL+"/v2/Properties/PRWLSPKGUXMQZMZAJQRCNHTOYEDBVFAS",
		httpmock.NewStringResponder(200, `{"Property":{"PropertySid":"PRWLSPKGUXMQZMZAJQRCNHTOYEDBVFAS","Name":"mocked"}}`))
	p, err := client.Properties.Get(context.Background(), "PRWLSPKGUXMQZMZAJQRCNHTOYEDBVFAS")
	httpmock.DeactivateAndReset()
	require.NoError(t, err)
	assert.Equal(t, "mocked", p.Name)
	assert.Zero(t, real.Load())

	p, err = client.Properties.Get(context.Background(), "PRWLSPKGUXMQZMZAJQRCNHTOYEDBVFAS")
	require.NoError(t, err)
	assert.Equal(t, "real", p.Name)
	assert.EqualValues(t, 1, real.Load())
}
