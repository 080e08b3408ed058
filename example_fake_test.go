package telco_test

import (
	"context"
	"fmt"

	"github.com/telcosdk/telco"
)

// recordingMessages is a hand-written fake of MessagesAPI for unit tests.
// Embedding the interface satisfies it without writing every method; a
// method the fake does not define panics if called, which shows up at once
// in a test.
type recordingMessages struct {
	telco.MessagesAPI
	sent []telco.SendMessageParams
}

func (f *recordingMessages) Send(_ context.Context, _ string, p *telco.SendMessageParams) (*telco.Message, error) {
	f.sent = append(f.sent, *p)
	return &telco.Message{MessageSid: fmt.Sprintf("MG%d", len(f.sent)), To: p.To, Text: p.Text}, nil
}

// remindAll is application code that needs only MessagesAPI, not a Client.
func remindAll(ctx context.Context, messages telco.MessagesAPI, propertySid string, to []string) error {
	for _, n := range to {
		if _, err := messages.Send(ctx, propertySid, &telco.SendMessageParams{To: n, Text: "Your appointment is tomorrow"}); err != nil {
			return err
		}
	}
	return nil
}

// Code that depends on a service's interface (MessagesAPI here; every
// service has one) takes *telco.MessagesService in production and a fake
// in tests.
func ExampleMessagesAPI() {
	fake := &recordingMessages{}
	if err := remindAll(context.Background(), fake, "PRWLSPKGUXMQZMZAJQRCNHTOYEDBVFAS", []string{"+61499999991", "+61499999992"}); err != nil {
		fmt.Println(err)
	}
	for _, p := range fake.sent {
		fmt.Println(p.To, p.Text)
	}

	// In production the same function takes the real service.
	client, _ := telco.NewClient("ACXQNPRSVWTQFBJKLHOAZQWESDFGHJKL", "token")
	var _ telco.MessagesAPI = client.Messages
	// Output:
	// +61499999991 Your appointment is tomorrow
	// +61499999992 Your appointment is tomorrow
}
