// Call-tracking follows a project's tracked calls as they are written and
// prints each one: the service's Token cursor, through telco.CallFeed,
// asks each time only for the calls written since the previous answer.
//
//	go run ./examples/call-tracking
//
// Without TELCO_ACCOUNT_SID and TELCO_TOKEN it runs against telcotest, the
// in-memory fake of the service: two calls are there when it starts and
// three more arrive while it follows. With them it follows the calls of
// TELCO_PROPERTY_SID (or of the first project) for TELCO_FOLLOW_FOR
// (default one minute), asking every TELCO_POLL_INTERVAL (default 15s),
// and prints the Token to resume from; give it back in TELCO_CALLS_TOKEN
// to go on where it stopped. It only reads.
//
// telco.NewClientFromEnv builds the client from TELCO_ACCOUNT_SID and
// TELCO_TOKEN, and TELCO_BASE_URL when set: exported by the README's
// `telco mock` recipe, it follows the mock instead of the real service.
// TELCO_ALLOW_INSECURE_HTTP=1 lets that be plain http to a host name other
// than localhost, as in a CI network; never with real credentials.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"time"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/telcotest"
)

// config is what the example needs: the fake or the service, the project,
// where to start, and how long and how often to ask.
type config struct {
	live                bool // credentials set: telco.NewClientFromEnv, else the fake
	propertySid         string
	startToken          string
	followFor, interval time.Duration
}

// envConfig reads the example's own variables and whether credentials are
// set; the client reads the rest itself.
func envConfig(getenv func(string) string) config {
	cfg := config{live: getenv(telco.EnvAccountSid) != "" || getenv(telco.EnvToken) != "",
		propertySid: getenv("TELCO_PROPERTY_SID"), startToken: getenv("TELCO_CALLS_TOKEN"),
		followFor: time.Minute, interval: 15 * time.Second}
	if d, err := time.ParseDuration(getenv("TELCO_FOLLOW_FOR")); err == nil && d > 0 {
		cfg.followFor = d
	}
	if d, err := time.ParseDuration(getenv("TELCO_POLL_INTERVAL")); err == nil && d > 0 {
		cfg.interval = d
	}
	return cfg
}

func main() {
	if err := run(context.Background(), os.Stdout, envConfig(os.Getenv)); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, out io.Writer, cfg config) error {
	var client *telco.Client
	stopAfter := 0 // calls to see before stopping; 0: follow for cfg.followFor
	if !cfg.live {
		srv := telcotest.NewServer()
		defer srv.Close()
		fmt.Fprintf(out, "No credentials: following the fake service at %s\n", srv.URL)
		client, cfg.propertySid = srv.Client(), srv.PropertySid
		cfg.interval, stopAfter = 20*time.Millisecond, 5
		seed(ctx, srv)
	} else {
		var err error
		if client, err = telco.NewClientFromEnv(); err != nil {
			return err
		}
		fmt.Fprintf(out, "Following the service at %s for %s\n", client.BaseURL(), cfg.followFor)
		if cfg.propertySid == "" {
			for p, err := range client.Properties.ListAll(ctx, nil) {
				if err != nil {
					return err
				}
				cfg.propertySid = p.PropertySid
				break
			}
		}
		if cfg.propertySid == "" {
			return errors.New("the account has no project")
		}
	}

	ctx, cancel := context.WithTimeout(ctx, cfg.followFor)
	defer cancel()
	// Without a saved Token the first answer holds every call the filters
	// match (here, the last day's); each later one only the new calls.
	feed := telco.NewCallFeed(client.Calls.ListByProperty, cfg.propertySid,
		&telco.ListCallsParams{Token: cfg.startToken, DateFrom: time.Now().Add(-24 * time.Hour)})
	seen := 0
	for call, err := range feed.Follow(ctx, cfg.interval) {
		if err != nil {
			return err
		}
		fmt.Fprintln(out, describe(call))
		if seen++; seen == stopAfter {
			break
		}
	}
	fmt.Fprintf(out, "%d call(s); resume with TELCO_CALLS_TOKEN=%s\n", seen, feed.Token())
	return nil
}

// describe is one call on one line: when, how it ended, who called which
// number, and the campaign that brought the caller.
func describe(c telco.Call) string {
	when := c.DateStart.Time().Local().Format("2006-01-02 15:04:05")
	source := "no attribution"
	if c.AttributionSource != "" {
		source = c.AttributionSource + "/" + c.AttributionMedium + "/" + c.AttributionCampaign
	}
	return fmt.Sprintf("%s  %-8s %4ds  %s -> %s  (%s)", when, c.Disposition, c.Duration, c.From, c.To, source)
}

// seed gives the fake two calls before the example starts and three that
// arrive while it follows, as a tracking number's callers would.
func seed(ctx context.Context, srv *telcotest.Server) {
	call := func(i int, d telco.CallDisposition, secs int, source string) telco.Call {
		return telco.Call{From: fmt.Sprintf("+6141234500%d", i), To: "61299990000", Endpoint: "61400000000",
			Disposition: d, Duration: secs, AttributionSource: source, AttributionMedium: "cpc",
			AttributionCampaign: "spring-sale"}
	}
	srv.AddCall(srv.PropertySid, call(1, telco.CallAnswered, 184, "google"))
	srv.AddCall(srv.PropertySid, call(2, telco.CallNoAnswer, 0, "bing"))
	go func() {
		for i, d := range []telco.CallDisposition{telco.CallAnswered, telco.CallBusy, telco.CallIVR} {
			select {
			case <-ctx.Done():
				return
			case <-time.After(50 * time.Millisecond):
			}
			srv.AddCall(srv.PropertySid, call(3+i, d, 30*i, "google"))
		}
	}()
}
