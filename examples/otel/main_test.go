package main

import (
	"context"
	"os"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/telcotest"
)

func noEnv(string) string { return "" }

// Against the fake, whose first answer is a 503: the read takes two
// attempts, the send one; each attempt is one client span named after the
// operation, a child of the caller's span, carrying its attempt number.
func TestOneSpanPerAttemptUnderTheCallersSpan(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer func() { _ = tp.Shutdown(context.Background()) }()

	if err := checkout(context.Background(), tp, noEnv); err != nil {
		t.Fatal(err)
	}
	spans := exp.GetSpans()
	var parent tracetest.SpanStub
	var sdk []tracetest.SpanStub
	for _, s := range spans {
		if s.Name == "checkout" {
			parent = s
		} else {
			sdk = append(sdk, s)
		}
	}
	if !parent.SpanContext.IsValid() {
		t.Fatalf("no checkout span among %d", len(spans))
	}

	type want struct {
		name    string
		attempt int64
		status  int64
	}
	wants := []want{
		{"telco Properties.Get", 1, 503},
		{"telco Properties.Get", 2, 200},
		{"telco Messages.Send", 1, 200},
	}
	if len(sdk) != len(wants) {
		t.Fatalf("got %d SDK spans, want %d: %v", len(sdk), len(wants), names(sdk))
	}
	for i, w := range wants {
		s := sdk[i]
		if s.Name != w.name {
			t.Errorf("span %d: name %q, want %q", i, s.Name, w.name)
		}
		if s.SpanKind != trace.SpanKindClient {
			t.Errorf("span %d: kind %v, want client", i, s.SpanKind)
		}
		if s.Parent.SpanID() != parent.SpanContext.SpanID() || s.SpanContext.TraceID() != parent.SpanContext.TraceID() {
			t.Errorf("span %d (%s): parent %s in trace %s, want the checkout span %s in %s", i, s.Name,
				s.Parent.SpanID(), s.SpanContext.TraceID(), parent.SpanContext.SpanID(), parent.SpanContext.TraceID())
		}
		if got := attr(s.Attributes, "telco.attempt"); got.AsInt64() != w.attempt {
			t.Errorf("span %d (%s): telco.attempt %v, want %d", i, s.Name, got.String(), w.attempt)
		}
		if got := attr(s.Attributes, "http.response.status_code"); got.AsInt64() != w.status {
			t.Errorf("span %d (%s): status %v, want %d", i, s.Name, got.String(), w.status)
		}
	}
	if got := attr(sdk[2].Attributes, "telco.idempotent"); got.AsBool() {
		t.Error("a send is not idempotent")
	}
}

// The program prints the spans it recorded.
func TestRunPrintsTheSpans(t *testing.T) {
	var out strings.Builder
	if err := run(context.Background(), &out, noEnv); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"telco Properties.Get", "telco.attempt=2", "telco Messages.Send", "checkout"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("output lacks %q:\n%s", s, out.String())
		}
	}
}

// With credentials the client comes from telco.NewClientFromEnv, traced
// the same way, and only reads: here TELCO_BASE_URL points it at a fake.
func TestWithCredentialsFromTheEnvironment(t *testing.T) {
	fake := telcotest.NewServer()
	defer fake.Close()
	// Every variable checkout reads, so that the shell's own cannot leak in.
	t.Setenv(telco.EnvAccountSid, fake.AccountSid)
	t.Setenv(telco.EnvToken, fake.Token)
	t.Setenv(telco.EnvBaseURL, fake.URL)
	t.Setenv(telco.EnvAllowInsecureHTTP, "")
	t.Setenv("TELCO_PROPERTY_SID", "")

	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer func() { _ = tp.Shutdown(context.Background()) }()
	err := checkout(context.Background(), tp, os.Getenv)
	if err == nil || !strings.Contains(err.Error(), "TELCO_PROPERTY_SID") {
		t.Fatalf("without TELCO_PROPERTY_SID: got %v, want an error naming it", err)
	}
	if n := fake.Requests(); n != 0 {
		t.Fatalf("%d request(s) reached the service without TELCO_PROPERTY_SID", n)
	}

	exp.Reset()
	t.Setenv("TELCO_PROPERTY_SID", fake.PropertySid)
	if err := checkout(context.Background(), tp, os.Getenv); err != nil {
		t.Fatal(err)
	}
	var sdk []tracetest.SpanStub
	for _, s := range exp.GetSpans() {
		if s.Name != "checkout" {
			sdk = append(sdk, s)
		}
	}
	if len(sdk) != 1 || sdk[0].Name != "telco Properties.Get" {
		t.Fatalf("SDK spans %v, want one telco Properties.Get", names(sdk))
	}
	if got := attr(sdk[0].Attributes, "http.response.status_code"); got.AsInt64() != 200 {
		t.Errorf("status %v, want 200", got.String())
	}
	if msgs := fake.Messages(fake.PropertySid); len(msgs) != 0 {
		t.Errorf("%d message(s) sent; with credentials the example only reads", len(msgs))
	}
}

func attr(kvs []attribute.KeyValue, key attribute.Key) attribute.Value {
	for _, kv := range kvs {
		if kv.Key == key {
			return kv.Value
		}
	}
	return attribute.Value{}
}

func names(spans []tracetest.SpanStub) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.Name)
	}
	return out
}
