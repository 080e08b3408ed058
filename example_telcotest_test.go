package telco_test

import (
	"context"
	"fmt"
	"log"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/telcotest"
)

// notifyShipped is application code: it depends on the small MessagesAPI
// interface, so a test can hand it any implementation.
func notifyShipped(ctx context.Context, messages telco.MessagesAPI, propertySid, to, order string) (string, error) {
	msg, err := messages.Send(ctx, propertySid, &telco.SendMessageParams{
		From:       "Acme",
		To:         to,
		Text:       "Order " + order + " has shipped",
		ExternalID: order,
	})
	if err != nil {
		return "", fmt.Errorf("notify %s: %w", order, err)
	}
	return msg.MessageSid, nil
}

// In a test, start a telcotest server, hand its client to the code under
// test, and read back what the fake service recorded:
//
//	func TestNotifyShipped(t *testing.T) {
//		srv := telcotest.NewServer()
//		t.Cleanup(srv.Close)
//		sid, err := notifyShipped(ctx, srv.Client().Messages, srv.PropertySid, "+61499999999", "A-1042")
//		...
//	}
//
// The client's validation and the fake both apply the service's rules, so
// a bad number fails as it would in production. A message's Status moves
// on with time, so tests should not expect a particular one straight after
// sending.
func Example_telcotest() {
	srv := telcotest.NewServer()
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()

	sid, err := notifyShipped(ctx, client.Messages, srv.PropertySid, "+61499999999", "A-1042")
	if err != nil {
		log.Fatal(err)
	}
	msg, err := client.Messages.Get(ctx, sid)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(msg.To, "|", msg.Text, "|", msg.ExternalID)

	_, err = notifyShipped(ctx, client.Messages, srv.PropertySid, "0499 999 999", "A-1043")
	fmt.Println(telco.ErrorCode(err))
	// Output:
	// +61499999999 | Order A-1042 has shipped | A-1042
	// INVALID_PHONENUMBER_FORMAT
}
