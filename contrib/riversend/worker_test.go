package riversend_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/telcotest"

	"github.com/telcosdk/telco/contrib/riversend"
)

// fakeSender answers SendOnce with err, or a message; it counts the
// calls.
type fakeSender struct {
	mu    sync.Mutex
	err   error
	sends int
}

func (f *fakeSender) SendOnce(_ context.Context, propertySid string, p *telco.SendMessageParams) (*telco.Message, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sends++
	if f.err != nil {
		return nil, f.err
	}
	return &telco.Message{MessageSid: "MG" + p.ExternalID, PropertySid: propertySid, ExternalID: p.ExternalID}, nil
}

func testWorker(t *testing.T, pool *pgxpool.Pool) {
	ctx := context.Background()
	// The fake sender's Client is never used to send, only for its ledger.
	ledgerClient, err := telco.NewClient("AC00000000000000000000000000000000", "unused-token",
		telco.WithBaseURL("http://127.0.0.1:1"), telco.WithLedger(riversend.NewLedger(pool)))
	if err != nil {
		t.Fatal(err)
	}
	newWorker := func(t *testing.T, s riversend.Sender) *riversend.Worker {
		t.Helper()
		w, err := riversend.NewWorker(riversend.WorkerConfig{Client: ledgerClient, Sender: s, RateLimitWait: 2 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	outcome := func(t *testing.T, id string) *riversend.Outcome {
		t.Helper()
		o, err := riversend.Lookup(ctx, pool, "PR1", id)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	isCancel := func(err error) bool { var c *river.JobCancelError; return errors.As(err, &c) }
	isSnooze := func(err error) (time.Duration, bool) {
		var s *river.JobSnoozeError
		if errors.As(err, &s) {
			return s.Duration, true
		}
		return 0, false
	}

	t.Run("sent: records the MessageSid", func(t *testing.T) {
		reset(t, pool)
		srv := telcotest.NewServer()
		defer srv.Close()
		c := srv.Client(telco.WithLedger(riversend.NewLedger(pool)))
		w, err := riversend.NewWorker(riversend.WorkerConfig{Client: c})
		if err != nil {
			t.Fatal(err)
		}
		a := msg("ok")
		a.PropertySid = srv.PropertySid
		if err := w.Work(ctx, job(a, 1)); err != nil {
			t.Fatalf("Work = %v, want nil", err)
		}
		ms := srv.Messages(srv.PropertySid)
		o, err := riversend.Lookup(ctx, pool, srv.PropertySid, "ok")
		if err != nil {
			t.Fatal(err)
		}
		if len(ms) != 1 || o.State != riversend.StateSent || o.MessageSid != ms[0].MessageSid || o.FinishedAt.IsZero() ||
			o.Attempts != 1 || o.LedgerState != telco.LedgerSent {
			t.Fatalf("outcome %+v, %d messages stored; want sent once, after one attempt", o, len(ms))
		}
		// Worked again (River redelivered it): answered from the ledger.
		if err := w.Work(ctx, job(a, 2)); err != nil {
			t.Fatalf("second Work = %v, want nil", err)
		}
		if n := len(srv.Messages(srv.PropertySid)); n != 1 || srv.Requests() != 1 {
			t.Fatalf("redelivered job: %d messages, %d requests; want 1 and 1", n, srv.Requests())
		}
	})

	t.Run("an ExternalId used for another message cancels the job", func(t *testing.T) {
		reset(t, pool)
		srv := telcotest.NewServer()
		defer srv.Close()
		c := srv.Client(telco.WithLedger(riversend.NewLedger(pool)))
		w, err := riversend.NewWorker(riversend.WorkerConfig{Client: c})
		if err != nil {
			t.Fatal(err)
		}
		a := msg("reused")
		a.PropertySid = srv.PropertySid
		if err := w.Work(ctx, job(a, 1)); err != nil {
			t.Fatal(err)
		}
		a.Text = "another message"
		if err := w.Work(ctx, job(a, 1)); !isCancel(err) || !errors.Is(err, telco.ErrExternalIDReused) {
			t.Fatalf("Work = %v, want the job cancelled with ErrExternalIDReused", err)
		}
		o, err := riversend.Lookup(ctx, pool, srv.PropertySid, "reused")
		if err != nil {
			t.Fatal(err)
		}
		if o.State != riversend.StateSent || len(srv.Messages(srv.PropertySid)) != 1 {
			t.Fatalf("outcome %+v: the first message's record must stay sent, and nothing more be sent", o)
		}
	})

	refusals := []struct {
		name, code string
		err        error
	}{
		{"validation error", telco.CodeInvalidPhoneNumberFormat, &telco.ValidationError{Op: "Messages.Send",
			Fields: []telco.FieldError{{Code: telco.CodeInvalidPhoneNumberFormat, FieldName: "To"}}}},
		{"400 refusal", telco.CodeParameterRequired, fmt.Errorf("wrapped: %w",
			&telco.APIError{StatusCode: 400, Code: telco.CodeParameterRequired, Message: "Text is required"})},
		{"403 forbidden", telco.CodeForbidden, &telco.APIError{StatusCode: 403, Code: telco.CodeForbidden}},
	}
	for _, tc := range refusals {
		t.Run("cancelled on "+tc.name, func(t *testing.T) {
			reset(t, pool)
			err := newWorker(t, &fakeSender{err: tc.err}).Work(ctx, job(msg("bad"), 1))
			if !isCancel(err) {
				t.Fatalf("Work = %v, want a river.JobCancel error", err)
			}
			if o := outcome(t, "bad"); o.State != riversend.StateRefused || o.ErrorCode != tc.code || o.ErrorMessage == "" {
				t.Fatalf("outcome %+v, want refused with %s", o, tc.code)
			}
		})
	}

	t.Run("snoozed on 429, attempt not used", func(t *testing.T) {
		reset(t, pool)
		err := newWorker(t, &fakeSender{err: &telco.APIError{StatusCode: 429}}).Work(ctx, job(msg("slow"), 1))
		d, ok := isSnooze(err)
		if !ok || d < 2*time.Second || d > 2*time.Second+time.Second/2 {
			t.Fatalf("Work = %v (snooze %v), want a snooze of 2s plus at most a quarter", err, d)
		}
		if isCancel(err) {
			t.Fatal("a 429 must not cancel the job")
		}
	})

	t.Run("snoozed on 429 for its Retry-After", func(t *testing.T) {
		reset(t, pool)
		err := newWorker(t, &fakeSender{err: &telco.APIError{StatusCode: 429, RetryAfter: 7 * time.Second}}).Work(ctx, job(msg("slow"), 1))
		d, ok := isSnooze(err)
		if !ok || d < 7*time.Second || d > 7*time.Second+7*time.Second/4 {
			t.Fatalf("Work = %v (snooze %v), want the service's 7s plus at most a quarter", err, d)
		}
	})

	retryable := []struct {
		name string
		err  error
	}{
		{"transport failure", errors.New("dial tcp 127.0.0.1:1: connection refused")},
		{"rounds of reconciliation ran out", fmt.Errorf("telco: Messages.SendOnce: ext x: %w", telco.ErrMaybeSent)},
		{"401", &telco.APIError{StatusCode: 401}},
		{"503", &telco.APIError{StatusCode: 503}},
		{"deadline", fmt.Errorf("attempt: %w", context.DeadlineExceeded)},
	}
	for _, tc := range retryable {
		t.Run("retried on "+tc.name, func(t *testing.T) {
			reset(t, pool)
			enqueue(t, pool, insertOnly(t, pool), msg("flaky"))
			err := newWorker(t, &fakeSender{err: tc.err}).Work(ctx, job(msg("flaky"), 2))
			if err == nil || isCancel(err) {
				t.Fatalf("Work = %v, want an error River retries", err)
			}
			if _, ok := isSnooze(err); ok {
				t.Fatalf("Work = %v, want no snooze", err)
			}
			if o := outcome(t, "flaky"); o.State != riversend.StateEnqueued {
				t.Fatalf("outcome %+v, want still enqueued while attempts remain", o)
			}
		})
	}

	t.Run("last attempt records the failure", func(t *testing.T) {
		reset(t, pool)
		enqueue(t, pool, insertOnly(t, pool), msg("dead"))
		j := job(msg("dead"), 5)
		err := newWorker(t, &fakeSender{err: fmt.Errorf("x: %w", telco.ErrMaybeSent)}).Work(ctx, j)
		if err == nil {
			t.Fatal("Work = nil, want the error")
		}
		if o := outcome(t, "dead"); o.State != riversend.StateFailed || !strings.Contains(o.ErrorMessage, "may have reached") {
			t.Fatalf("outcome %+v, want failed with the last error", o)
		}
	})

	t.Run("a verdict never hides a sent message", func(t *testing.T) {
		reset(t, pool)
		srv := telcotest.NewServer()
		defer srv.Close()
		a := msg("late")
		a.PropertySid = srv.PropertySid
		c := srv.Client(telco.WithLedger(riversend.NewLedger(pool)))
		if _, err := c.Messages.SendOnce(ctx, a.PropertySid, a.Params()); err != nil {
			t.Fatal(err)
		}
		j := job(a, 5)
		if err := newWorker(t, &fakeSender{err: errors.New("down")}).Work(ctx, j); err == nil {
			t.Fatal("Work = nil, want the error")
		}
		o, err := riversend.Lookup(ctx, pool, a.PropertySid, "late")
		if err != nil {
			t.Fatal(err)
		}
		if o.State != riversend.StateSent || o.MessageSid == "" {
			t.Fatalf("outcome %+v, want still sent", o)
		}
	})

	t.Run("NewWorker needs a Client on a Postgres ledger", func(t *testing.T) {
		if _, err := riversend.NewWorker(riversend.WorkerConfig{Sender: &fakeSender{}, DB: pool}); err == nil ||
			!strings.Contains(err.Error(), "telco.WithLedger(riversend.NewLedger(pool))") {
			t.Fatalf("NewWorker without a Client = %v, want an error saying how to build one", err)
		}
		local, err := telco.NewClient("AC00000000000000000000000000000000", "unused-token")
		if err != nil {
			t.Fatal(err)
		}
		_, err = riversend.NewWorker(riversend.WorkerConfig{Client: local, Sender: &fakeSender{}, DB: pool})
		if err == nil || !strings.Contains(err.Error(), "telco.WithLedger(riversend.NewLedger(pool))") {
			t.Fatalf("NewWorker with a Client on its memory ledger = %v, want an error saying how to build one", err)
		}
		if strings.Contains(err.Error(), "unused-token") {
			t.Fatalf("the error shows the token: %v", err)
		}
	})
}

// cutTransport cuts the ledger's database off once a send has been
// answered, for a while: SendOnce then cannot record the message it sent.
type cutTransport struct {
	base   http.RoundTripper
	cut    func()
	cutOff atomic.Bool
}

func (c *cutTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := c.base.RoundTrip(req)
	if err == nil && req.Method == http.MethodPost && c.cutOff.CompareAndSwap(false, true) {
		c.cut()
	}
	return resp, err
}

// TestWorkerRecordsASendTheSDKCouldNotRecord: the database goes away
// between a send's answer and SendOnce's write of it; the worker writes
// the outcome itself once it is back, rather than leave a claim that
// would have the message looked up later.
func TestWorkerRecordsASendTheSDKCouldNotRecord(t *testing.T) {
	dsn := pgtestStart(t)
	admin := migrated(t, dsn)
	ctx := context.Background()
	var down atomic.Bool
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnConfig.RuntimeParams["application_name"] = "cut-off"
	cfg.BeforeConnect = func(context.Context, *pgx.ConnConfig) error {
		if down.Load() {
			return errors.New("database unreachable")
		}
		return nil
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	srv := telcotest.NewServer()
	defer srv.Close()
	tr := &cutTransport{base: http.DefaultTransport, cut: func() {
		down.Store(true)
		if _, err := admin.Exec(ctx, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'cut-off'"); err != nil {
			t.Error(err)
		}
		// Longer than the ledger's retries of SendOnce's write, shorter
		// than its retries of the worker's.
		time.AfterFunc(3500*time.Millisecond, func() { down.Store(false) })
	}}
	c := srv.Client(telco.WithLedger(riversend.NewLedger(pool)), telco.WithHTTPClient(&http.Client{Transport: tr}))
	w, err := riversend.NewWorker(riversend.WorkerConfig{Client: c})
	if err != nil {
		t.Fatal(err)
	}
	a := msg("cut")
	a.PropertySid = srv.PropertySid
	if err := w.Work(ctx, job(a, 1)); err != nil {
		t.Fatalf("Work = %v, want nil (sent, and recorded by the worker)", err)
	}
	if !tr.cutOff.Load() {
		t.Fatal("the database was never cut off")
	}
	ms := srv.Messages(srv.PropertySid)
	o, err := riversend.Lookup(ctx, admin, srv.PropertySid, "cut")
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 1 || o.State != riversend.StateSent || o.LedgerState != telco.LedgerSent || o.MessageSid != ms[0].MessageSid {
		t.Fatalf("outcome %+v with %d messages stored; want sent once and recorded", o, len(ms))
	}
}
