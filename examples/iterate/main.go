// Iterate walks listings: lazily with the All iterators, which fetch a page
// only when the loop needs it, and by hand, page by page.
//
//	go run ./examples/iterate
//
// Without TELCO_ACCOUNT_SID and TELCO_TOKEN it runs against telcotest, the
// in-memory fake of the service, seeded with a few dozen messages. With
// them it only reads: the account's projects and the last day's messages
// of TELCO_PROPERTY_SID (or of the first project).
//
// telco.NewClientFromEnv builds the client from TELCO_ACCOUNT_SID and
// TELCO_TOKEN, and TELCO_BASE_URL when set: exported by the README's
// `telco mock` recipe, it reads the mock instead of the real service.
// TELCO_ALLOW_INSECURE_HTTP=1 lets that be plain http to a host name other
// than localhost, as in a CI network; never with real credentials.
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"time"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/telcotest"
)

// config is what the example needs: the fake or the service, and the
// project to read.
type config struct {
	live        bool // credentials set: telco.NewClientFromEnv, else the fake
	propertySid string
	pageSize    int
}

// envConfig reads the example's own variable and whether credentials are
// set; the client reads the rest itself.
func envConfig(getenv func(string) string) config {
	return config{live: getenv(telco.EnvAccountSid) != "" || getenv(telco.EnvToken) != "",
		propertySid: getenv("TELCO_PROPERTY_SID"), pageSize: 20}
}

func main() {
	cfg := envConfig(os.Getenv)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := run(ctx, os.Stdout, cfg); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, out io.Writer, cfg config) error {
	var client *telco.Client
	if !cfg.live {
		clock := telcotest.NewClock(time.Time{})
		srv := telcotest.NewServer(telcotest.WithClock(clock))
		defer srv.Close()
		fmt.Fprintf(out, "No credentials: reading the fake service at %s\n", srv.URL)
		client, cfg.propertySid = srv.Client(), srv.PropertySid
		if err := seed(ctx, client, srv); err != nil {
			return err
		}
		clock.Advance(5 * time.Second) // let the fake's messages move on
	} else {
		var err error
		if client, err = telco.NewClientFromEnv(); err != nil {
			return err
		}
		fmt.Fprintf(out, "Using the service at %s\n", client.BaseURL())
	}

	// Every project of the account, whatever the number of pages.
	projects := 0
	for p, err := range client.Properties.ListAll(ctx, nil) {
		if err != nil {
			return err
		}
		if cfg.propertySid == "" {
			cfg.propertySid = p.PropertySid
		}
		projects++
	}
	fmt.Fprintf(out, "%d project(s)\n", projects)
	if cfg.propertySid == "" {
		return nil
	}

	// Every message of the last day, cfg.pageSize per request. Breaking out
	// of the loop stops the requests.
	day := &telco.FindMessagesParams{DateFrom: time.Now().Add(-24 * time.Hour), DateTo: time.Now().Add(time.Minute),
		ListParams: telco.ListParams{Count: cfg.pageSize}}
	byStatus := map[telco.MessageStatus]int{}
	total := 0
	for m, err := range client.Messages.FindAll(ctx, cfg.propertySid, day) {
		if err != nil {
			return err
		}
		byStatus[m.Status]++
		total++
	}
	fmt.Fprintf(out, "%d message(s) in the last day:", total)
	for _, s := range []telco.MessageStatus{telco.MessageProcessing, telco.MessageSubmitted, telco.MessageDelivered,
		telco.MessageFailed, telco.MessageReceived} {
		fmt.Fprintf(out, " %s=%d", s, byStatus[s])
	}
	fmt.Fprintln(out)

	// The same by hand: Skip moves the window; a short page is the last.
	p := *day
	p.Direction = telco.DirectionReceive
	for page := 1; ; page++ {
		res, err := client.Messages.Find(ctx, cfg.propertySid, &p)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "received, page %d: %d message(s)\n", page, len(res.Items))
		if len(res.Items) < cfg.pageSize {
			return nil
		}
		p.Skip += len(res.Items)
	}
}

// seed gives the fake something to list: 30 sent messages (3 to a number
// that fails, 6 without a delivery receipt) and 25 received ones.
func seed(ctx context.Context, c *telco.Client, srv *telcotest.Server) error {
	srv.FailMessagesTo("+61400000013")
	for i := range 30 {
		_, err := c.Messages.Send(ctx, srv.PropertySid, &telco.SendMessageParams{
			From: "Acme", To: fmt.Sprintf("+614000000%02d", 10+i%10), Text: fmt.Sprintf("message %d", i),
			DeliveryReceipt: telco.Ptr(i%5 != 0)})
		if err != nil {
			return err
		}
	}
	for i := range 25 {
		srv.Receive(srv.PropertySid, fmt.Sprintf("+614000000%02d", 10+i%10), "+61255550000", fmt.Sprintf("reply %d", i))
	}
	return nil
}
