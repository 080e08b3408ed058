// Batch sends several SMS in one request, reports each one's outcome, and
// reconciles by ExternalId when the request may or may not have reached
// the service.
//
//	go run ./examples/batch
//
// Without TELCO_ACCOUNT_SID and TELCO_TOKEN it runs against telcotest, the
// in-memory fake of the service. With them it sends for real, from the
// project TELCO_PROPERTY_SID, to the numbers given with -to (required then):
//
//	TELCO_PROPERTY_SID=PR... go run ./examples/batch -to +61400000000,+61400000001
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
	"strings"
	"time"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/telcotest"
)

// config is what the example needs: the fake or the service, the project
// and the recipients.
type config struct {
	live        bool // credentials set: telco.NewClientFromEnv, else the fake
	propertySid string
	to          []string
}

// envConfig reads the example's own variable and whether credentials are
// set; the client reads the rest itself.
func envConfig(getenv func(string) string) config {
	return config{live: getenv(telco.EnvAccountSid) != "" || getenv(telco.EnvToken) != "",
		propertySid: getenv("TELCO_PROPERTY_SID")}
}

func main() {
	cfg := envConfig(os.Getenv)
	to := flag.String("to", "", "comma-separated E.164 recipients (required with credentials)")
	flag.Parse()
	if *to != "" {
		cfg.to = strings.Split(*to, ",")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := run(ctx, os.Stdout, cfg); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, out io.Writer, cfg config) error {
	var client *telco.Client
	if !cfg.live {
		srv := telcotest.NewServer()
		defer srv.Close()
		fmt.Fprintf(out, "No credentials: sending on the fake service at %s\n", srv.URL)
		client, cfg.propertySid = srv.Client(), srv.PropertySid
		if len(cfg.to) == 0 {
			// The last one is not E.164: the SDK rejects it without sending it.
			cfg.to = []string{"+61400000001", "+61400000002", "+61400000003", "0400 000 004"}
		}
	} else {
		if len(cfg.to) == 0 || cfg.propertySid == "" {
			return errors.New("with credentials, set -to and TELCO_PROPERTY_SID")
		}
		var err error
		if client, err = telco.NewClientFromEnv(); err != nil {
			return err
		}
		fmt.Fprintf(out, "Using the service at %s\n", client.BaseURL())
	}

	// An ExternalId per message lets us find each one again.
	stamp := time.Now().UTC().Format("20060102T150405")
	msgs := make([]telco.SendMessageParams, len(cfg.to))
	for i, to := range cfg.to {
		msgs[i] = telco.SendMessageParams{From: "Acme", To: strings.TrimSpace(to),
			Text: fmt.Sprintf("Your order #%d has shipped", 1000+i), ExternalID: fmt.Sprintf("batch-%s-%d", stamp, i)}
	}
	start := time.Now().Add(-time.Minute)
	results, err := client.Messages.SendBatch(ctx, cfg.propertySid, msgs)
	if errors.Is(err, telco.ErrMaybeSent) {
		// The batch may or may not have been stored: sending it again could
		// send every message twice. Find what arrived, send only the rest.
		fmt.Fprintf(out, "the batch may have been sent (%v); reconciling by ExternalId\n", err)
		results, err = reconcile(ctx, out, client, cfg.propertySid, msgs, start)
	}
	if err != nil {
		return err
	}
	for i, r := range results {
		if r.Err != nil {
			field := ""
			if len(r.Err.Fields) > 0 {
				field = r.Err.Fields[0].FieldName
			}
			fmt.Fprintf(out, "%d %s rejected: %s (%s)\n", i, msgs[i].To, r.Err.Code, field)
			continue
		}
		fmt.Fprintf(out, "%d %s accepted: %s %s\n", i, r.Message.To, r.Message.MessageSid, r.Message.Status)
	}
	return nil
}

// reconcile looks for each message by its ExternalId among the messages
// sent since start and sends again, as a batch, only those not found.
func reconcile(ctx context.Context, out io.Writer, c *telco.Client, propertySid string,
	msgs []telco.SendMessageParams, start time.Time) ([]telco.BatchResult, error) {
	found := map[string]telco.Message{}
	for m, err := range c.Messages.FindAll(ctx, propertySid, &telco.FindMessagesParams{
		DateFrom: start, DateTo: time.Now().Add(time.Minute), Direction: telco.DirectionTransmit}) {
		if err != nil {
			return nil, err
		}
		found[m.ExternalID] = m
	}
	results := make([]telco.BatchResult, len(msgs))
	var missing []telco.SendMessageParams
	var at []int
	for i, p := range msgs {
		if m, ok := found[p.ExternalID]; ok {
			results[i] = telco.BatchResult{Message: &m}
			continue
		}
		missing, at = append(missing, p), append(at, i)
	}
	fmt.Fprintf(out, "%d already sent, sending %d again\n", len(msgs)-len(missing), len(missing))
	if len(missing) == 0 {
		return results, nil
	}
	again, err := c.Messages.SendBatch(ctx, propertySid, missing)
	if err != nil {
		return nil, err
	}
	for j, r := range again {
		results[at[j]] = r
	}
	return results, nil
}
