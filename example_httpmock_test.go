package telco_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"

	"github.com/jarcoal/httpmock"

	"github.com/telcosdk/telco"
)

// newMockedClient returns a client whose requests go to an httpmock
// transport instead of the network, with retries off so that a test sees
// each scripted answer once. In a test, call it from the test function and
// assert on transport.GetCallCountInfo() afterwards.
func newMockedClient() (*telco.Client, *httpmock.MockTransport) {
	transport := httpmock.NewMockTransport()
	client, err := telco.NewClient("ACXQNPRSVWTQFBJKLHOAZQWESDFGHJKL", "token",
		telco.WithBaseURL("https://api.telco.test"), // any host: nothing leaves the process
		telco.WithHTTPClient(&http.Client{Transport: transport}),
		// Retries off: an unmatched request fails at once instead of being
		// retried for about 2 s, and each scripted answer is used once.
		telco.WithRetryPolicy(telco.RetryPolicy{MaxRetries: 0}),
	)
	if err != nil {
		log.Fatal(err)
	}
	return client, transport
}

// Scripting exact answers with httpmock suits tests of how code handles a
// particular response, such as an error the fake service would not give.
func Example_httpmock() {
	client, transport := newMockedClient()
	const prop = "PRWLSPKGUXMQZMZAJQRCNHTOYEDBVFAS"

	transport.RegisterResponder(http.MethodGet, "https://api.telco.test/v2/Properties/"+prop,
		httpmock.NewStringResponder(http.StatusOK, `{"Property":{"PropertySid":"`+prop+`","Name":"Sydney office","TimeZone":"AUS Eastern Standard Time"}}`))
	transport.RegisterResponder(http.MethodPatch, "https://api.telco.test/v2/Properties/"+prop,
		httpmock.NewStringResponder(http.StatusForbidden, `{"ErrorCode":"FORBIDDEN","Message":"The project is locked"}`))

	p, err := client.Properties.Get(context.Background(), prop)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(p.Name, "|", p.TimeZone)

	err = client.Properties.Update(context.Background(), prop, &telco.UpdatePropertyParams{Name: telco.Ptr("Sydney")})
	var apiErr *telco.APIError
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.StatusCode, apiErr.Code, apiErr.Message)
	}
	fmt.Println(transport.GetTotalCallCount(), "requests")
	// Output:
	// Sydney office | AUS Eastern Standard Time
	// 403 FORBIDDEN The project is locked
	// 2 requests
}

// httpmock's usual pattern needs nothing from the SDK: httpmock.Activate
// replaces http.DefaultTransport, and a Client built without
// WithHTTPClient sends through the replacement, so nothing reaches the
// real host.
func Example_httpmockActivate() {
	httpmock.Activate()
	defer httpmock.DeactivateAndReset()
	const prop = "PRWLSPKGUXMQZMZAJQRCNHTOYEDBVFAS"
	httpmock.RegisterResponder(http.MethodGet, telco.DefaultBaseURL+"/v2/Properties/"+prop,
		httpmock.NewStringResponder(http.StatusOK, `{"Property":{"PropertySid":"`+prop+`","Name":"Sydney office"}}`))

	client, err := telco.NewClient("ACXQNPRSVWTQFBJKLHOAZQWESDFGHJKL", "token")
	if err != nil {
		log.Fatal(err)
	}
	p, err := client.Properties.Get(context.Background(), prop)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(p.Name, "|", httpmock.GetTotalCallCount(), "request")
	// Output:
	// Sydney office | 1 request
}
