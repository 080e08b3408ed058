package telco_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"time"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/telcotest"
)

// fakeService stands in for the service in these examples: it answers every
// request with body. Real code passes no WithBaseURL.
func fakeService(body string) (*httptest.Server, *telco.Client) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body))
	}))
	client, err := telco.NewClient("ACXQNPRSVWTQFBJKLHOAZQWESDFGHJKL", "token", telco.WithBaseURL(srv.URL))
	if err != nil {
		log.Fatal(err)
	}
	return srv, client
}

func ExampleNewClient() {
	// Real code reads the credentials from its configuration, e.g.
	// os.Getenv("TELCO_ACCOUNT_SID") and os.Getenv("TELCO_TOKEN").
	client, err := telco.NewClient("ACXQNPRSVWTQFBJKLHOAZQWESDFGHJKL", "token",
		telco.WithUserAgent("acme-crm/2.1"),
		telco.WithRetryPolicy(telco.RetryPolicy{MaxRetries: 5, MinWait: 500 * time.Millisecond, MaxWait: 30 * time.Second}),
		telco.WithAttemptTimeout(20*time.Second),
		telco.WithLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))),
	)
	if err != nil {
		log.Fatal(err) // an empty SID or token, or a bad base URL
	}
	fmt.Println(client.BaseURL())

	// The token never travels in the clear: plain http is for loopback only.
	_, err = telco.NewClient("ACXQNPRSVWTQFBJKLHOAZQWESDFGHJKL", "token", telco.WithBaseURL("http://api.example.com"))
	fmt.Println(err != nil)
	// Output:
	// https://api.fonedynamics.com
	// true
}

func ExampleMessagesService_Send() {
	srv, client := fakeService(`{"Message":{"MessageSid":"MGTBUEHNLFOOHNSIOCSAQRRUKLMEZSLE","To":"+61499999999","Status":"Processing","NumSegments":1}}`)
	defer srv.Close()

	msg, err := client.Messages.Send(context.Background(), "PRWLSPKGUXMQZMZAJQRCNHTOYEDBVFAS", &telco.SendMessageParams{
		From:       "Acme",
		To:         "+61499999999",
		Text:       "Your order has shipped",
		ExternalID: "order-1042",
	})
	switch {
	case errors.Is(err, telco.ErrMaybeSent):
		// Not retried: look for ExternalID order-1042 before sending again.
		log.Fatal(err)
	case err != nil:
		log.Fatal(err)
	}
	fmt.Println(msg.MessageSid, msg.Status, msg.NumSegments)
	// Output: MGTBUEHNLFOOHNSIOCSAQRRUKLMEZSLE Processing 1
}

func ExampleMessagesService_Send_validation() {
	client, _ := telco.NewClient("ACXQNPRSVWTQFBJKLHOAZQWESDFGHJKL", "token")
	_, err := client.Messages.Send(context.Background(), "PRWLSPKGUXMQZMZAJQRCNHTOYEDBVFAS", &telco.SendMessageParams{
		From: "Acme Pty Ltd", // 12 characters: one too many for a sender ID
		To:   "0499999999",   // not E.164
		Text: "Hello",
	})
	var verr *telco.ValidationError
	if errors.As(err, &verr) {
		for _, f := range verr.Fields {
			fmt.Println(f.FieldName, f.Code)
		}
	}
	fmt.Println(telco.ErrorCode(err))
	// Output:
	// To INVALID_PHONENUMBER_FORMAT
	// From PARAMETER_INVALID
	// INVALID_PHONENUMBER_FORMAT
}

func ExampleMessagesService_SendBatch() {
	srv, client := fakeService(`[{"MessageSid":"MG1"},{"ErrorCode":"FORBIDDEN","Message":"Recipient opted out"}]`)
	defer srv.Close()

	results, err := client.Messages.SendBatch(context.Background(), "PRWLSPKGUXMQZMZAJQRCNHTOYEDBVFAS", []telco.SendMessageParams{
		{To: "+61499999991", Text: "Hi Ann"},
		{To: "+61499999992", Text: "Hi Bob"},
		{To: "not a number", Text: "Hi Cat"}, // rejected before sending
	})
	if err != nil {
		log.Fatal(err) // the batch as a whole failed
	}
	for i, r := range results {
		if r.Err != nil {
			fmt.Println(i, "rejected:", r.Err.Code)
			continue
		}
		fmt.Println(i, "accepted:", r.Message.MessageSid)
	}
	// Output:
	// 0 accepted: MG1
	// 1 rejected: FORBIDDEN
	// 2 rejected: INVALID_PHONENUMBER_FORMAT
}

func ExampleMessagesService_FindAll() {
	srv, client := fakeService(`{"Messages":[{"MessageSid":"MG1","Direction":"Receive","Text":"YES"},{"MessageSid":"MG2","Direction":"Receive","Text":"STOP"}]}`)
	defer srv.Close()

	p := &telco.FindMessagesParams{
		DateFrom:  time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC),
		DateTo:    time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC),
		Direction: telco.DirectionReceive,
	}
	for m, err := range client.Messages.FindAll(context.Background(), "PRWLSPKGUXMQZMZAJQRCNHTOYEDBVFAS", p) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(m.MessageSid, m.Text)
	}
	// Output:
	// MG1 YES
	// MG2 STOP
}

func ExamplePropertiesService_Update() {
	// This stand-in for the service shows what the client sends.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		fmt.Println(r.Method, r.URL.Path, r.Header.Get("Content-Type"))
		fmt.Println(string(body))
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	client, err := telco.NewClient("ACXQNPRSVWTQFBJKLHOAZQWESDFGHJKL", "token", telco.WithBaseURL(srv.URL))
	if err != nil {
		log.Fatal(err)
	}

	// Only the fields set are sent, as a JSON merge patch: the project's
	// other settings stay as they are.
	tz, _ := telco.WindowsZone("Australia/Perth")
	err = client.Properties.Update(context.Background(), "PRWLSPKGUXMQZMZAJQRCNHTOYEDBVFAS", &telco.UpdatePropertyParams{
		SmsEnabled: telco.Ptr(true),
		TimeZone:   &tz,
	})
	fmt.Println(err)
	// Output:
	// PATCH /v2/Properties/PRWLSPKGUXMQZMZAJQRCNHTOYEDBVFAS application/merge-patch+json
	// {"TimeZone":"W. Australia Standard Time","SmsEnabled":true}
	// <nil>
}

func ExampleSegments() {
	for _, text := range []string{"Your code is 4711", "Price: 5€ {promo}", "Grüße 👋"} {
		s := telco.Segments(text)
		fmt.Println(s.Encoding, s.Units, s.Segments, s.Remaining)
	}
	// Output:
	// GSM-7 17 1 143
	// GSM-7 20 1 140
	// UCS-2 8 1 62
}

// NewClientFromEnv builds a Client from TELCO_ACCOUNT_SID, TELCO_TOKEN,
// TELCO_BASE_URL and TELCO_ALLOW_INSECURE_HTTP: with the variables `telco
// mock --env` prints, the same program talks to the mock.
func ExampleNewClientFromEnv() {
	srv := telcotest.NewServer()
	defer srv.Close()
	for k, v := range map[string]string{"TELCO_ACCOUNT_SID": srv.AccountSid, "TELCO_TOKEN": srv.Token, "TELCO_BASE_URL": srv.URL} {
		os.Setenv(k, v)
		defer os.Unsetenv(k)
	}

	client, err := telco.NewClientFromEnv()
	if err != nil {
		log.Fatal(err)
	}
	p, err := client.Properties.Get(context.Background(), srv.PropertySid)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(client.BaseURL() == srv.URL, p.SmsEnabled)
	// Output: true true
}

// NormalizeNumber turns numbers as users hold them into the E.164 form
// operations take; ValidLookupNumber filters a list before a lookup.
func ExampleNormalizeNumber() {
	for _, n := range []string{"0412 345 678", "61 2 9999 9999", "(02) 9999-9999", "not a number"} {
		e164, err := telco.NormalizeNumber(n)
		fmt.Println(e164, err != nil)
	}
	fromLookup, _ := telco.NormalizeNumber(int64(61412345678)) // NumberDetail.E164
	fmt.Println(fromLookup, telco.ValidLookupNumber("0412345678"), telco.ValidLookupNumber("04-1234"))
	// Output:
	// +61412345678 false
	// +61299999999 false
	// +61299999999 false
	//  true
	// +61412345678 true false
}
