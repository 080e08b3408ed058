// Otel traces the SDK's requests with OpenTelemetry: one client span per
// attempt, retries included, named after the SDK operation ("telco
// Properties.Get"), each a child of the caller's span.
//
//	cd examples/otel && go run .
//
// It lives in a module of its own, so that the SDK's module graph gains
// nothing from OpenTelemetry: the SDK offers two seams, WithTransport (wrap
// its tuned transport) and CallInfo (which operation and attempt a request
// is), and otelhttp does the rest.
//
// Without credentials it runs against telcotest, the in-memory fake of the
// service, whose first answer is a 503 so that a retry shows; with
// TELCO_ACCOUNT_SID and TELCO_TOKEN set it builds its client with
// telco.NewClientFromEnv (TELCO_BASE_URL and TELCO_ALLOW_INSECURE_HTTP
// too) and reads one project (TELCO_PROPERTY_SID). It prints the spans it
// recorded. In a service, give withTracing the TracerProvider you export
// with (OTLP, say) instead of the in-memory recorder used here.
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"time"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/telcotest"
)

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := run(ctx, os.Stdout, os.Getenv); err != nil {
		log.Fatal(err)
	}
}

// withTracing makes every attempt of a Client a client span of tp; give it
// to telco.NewClient or telco.NewClientFromEnv.
func withTracing(tp trace.TracerProvider) telco.Option {
	return telco.WithTransport(func(next http.RoundTripper) http.RoundTripper {
		return otelhttp.NewTransport(attemptAttributes{next},
			otelhttp.WithTracerProvider(tp),
			otelhttp.WithSpanNameFormatter(spanName))
	})
}

// spanName names a span after the SDK operation: "telco Messages.Send".
func spanName(_ string, r *http.Request) string {
	if info, ok := telco.CallInfo(r.Context()); ok {
		return "telco " + info.Op
	}
	return "telco " + r.Method // not an SDK call; does not happen with withTracing
}

// attemptAttributes sits inside otelhttp's transport, where the request's
// context holds the span otelhttp started, and records on it which
// operation and attempt the request is.
type attemptAttributes struct{ next http.RoundTripper }

func (t attemptAttributes) RoundTrip(r *http.Request) (*http.Response, error) {
	if info, ok := telco.CallInfo(r.Context()); ok {
		trace.SpanFromContext(r.Context()).SetAttributes(
			attribute.String("telco.operation", info.Op),
			attribute.Int("telco.attempt", info.Attempt),
			attribute.Bool("telco.idempotent", info.Idempotent),
		)
	}
	return t.next.RoundTrip(r)
}

// run makes one traced "checkout" with two SDK calls and prints its spans.
func run(ctx context.Context, w io.Writer, getenv func(string) string) error {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	defer func() { _ = tp.Shutdown(context.Background()) }()

	if err := checkout(ctx, tp, getenv); err != nil {
		return err
	}
	for _, s := range rec.Ended() {
		fmt.Fprintf(w, "%-22s span=%s parent=%s", s.Name(), s.SpanContext().SpanID(), s.Parent().SpanID())
		for _, a := range s.Attributes() {
			switch a.Key {
			case "telco.attempt", "http.response.status_code":
				fmt.Fprintf(w, " %s=%s", a.Key, a.Value.String())
			}
		}
		fmt.Fprintln(w)
	}
	return nil
}

// checkout is the caller's own work: a span of its own, with the SDK's
// spans beneath it.
func checkout(ctx context.Context, tp trace.TracerProvider, getenv func(string) string) error {
	ctx, span := tp.Tracer("example/checkout").Start(ctx, "checkout")
	defer span.End()

	prop := getenv("TELCO_PROPERTY_SID")
	var client *telco.Client
	var fake *telcotest.Server
	if getenv(telco.EnvAccountSid) == "" && getenv(telco.EnvToken) == "" {
		fake = telcotest.NewServer()
		defer fake.Close()
		// The first attempt fails, so a retry shows; the fake's Client
		// retries after milliseconds.
		fake.FailNext(1, http.StatusServiceUnavailable)
		client, prop = fake.Client(withTracing(tp)), fake.PropertySid
	} else if prop == "" {
		return fmt.Errorf("set TELCO_PROPERTY_SID with the real service's credentials")
	} else {
		var err error
		if client, err = telco.NewClientFromEnv(withTracing(tp)); err != nil {
			return err
		}
	}
	p, err := client.Properties.Get(ctx, prop)
	if err != nil {
		return err
	}
	if fake == nil {
		return nil // only reads on the real service
	}
	_, err = client.Messages.Send(ctx, prop, &telco.SendMessageParams{
		From: "Acme", To: "+61499999999", Text: "Your order from " + p.Name + " has shipped",
	})
	return err
}
