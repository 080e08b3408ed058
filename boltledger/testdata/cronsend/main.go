// Cronsend is the program of boltledger's TestProgramRunTwiceSendsOnce: a
// job that sends one SMS each time it runs, as cron would run it, once per
// ledger file. It reads the service from the environment
// (telco.NewClientFromEnv), the project from TELCO_PROPERTY_SID, and the
// ledger file from its argument, and prints the message's SID.
//
//	cronsend /var/lib/myjob/sends.ledger
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/boltledger"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: cronsend LEDGER")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "cronsend:", err)
		os.Exit(1)
	}
}

func run(path string) error {
	ledger, err := boltledger.Open(path) // waits for another run that holds it
	if err != nil {
		return err
	}
	defer ledger.Close()
	client, err := telco.NewClientFromEnv(telco.WithLedger(ledger))
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	msg, err := client.Messages.SendOnce(ctx, os.Getenv("TELCO_PROPERTY_SID"), &telco.SendMessageParams{
		From: "Acme", To: "+61400000001", Text: "Your order has shipped",
		ExternalID: "order-1001", // the same on every run: sent once per ledger file
	})
	if err != nil {
		return err
	}
	fmt.Println(msg.MessageSid)
	return nil
}
