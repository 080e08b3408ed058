package telco_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/telcotest"
)

// SendAll sends a campaign in chunks, several in flight, and hands back
// each message's result in input order. Run it again and nothing is sent
// twice: every message is answered from the Client's ledger.
func ExampleMessagesService_SendAll() {
	srv := telcotest.NewServer()
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()

	customers := []string{"+61400000001", "+61400000002", "+61400000003", "+61400000004", "+61400000005"}
	campaign := func(yield func(telco.SendMessageParams) bool) {
		for i, to := range customers {
			m := telco.SendMessageParams{From: "Acme", To: to, Text: "Spring sale: 20% off", ExternalID: fmt.Sprint("spring-", i)}
			if !yield(m) {
				return
			}
		}
	}
	for range 2 {
		sent := 0
		for res, err := range client.Messages.SendAll(ctx, srv.PropertySid, campaign, &telco.SendAllOptions{ChunkSize: 2, Parallel: 4}) {
			switch {
			case err != nil:
				log.Fatal(err) // its chunk failed: err says whether it may have been sent
			case res.Err != nil:
				fmt.Println("refused:", res.Err.Code)
			default:
				sent++
			}
		}
		fmt.Println(sent, "sent;", len(srv.Messages(srv.PropertySid)), "stored")
	}
	// Output:
	// 5 sent; 5 stored
	// 5 sent; 5 stored
}

// A new machine or container starts with an empty ledger: fill it from the
// service's history first, and it sends nothing an earlier one sent.
func ExampleMessagesService_FillLedger() {
	srv := telcotest.NewServer()
	defer srv.Close()
	ctx := context.Background()
	start := time.Now().Add(-time.Minute)
	reminder := &telco.SendMessageParams{From: "Acme", To: "+61400000001", Text: "See you at 3pm", ExternalID: "appt-77"}

	earlier := srv.Client(telco.WithLedger(telco.NewMemoryLedger()))
	if _, err := earlier.Messages.SendOnce(ctx, srv.PropertySid, reminder); err != nil {
		log.Fatal(err)
	}

	fresh := srv.Client(telco.WithLedger(telco.NewMemoryLedger()))
	n, err := fresh.Messages.FillLedger(ctx, srv.PropertySid, start, time.Now().Add(time.Second))
	if err != nil {
		log.Fatal(err)
	}
	if _, err := fresh.Messages.SendOnce(ctx, srv.PropertySid, reminder); err != nil {
		log.Fatal(err)
	}
	fmt.Println(n, "recorded;", len(srv.Messages(srv.PropertySid)), "stored")
	// Output:
	// 1 recorded; 1 stored
}

// WithParallelPages keeps several page requests in flight when a long
// history is read; the messages come in the same order as one page after
// another.
func ExampleWithParallelPages() {
	srv := telcotest.NewServer()
	defer srv.Close()
	ctx := context.Background()
	start := time.Now().Add(-time.Minute)
	batch := make([]telco.SendMessageParams, 450)
	for i := range batch {
		batch[i] = telco.SendMessageParams{From: "Acme", To: "+61400000001", Text: "hello", ExternalID: fmt.Sprint("h-", i)}
	}
	if _, err := srv.Client().Messages.SendBatch(ctx, srv.PropertySid, batch); err != nil {
		log.Fatal(err)
	}

	client := srv.Client(telco.WithParallelPages(8))
	n := 0
	for m, err := range client.Messages.FindAll(ctx, srv.PropertySid, &telco.FindMessagesParams{
		DateFrom: start, DateTo: time.Now().Add(time.Minute), Direction: telco.DirectionTransmit}) {
		if err != nil {
			log.Fatal(err)
		}
		if m.ExternalID != fmt.Sprint("h-", n) {
			log.Fatalf("message %d out of order: %s", n, m.ExternalID)
		}
		n++
	}
	fmt.Println(n, "messages, in order")
	// Output:
	// 450 messages, in order
}
