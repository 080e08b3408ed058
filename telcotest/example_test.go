package telcotest_test

import (
	"context"
	"testing"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/telcotest"
)

// In a test, NewTestServer replaces NewServer and the deferred Close: the
// server lives as long as the test. This example only compiles, as it
// needs the *testing.T of a real test.
func ExampleNewTestServer() {
	var t *testing.T // the test's own t, in a real test

	srv := telcotest.NewTestServer(t) // closed by t.Cleanup
	client := srv.Client()
	msg, err := client.Messages.Send(context.Background(), srv.PropertySid, &telco.SendMessageParams{
		From: "Acme", To: "+61499999999", Text: "Your order has shipped",
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := srv.Messages(srv.PropertySid); len(got) != 1 || got[0].MessageSid != msg.MessageSid {
		t.Errorf("the fake recorded %v, want the one message sent", got)
	}
}
