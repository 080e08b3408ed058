// Downstream-testing shows how to test your own code that sends SMS with
// telco-go, without the real service: Notifier below is "your code", and
// its tests run it against telcotest (notifier_telcotest_test.go: a
// stateful fake that behaves like the service), against httpmock
// (notifier_httpmock_test.go: canned answers, exact requests) and against
// telcotest.MessagesStub (notifier_stub_test.go: a stub of Send alone,
// enough for code that calls SendOnce).
//
//	go run ./examples/downstream-testing
//	go test ./examples/downstream-testing
//
// Without TELCO_ACCOUNT_SID and TELCO_TOKEN, main runs Notifier on the
// fake. With them it sends for real, from the project TELCO_PROPERTY_SID,
// to the number given with -to (required then, so that nothing is sent by
// accident):
//
//	TELCO_PROPERTY_SID=PR... go run ./examples/downstream-testing -to +61400000000
//
// telco.NewClientFromEnv builds the client from TELCO_ACCOUNT_SID and
// TELCO_TOKEN, and TELCO_BASE_URL when set: exported by the README's
// `telco mock` recipe, it sends to the mock instead of the real service.
// TELCO_ALLOW_INSECURE_HTTP=1 lets that be plain http to a host name other
// than localhost, as in a CI network; never with real credentials.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"time"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/telcotest"
)

// Notifier tells customers by SMS that their order has shipped. It depends
// on telco.MessagesAPI, not on a concrete client, so any implementation
// can stand in; the tests use the real client against fakes, and a stub.
type Notifier struct {
	Messages    telco.MessagesAPI
	PropertySid string
	From        string // sender; empty for a leased one
}

// OrderShipped sends the notice for an order, at most once: the order
// number is the message's ExternalId, and SendOnce looks a send that may
// have reached the service up before sending it again, and answers a
// second call for the same order from its ledger without sending. It
// returns the MessageSid. An error matching telco.ErrMaybeSent means the
// notice may or may not have gone out: calling again later settles it.
func (n *Notifier) OrderShipped(ctx context.Context, phone, order string) (string, error) {
	m, err := n.Messages.SendOnce(ctx, n.PropertySid, &telco.SendMessageParams{From: n.From, To: phone,
		Text: "Your order " + order + " has shipped.", ExternalID: "ship-" + order})
	if err != nil {
		return "", fmt.Errorf("order %s: %w", order, err)
	}
	return m.MessageSid, nil
}

// Delivered reports whether the message reached the phone; an error when
// it failed.
func (n *Notifier) Delivered(ctx context.Context, messageSid string) (bool, error) {
	m, err := n.Messages.Get(ctx, messageSid)
	if err != nil {
		return false, err
	}
	if m.Status == telco.MessageFailed {
		return false, fmt.Errorf("message %s failed: %s", messageSid, m.ErrorCode)
	}
	return m.Status == telco.MessageDelivered, nil
}

func main() {
	to := flag.String("to", "", "recipient, E.164 (required with credentials)")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := run(ctx, os.Stdout, os.Getenv, *to)
	if err != nil {
		log.Fatal(err)
	}
}

// run sends one notice: on the fake without credentials, for real with
// them, at TELCO_BASE_URL when set (`telco mock`, say). With credentials it
// sends only to a recipient given explicitly: a default number would send
// a real SMS to a stranger. getenv tells whether credentials are set and
// gives TELCO_PROPERTY_SID; the client reads the rest itself.
func run(ctx context.Context, out io.Writer, getenv func(string) string, to string) error {
	propertySid := getenv("TELCO_PROPERTY_SID")
	var client *telco.Client
	if getenv(telco.EnvAccountSid) == "" && getenv(telco.EnvToken) == "" {
		srv := telcotest.NewServer()
		defer srv.Close()
		client, propertySid = srv.Client(), srv.PropertySid
		if to == "" {
			to = "+61400000000"
		}
		fmt.Fprintf(out, "No credentials: notifying on the fake service at %s\n", srv.URL)
	} else {
		if to == "" || propertySid == "" {
			return errors.New("with credentials, set -to and TELCO_PROPERTY_SID")
		}
		var err error
		if client, err = telco.NewClientFromEnv(); err != nil {
			return err
		}
		fmt.Fprintf(out, "Using the service at %s\n", client.BaseURL())
	}
	n := &Notifier{Messages: client.Messages, PropertySid: propertySid, From: "Acme"}
	msgSid, err := n.OrderShipped(ctx, to, "A-1001")
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "notice for order A-1001 sent as %s\n", msgSid)
	return nil
}
