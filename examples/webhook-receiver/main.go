// Webhook-receiver serves the SDK's webhook handler and logs every callback
// the service sends it: delivery receipts, SMS received on a number,
// responses to leased messages and porting status updates.
//
//	go run ./examples/webhook-receiver [-addr 127.0.0.1:8081]
//
// Callbacks for every kind go to /webhooks; responses to leased messages,
// which look like inbound SMS on the wire, have their own URL,
// /webhooks/lease. The service does not sign callbacks: set WEBHOOK_SECRET
// and put ?secret=... in the URLs you configure, and the receiver answers
// 401 to any call without it, before reading its body. To rotate the
// secret, set the new one in WEBHOOK_SECRET and the old one in
// WEBHOOK_SECRET_PREVIOUS, reconfigure the URLs, then drop the old one.
//
// The server bounds every phase of a request (headers, body, answer, idle
// keep-alive), so that senders that trickle bytes or never read cannot
// hold its connections.
//
// With no TELCO_ACCOUNT_SID/TELCO_TOKEN it also starts telcotest, the
// in-memory fake of the service, sends an SMS asking for a delivery receipt
// and injects an inbound SMS on a configured number, so that you see
// events at once. The fake runs on its own clock, which the demo moves on
// so that the delivery receipt comes without waiting.
//
// Try it by hand while it runs:
//
//	curl -i -X POST http://127.0.0.1:8081/webhooks -H 'Content-Type: application/json' \
//	  -d '{"MessageSid":"MGTBUEHNLFOOHNSIOCSAQRRUKLMEZSLE","Direction":"Transmit","Status":"Delivered","To":"+61499999999"}'
//	curl -i 'http://127.0.0.1:8081/webhooks?MessageSid=MGQWERTYUIOPASDFGHJKLZXCVBNMQWER&Direction=Receive&From=%2B61411111111&Text=STOP'
//	curl -i -X POST http://127.0.0.1:8081/webhooks -d 'PortingNo=PN-42&Status=Completed'
//
// Each answers 204 No Content.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/telcotest"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8081", "address to listen on")
	flag.Parse()
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *addr, os.Getenv, logger); err != nil {
		logger.Error("webhook-receiver", "error", err)
		os.Exit(1)
	}
}

// run serves the receiver on addr until ctx ends, with the demo on the
// fake service when env has no credentials.
func run(ctx context.Context, addr string, env func(string) string, logger *slog.Logger) error {
	events := make(chan telco.WebhookKind, 16)
	handler := newHandler(logger, events, env("WEBHOOK_SECRET"), env("WEBHOOK_SECRET_PREVIOUS"))

	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := newServer(handler)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	base := "http://" + ln.Addr().String()
	logger.Info("receiving callbacks", "url", base+"/webhooks", "lease_url", base+"/webhooks/lease")

	if env("TELCO_ACCOUNT_SID") == "" || env("TELCO_TOKEN") == "" {
		if err := demo(ctx, base, env("WEBHOOK_SECRET"), logger, events); err != nil {
			_ = srv.Close()
			return err
		}
	} else {
		go func() { // nothing to show here: drain the notifications
			for range events {
			}
		}()
		logger.Info("configure these URLs on your numbers, sends and porting requests")
	}

	select {
	case <-ctx.Done():
	case err := <-served:
		return err
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return srv.Shutdown(shutdown)
}

// newServer serves handler with a limit on every phase of a request: a
// callback is a few KiB, answered at once, so a sender needing more time
// is broken or hostile. Without ReadTimeout and WriteTimeout a sender
// trickling its body, or never reading the answer, would keep a
// connection and a goroutine for as long as it liked.
func newServer(handler http.Handler) *http.Server {
	return &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       15 * time.Second, // the handler's own body deadline (10 s) comes first
		WriteTimeout:      30 * time.Second, // includes your functions' time
		IdleTimeout:       60 * time.Second,
		MaxHeaderBytes:    32 << 10,
	}
}

// newHandler routes the callbacks and logs each event. events, when not
// nil, is told of each event's kind without blocking. With any secret set,
// a callback must carry one of them as ?secret=...
func newHandler(logger *slog.Logger, events chan<- telco.WebhookKind, secrets ...string) http.Handler {
	notify := func(k telco.WebhookKind) {
		select {
		case events <- k:
		default:
		}
	}
	onMessage := func(ctx context.Context, ev *telco.MessageEvent) error {
		m := ev.Message
		logger.InfoContext(ctx, ev.Kind.String(), "message_sid", m.MessageSid, "status", m.Status,
			"from", m.From, "to", m.To, "text", m.Text, "error_code", m.ErrorCode, "external_id", m.ExternalID)
		notify(ev.Kind)
		return nil // returning an error answers 500
	}
	onError := func(r *http.Request, status int, err error) {
		logger.Warn("callback refused", "method", r.Method, "path", r.URL.Path, "status", status, "error", err)
	}
	all := &telco.WebhookHandler{
		DeliveryReceipt: onMessage,
		InboundMessage:  onMessage,
		PortingUpdate: func(ctx context.Context, ev *telco.PortingEvent) error {
			p := ev.PortingRequest
			logger.InfoContext(ctx, telco.WebhookPortingUpdate.String(), "porting_no", p.PortingNo, "status", p.Status,
				"numbers", len(p.PortingNumbers))
			notify(telco.WebhookPortingUpdate)
			return nil
		},
		OnError: onError,
		// A callback delivered again runs onMessage once, remembered by
		// this process; with several replicas, set Once to a
		// telco.CallbackOnce on a store they share.
	}
	lease := telco.LeaseResponseHandler(onMessage)
	lease.OnError = onError
	if strings.Join(secrets, "") != "" {
		// Checked before the body is read; the secret is removed from
		// the URL that the events and the logs see.
		all.Authorize = telco.WebhookQuerySecret("secret", secrets...)
		lease.Authorize = all.Authorize
	}

	mux := http.NewServeMux()
	mux.Handle("/webhooks", all)
	mux.Handle("/webhooks/lease", lease)
	return mux
}

// demo makes the fake service produce a delivery receipt and an inbound
// SMS for this receiver.
func demo(ctx context.Context, base, secret string, logger *slog.Logger, events <-chan telco.WebhookKind) error {
	clock := telcotest.NewClock(time.Time{})
	fake := telcotest.NewServer(telcotest.WithClock(clock))
	context.AfterFunc(ctx, fake.Close)
	client := fake.Client()
	hook := base + "/webhooks"
	if secret != "" {
		hook += "?secret=" + url.QueryEscape(secret)
	}
	logger.Info("no TELCO_ACCOUNT_SID/TELCO_TOKEN: started the fake service", "url", fake.URL)

	msg, err := client.Messages.Send(ctx, fake.PropertySid, &telco.SendMessageParams{
		From: "Acme", To: "+61499999999", Text: "Your order has shipped", ExternalID: "order-1042",
		DeliveryReceipt: telco.Ptr(true), DeliveryReceiptWebhookURI: hook,
	})
	if err != nil {
		return err
	}
	logger.Info("sent an SMS asking for a delivery receipt", "message_sid", msg.MessageSid)
	// The fake submits a message SubmitDelay after it is sent and delivers
	// it DeliverDelay later, then calls the receipt webhook.
	clock.Advance(telcotest.SubmitDelay + telcotest.DeliverDelay)
	if err := await(ctx, events, telco.WebhookDeliveryReceipt); err != nil {
		return err
	}

	const number = "+61299990000"
	fake.AddNumber(fake.PropertySid, number)
	if _, err := client.Numbers.Configure(ctx, number, &telco.NumberConfigParams{WebhookURL: hook, WebhookMethod: "GET"}); err != nil {
		return err
	}
	in := fake.Receive(fake.PropertySid, "+61411111111", number, "STOP")
	logger.Info("injected an inbound SMS on a number configured with this receiver", "message_sid", in.MessageSid)
	return await(ctx, events, telco.WebhookInboundMessage)
}

// await waits for the fake's callback of kind.
func await(ctx context.Context, events <-chan telco.WebhookKind, kind telco.WebhookKind) error {
	timer := time.NewTimer(10 * time.Second)
	defer timer.Stop()
	for {
		select {
		case k := <-events:
			if k == kind {
				return nil
			}
		case <-ctx.Done():
			return ctx.Err()
		case <-timer.C:
			return fmt.Errorf("no %s callback from the fake within 10s", kind)
		}
	}
}
