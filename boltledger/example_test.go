package boltledger_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/boltledger"
	"github.com/telcosdk/telco/telcotest"
)

// A job that runs twice (cron, a retry, a restart) with one ledger file
// sends its message once: the second run finds the ExternalId sent in
// the file and returns the message without a request.
func Example() {
	srv := telcotest.NewServer() // the fake service; use telco.NewClient for the real one
	defer srv.Close()
	dir, err := os.MkdirTemp("", "ledger")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "sends.ledger") // the same path on every run

	var first string
	for run := 1; run <= 2; run++ {
		ledger, err := boltledger.Open(path)
		if err != nil {
			log.Fatal(err)
		}
		client := srv.Client(telco.WithLedger(ledger))
		msg, err := client.Messages.SendOnce(context.Background(), srv.PropertySid, &telco.SendMessageParams{
			From: "Acme", To: "+61400000001", Text: "Your order has shipped",
			ExternalID: "order-1001",
		})
		ledger.Close() // hold the file only while sending
		if err != nil {
			log.Fatal(err)
		}
		if run == 1 {
			first = msg.MessageSid
		}
		fmt.Printf("run %d: %s, the first run's message: %v\n", run, msg.ExternalID, msg.MessageSid == first)
	}
	fmt.Println("messages stored:", len(srv.Messages(srv.PropertySid)))
	// Output:
	// run 1: order-1001, the first run's message: true
	// run 2: order-1001, the first run's message: true
	// messages stored: 1
}
