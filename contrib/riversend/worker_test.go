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

// fakeSender answers SendOnce and SendBatchOnce with err, or with a
// message for each message, except that the messages of refuse are
// refused (per element in a batch) and, when batchErr is set, a batch
// fails as a whole with it. It records the ExternalIds of every call.
type fakeSender struct {
	mu       sync.Mutex
	err      error
	batchErr error
	refuse   map[string]*telco.APIError
	// unresolved lists the messages a batch leaves unresolved (the others
	// are answered): SendBatchOnce then returns an *telco.UnresolvedError.
	unresolved map[string]bool
	calls      [][]string // the ExternalIds of each call; a SendOnce's is one
}

func (f *fakeSender) SendOnce(_ context.Context, propertySid string, p *telco.SendMessageParams) (*telco.Message, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, []string{p.ExternalID})
	if f.err != nil {
		return nil, f.err
	}
	if ae := f.refuse[p.ExternalID]; ae != nil {
		return nil, ae
	}
	return &telco.Message{MessageSid: "MG" + p.ExternalID, PropertySid: propertySid, ExternalID: p.ExternalID}, nil
}

func (f *fakeSender) SendBatchOnce(_ context.Context, propertySid string, msgs []telco.SendMessageParams) ([]telco.BatchResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	ids := make([]string, len(msgs))
	for i := range msgs {
		ids[i] = msgs[i].ExternalID
	}
	f.calls = append(f.calls, ids)
	if f.err != nil {
		return nil, f.err
	}
	if f.batchErr != nil {
		return nil, f.batchErr
	}
	res := make([]telco.BatchResult, len(msgs))
	var open []string
	for i, p := range msgs {
		switch ae := f.refuse[p.ExternalID]; {
		case f.unresolved[p.ExternalID]:
			open = append(open, p.ExternalID)
		case ae != nil:
			res[i].Err = ae
		default:
			res[i].Message = &telco.Message{MessageSid: "MG" + p.ExternalID, PropertySid: propertySid, ExternalID: p.ExternalID}
		}
	}
	if len(open) > 0 {
		return res, &telco.UnresolvedError{Op: "Messages.SendBatchOnce", ExternalIDs: open, Rounds: 4, Err: telco.ErrMaybeSent}
	}
	return res, nil
}

// sent lists the calls made, as "id id" strings.
func (f *fakeSender) sent() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]string, len(f.calls))
	for i, c := range f.calls {
		out[i] = strings.Join(c, " ")
	}
	return out
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
		if err := w.Work(ctx, job(1, a)); err != nil {
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
		if err := w.Work(ctx, job(2, a)); err != nil {
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
		if err := w.Work(ctx, job(1, a)); err != nil {
			t.Fatal(err)
		}
		a.Text = "another message"
		if err := w.Work(ctx, job(1, a)); !isCancel(err) || !errors.Is(err, telco.ErrExternalIDReused) {
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
			err := newWorker(t, &fakeSender{err: tc.err}).Work(ctx, job(1, msg("bad")))
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
		err := newWorker(t, &fakeSender{err: &telco.APIError{StatusCode: 429}}).Work(ctx, job(1, msg("slow")))
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
		err := newWorker(t, &fakeSender{err: &telco.APIError{StatusCode: 429, RetryAfter: 7 * time.Second}}).Work(ctx, job(1, msg("slow")))
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
			err := newWorker(t, &fakeSender{err: tc.err}).Work(ctx, job(2, msg("flaky")))
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
		j := job(5, msg("dead"))
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
		j := job(5, a)
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

	refusal := &telco.APIError{Code: telco.CodeInvalidPhoneNumberFormat, Message: "To is not in E.164 format"}

	t.Run("a chunk is one batch; each message settled on its own", func(t *testing.T) {
		reset(t, pool)
		f := &fakeSender{refuse: map[string]*telco.APIError{"c-bad": refusal}}
		if err := newWorker(t, f).Work(ctx, job(1, msg("c-ok1"), msg("c-bad"), msg("c-ok2"))); err != nil {
			t.Fatalf("Work = %v, want the job completed", err)
		}
		if got := fmt.Sprint(f.sent()); got != "[c-ok1 c-bad c-ok2]" {
			t.Fatalf("sends %s, want one batch of the three", got)
		}
		if o := outcome(t, "c-bad"); o.State != riversend.StateRefused || o.ErrorCode != telco.CodeInvalidPhoneNumberFormat {
			t.Fatalf("outcome of the refused element %+v, want refused with its code", o)
		}
		if _, err := riversend.Lookup(ctx, pool, "PR1", "c-ok1"); !errors.Is(err, riversend.ErrNotEnqueued) {
			t.Fatalf("a sent message got a verdict: %v", err)
		}
	})

	t.Run("a chunk of refusals only is cancelled", func(t *testing.T) {
		reset(t, pool)
		f := &fakeSender{refuse: map[string]*telco.APIError{"r1": refusal, "r2": refusal}}
		err := newWorker(t, f).Work(ctx, job(1, msg("r1"), msg("r2")))
		if !isCancel(err) || !strings.Contains(err.Error(), "2 of 2 messages refused") || telco.ErrorCode(err) != telco.CodeInvalidPhoneNumberFormat {
			t.Fatalf("Work = %v, want the job cancelled, naming the count and the first refusal", err)
		}
		for _, id := range []string{"r1", "r2"} {
			if o := outcome(t, id); o.State != riversend.StateRefused {
				t.Fatalf("%s: outcome %+v, want refused", id, o)
			}
		}
	})

	wholeRefusals := []struct {
		name string
		err  error
	}{
		{"an ExternalId reused", fmt.Errorf("telco: Messages.SendBatchOnce: %w", telco.ErrExternalIDReused)},
		{"a validation error", &telco.ValidationError{Op: "Messages.SendBatchOnce", Fields: []telco.FieldError{{Code: telco.CodeParameterInvalid}}}},
		{"a 400 of the whole request", &telco.APIError{StatusCode: 400, Code: "FORMAT_EXCEPTION"}},
	}
	for _, tc := range wholeRefusals {
		t.Run("a chunk refused as a whole for "+tc.name+" is sent one by one", func(t *testing.T) {
			reset(t, pool)
			f := &fakeSender{batchErr: tc.err, refuse: map[string]*telco.APIError{"w-bad": refusal}}
			if err := newWorker(t, f).Work(ctx, job(1, msg("w-a"), msg("w-bad"), msg("w-b"))); err != nil {
				t.Fatalf("Work = %v, want the job completed", err)
			}
			if got := fmt.Sprint(f.sent()); got != "[w-a w-bad w-b w-a w-bad w-b]" {
				t.Fatalf("sends %s, want the batch, then each message alone", got)
			}
			if o := outcome(t, "w-bad"); o.State != riversend.StateRefused || o.ErrorCode != telco.CodeInvalidPhoneNumberFormat {
				t.Fatalf("outcome %+v, want only the bad message refused, with its own code", o)
			}
			if n := count(t, pool, "SELECT count(*) FROM telco_sends WHERE state = 'refused'"); n != 1 {
				t.Fatalf("%d refusals recorded, want 1", n)
			}
		})
	}

	t.Run("a retried chunk sends only what is left", func(t *testing.T) {
		reset(t, pool)
		enqueue(t, pool, insertOnly(t, pool), msg("k-ok"), msg("k-bad"), msg("k-doubt"))
		f := &fakeSender{refuse: map[string]*telco.APIError{"k-bad": refusal}, unresolved: map[string]bool{"k-doubt": true}}
		w := newWorker(t, f)
		err := w.Work(ctx, job(1, msg("k-ok"), msg("k-bad"), msg("k-doubt")))
		if err == nil || isCancel(err) || !errors.Is(err, telco.ErrMaybeSent) || !strings.Contains(err.Error(), `"k-doubt"`) {
			t.Fatalf("Work = %v, want an error River retries, naming the message in doubt", err)
		}
		if o := outcome(t, "k-bad"); o.State != riversend.StateRefused {
			t.Fatalf("outcome %+v, want the refusal recorded at once", o)
		}
		if o := outcome(t, "k-doubt"); o.State != riversend.StateEnqueued {
			t.Fatalf("outcome %+v, want still enqueued while attempts remain", o)
		}
		f.unresolved = nil
		if err := w.Work(ctx, job(2, msg("k-ok"), msg("k-bad"), msg("k-doubt"))); err != nil {
			t.Fatalf("second attempt: Work = %v, want completed", err)
		}
		if got := fmt.Sprint(f.sent()); got != "[k-ok k-bad k-doubt k-ok k-doubt]" {
			t.Fatalf("sends %s: the retry must not send the refused message again", got)
		}
	})

	t.Run("the last attempt records failed only what is not settled", func(t *testing.T) {
		reset(t, pool)
		enqueue(t, pool, insertOnly(t, pool), msg("l-ok"), msg("l-bad"), msg("l-doubt"))
		f := &fakeSender{refuse: map[string]*telco.APIError{"l-bad": refusal}, unresolved: map[string]bool{"l-doubt": true}}
		if err := newWorker(t, f).Work(ctx, job(5, msg("l-ok"), msg("l-bad"), msg("l-doubt"))); err == nil || isCancel(err) {
			t.Fatalf("Work = %v, want the error", err)
		}
		want := map[string]riversend.State{"l-ok": riversend.StateEnqueued, "l-bad": riversend.StateRefused, "l-doubt": riversend.StateFailed}
		for id, st := range want {
			if o := outcome(t, id); o.State != st {
				t.Errorf("%s: %s, want %s", id, o.State, st)
			}
		}
	})

	t.Run("a chunk rate-limited as a whole is snoozed", func(t *testing.T) {
		reset(t, pool)
		f := &fakeSender{batchErr: &telco.APIError{StatusCode: 429, RetryAfter: 3 * time.Second}}
		err := newWorker(t, f).Work(ctx, job(1, msg("s1"), msg("s2")))
		if d, ok := isSnooze(err); !ok || d < 3*time.Second {
			t.Fatalf("Work = %v, want a snooze of the Retry-After", err)
		}
		if got := len(f.sent()); got != 1 {
			t.Fatalf("%d sends, want the one batch (a 429 is not a refusal to split)", got)
		}
	})

	t.Run("a message without a key is refused alone", func(t *testing.T) {
		reset(t, pool)
		f := &fakeSender{}
		noProp := msg("n-noprop")
		noProp.PropertySid = ""
		if err := newWorker(t, f).Work(ctx, job(1, msg(""), noProp, msg("n-ok"))); err != nil {
			t.Fatalf("Work = %v, want the job completed", err)
		}
		if got := fmt.Sprint(f.sent()); got != "[n-ok]" {
			t.Fatalf("sends %s, want only the message with a key", got)
		}
		if o := outcome(t, ""); o.State != riversend.StateRefused || o.ErrorCode != telco.CodeParameterRequired {
			t.Fatalf("outcome %+v, want refused", o)
		}
	})

	t.Run("a job of one message (SendArgs) through MessageWorker", func(t *testing.T) {
		reset(t, pool)
		srv := telcotest.NewServer()
		defer srv.Close()
		c := srv.Client(telco.WithLedger(riversend.NewLedger(pool)))
		w, err := riversend.NewWorker(riversend.WorkerConfig{Client: c})
		if err != nil {
			t.Fatal(err)
		}
		mw := w.MessageWorker()
		if mw.Timeout(nil) != riversend.DefaultJobTimeout {
			t.Fatalf("Timeout %v, want DefaultJobTimeout", mw.Timeout(nil))
		}
		a := msg("single")
		a.PropertySid = srv.PropertySid
		if err := mw.Work(ctx, messageJob(a, 1)); err != nil {
			t.Fatalf("Work = %v, want nil", err)
		}
		// The same message in a chunk job: answered from the ledger.
		if err := w.Work(ctx, job(1, a)); err != nil {
			t.Fatalf("chunk Work = %v, want nil", err)
		}
		o, err := riversend.Lookup(ctx, pool, srv.PropertySid, "single")
		if err != nil {
			t.Fatal(err)
		}
		if n := len(srv.Messages(srv.PropertySid)); n != 1 || srv.Requests() != 1 || o.State != riversend.StateSent {
			t.Fatalf("%d messages, %d requests, outcome %+v; want sent once", n, srv.Requests(), o)
		}
		bad := msg("single-bad")
		bad.PropertySid, bad.To = srv.PropertySid, "not-a-number"
		if err := mw.Work(ctx, messageJob(bad, 1)); !isCancel(err) {
			t.Fatalf("Work of a refused message = %v, want the job cancelled", err)
		}
	})

	t.Run("two jobs holding the same messages, worked at once, send each once", func(t *testing.T) {
		reset(t, pool)
		srv := telcotest.NewServer()
		defer srv.Close()
		// Each send waits, so that the two jobs overlap.
		srv.Inject(100, telcotest.Fault{Kind: telcotest.FaultLatency, Delay: 100 * time.Millisecond, Op: "Messages.SendBatch"})
		var msgs []riversend.SendArgs
		for i := range 20 {
			a := msg(fmt.Sprintf("twice-%02d", i))
			a.PropertySid = srv.PropertySid
			msgs = append(msgs, a)
		}
		errs := make(chan error, 2)
		for k := range 2 {
			// Two processes: each its own pool and Client.
			c := srv.Client(telco.WithLedger(riversend.NewLedger(newPool(t, pool.Config().ConnString()))))
			w, err := riversend.NewWorker(riversend.WorkerConfig{Client: c})
			if err != nil {
				t.Fatal(err)
			}
			part := msgs[k*5:] // overlapping chunks: 5..19 in both
			go func() { errs <- w.Work(ctx, job(1, part...)) }()
		}
		for range 2 {
			if err := <-errs; err != nil {
				t.Fatalf("Work = %v, want nil", err)
			}
		}
		srv.WaitIdle()
		seen := map[string]int{}
		for _, m := range srv.Messages(srv.PropertySid) {
			seen[m.ExternalID]++
		}
		for _, a := range msgs {
			if seen[a.ExternalID] != 1 {
				t.Errorf("%s stored %d times, want once", a.ExternalID, seen[a.ExternalID])
			}
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
	if err := w.Work(ctx, job(1, a)); err != nil {
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
