// Send-sms sends one SMS and follows it until it is delivered.
//
//	go run ./examples/send-sms
//
// Without TELCO_ACCOUNT_SID and TELCO_TOKEN it runs against telcotest, the
// in-memory fake of the service, so nothing leaves your machine. With them
// it sends for real, from the project TELCO_PROPERTY_SID, to the number
// given with -to (required then, so that nothing is sent by accident):
//
//	TELCO_PROPERTY_SID=PR... go run ./examples/send-sms -to +61400000000 -text "Hello"
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

// config is what the example needs: the fake or the service, the project
// and the message.
type config struct {
	live           bool // credentials set: telco.NewClientFromEnv, else the fake
	propertySid    string
	from, to, text string
	poll           time.Duration // how often to read the message back
}

// envConfig reads the example's own variable and whether credentials are
// set; the client reads the rest itself.
func envConfig(getenv func(string) string) config {
	return config{live: getenv(telco.EnvAccountSid) != "" || getenv(telco.EnvToken) != "",
		propertySid: getenv("TELCO_PROPERTY_SID"), poll: 2 * time.Second}
}

func main() {
	cfg := envConfig(os.Getenv)
	flag.StringVar(&cfg.to, "to", "", "recipient, E.164 (required with credentials)")
	flag.StringVar(&cfg.from, "from", "", "sender: E.164 or an alphanumeric ID; empty for a leased sender")
	flag.StringVar(&cfg.text, "text", "Hello from telco-go", "message text")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
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
		if cfg.to == "" {
			cfg.to = "+61400000000"
		}
		cfg.poll = telcotest.SubmitDelay / 2
	} else {
		if cfg.to == "" || cfg.propertySid == "" {
			return errors.New("with credentials, set -to and TELCO_PROPERTY_SID")
		}
		var err error
		if client, err = telco.NewClientFromEnv(); err != nil {
			return err
		}
		fmt.Fprintf(out, "Using the service at %s\n", client.BaseURL())
	}

	seg := telco.Segments(cfg.text)
	fmt.Fprintf(out, "%q: %d segment(s), %s\n", cfg.text, seg.Segments, seg.Encoding)
	msg, err := client.Messages.Send(ctx, cfg.propertySid, &telco.SendMessageParams{
		From: cfg.from, To: cfg.to, Text: cfg.text, ExternalID: fmt.Sprintf("send-sms-%d", time.Now().Unix()),
	})
	var verr *telco.ValidationError
	switch {
	case errors.As(err, &verr):
		return fmt.Errorf("not sent, fix the input: %w", err)
	case errors.Is(err, telco.ErrMaybeSent):
		// The request may have reached the service: do not send again
		// blindly; look the message up by its ExternalId with Find.
		return fmt.Errorf("maybe sent, check before retrying: %w", err)
	case err != nil:
		return err
	}
	fmt.Fprintf(out, "sent %s from %s to %s: %s\n", msg.MessageSid, msg.From, msg.To, msg.Status)

	// Follow the message until its status stops changing.
	for msg.Status == telco.MessageProcessing || (msg.Status == telco.MessageSubmitted && msg.DeliveryReceipt) {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(cfg.poll):
		}
		prev := msg.Status
		if msg, err = client.Messages.Get(ctx, msg.MessageSid); err != nil {
			return err
		}
		if msg.Status != prev {
			fmt.Fprintf(out, "now %s\n", msg.Status)
		}
	}
	if msg.Status == telco.MessageFailed {
		return fmt.Errorf("message %s failed: %s", msg.MessageSid, msg.ErrorCode)
	}
	return nil
}
