package telco_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"

	"github.com/telcosdk/telco"
)

func ExampleWebhookHandler() {
	hooks := &telco.WebhookHandler{
		DeliveryReceipt: func(ctx context.Context, ev *telco.MessageEvent) error {
			fmt.Printf("%s: %s %s %s\n", ev.Kind, ev.Message.MessageSid, ev.Message.Status, ev.Message.ExternalID)
			return nil // 204; an error answers 500 and the service may call again
		},
		InboundMessage: func(ctx context.Context, ev *telco.MessageEvent) error {
			fmt.Printf("%s: %s from %s\n", ev.Kind, ev.Message.Text, ev.Message.From)
			return nil
		},
		PortingUpdate: func(ctx context.Context, ev *telco.PortingEvent) error {
			fmt.Println("porting", ev.PortingRequest.PortingNo, "is now", ev.PortingRequest.Status)
			return nil
		},
	}
	// Real code: http.Handle("/telco/callbacks", hooks); http.ListenAndServe(...).
	srv := httptest.NewServer(hooks)
	defer srv.Close()

	// What the service sends: a JSON POST (the default method) ...
	resp, err := http.Post(srv.URL, "application/json", strings.NewReader(
		`{"MessageSid":"MGTBUEHNLFOOHNSIOCSAQRRUKLMEZSLE","Direction":"Transmit","Status":"Delivered","ExternalId":"order-1042"}`))
	if err != nil {
		log.Fatal(err)
	}
	resp.Body.Close()
	fmt.Println(resp.StatusCode)

	// ... or a GET with the same fields in the query.
	q := url.Values{"MessageSid": {"MGQWERTYUIOPASDFGHJKLZXCVBNMQWER"}, "Direction": {"Receive"},
		"From": {"+61411111111"}, "Text": {"STOP"}, "Received": {"1763780100"}}
	if resp, err = http.Get(srv.URL + "?" + q.Encode()); err != nil {
		log.Fatal(err)
	}
	resp.Body.Close()

	if resp, err = http.Post(srv.URL, "application/json", strings.NewReader(`{"PortingNo":"PN-42","Status":"Completed"}`)); err != nil {
		log.Fatal(err)
	}
	resp.Body.Close()
	// Output:
	// delivery receipt: MGTBUEHNLFOOHNSIOCSAQRRUKLMEZSLE Delivered order-1042
	// 204
	// inbound message: STOP from +61411111111
	// porting PN-42 is now Completed
}

// A callback delivered twice (the sender did not get the first answer)
// runs the function once; both deliveries are answered 204.
func ExampleWebhookHandler_redelivery() {
	hooks := telco.InboundMessageHandler(func(ctx context.Context, ev *telco.MessageEvent) error {
		fmt.Println("auto-reply to", ev.Message.From) // e.g. client.Messages.Send(...)
		return nil
	})
	// Several replicas behind a load balancer: hooks.Once = a CallbackOnce
	// on a store they share. Replaying callbacks on purpose:
	// hooks.Once = telco.EveryDelivery.
	srv := httptest.NewServer(hooks)
	defer srv.Close()

	callback := `{"MessageSid":"MGQWERTYUIOPASDFGHJKLZXCVBNMQWER","Direction":"Receive","Status":"Received",` +
		`"From":"+61411111111","Text":"Hours?","Received":1763780100}`
	for range 2 {
		resp, err := http.Post(srv.URL, "application/json", strings.NewReader(callback))
		if err != nil {
			log.Fatal(err)
		}
		resp.Body.Close()
		fmt.Println(resp.StatusCode)
	}
	// Output:
	// auto-reply to +61411111111
	// 204
	// 204
}
