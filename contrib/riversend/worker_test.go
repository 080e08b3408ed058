package riversend_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/telcosdk/telco"

	"github.com/telcosdk/telco/contrib/riversend"
)

// fakeSender answers SendOnce with err, or a message, and FindByExternalID
// from found; it counts the calls.
type fakeSender struct {
	mu        sync.Mutex
	err       error
	found     map[string]telco.Message
	findErr   error
	sends     int
	finds     int
	lastSince time.Time
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

func (f *fakeSender) FindByExternalID(_ context.Context, _ string, since time.Time, ids ...string) (map[string]telco.Message, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.finds++
	f.lastSince = since
	if f.findErr != nil {
		return nil, f.findErr
	}
	out := map[string]telco.Message{}
	for _, id := range ids {
		if m, ok := f.found[id]; ok {
			out[id] = m
		}
	}
	return out, nil
}

func testWorker(t *testing.T, pool *pgxpool.Pool) {
	ctx := context.Background()
	newWorker := func(t *testing.T, s *fakeSender) *riversend.Worker {
		t.Helper()
		w, err := riversend.NewWorker(riversend.WorkerConfig{Sender: s, DB: pool, RateLimitWait: 2 * time.Second})
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
		s := &fakeSender{}
		if err := newWorker(t, s).Work(ctx, job(msg("ok"), 1)); err != nil {
			t.Fatalf("Work = %v, want nil", err)
		}
		o := outcome(t, "ok")
		if o.State != riversend.StateSent || o.MessageSid != "MGok" || o.FinishedAt.IsZero() || s.sends != 1 || s.finds != 0 {
			t.Fatalf("outcome %+v, sends %d, finds %d; want sent MGok, one send, no lookup on a first attempt", o, s.sends, s.finds)
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
		j := job(msg("dead"), 5)
		err := newWorker(t, &fakeSender{err: fmt.Errorf("x: %w", telco.ErrMaybeSent)}).Work(ctx, j)
		if err == nil {
			t.Fatal("Work = nil, want the error")
		}
		if o := outcome(t, "dead"); o.State != riversend.StateFailed || o.Attempts != 5 {
			t.Fatalf("outcome %+v, want failed after 5 attempts", o)
		}
	})

	t.Run("a retried job finds its message and does not send", func(t *testing.T) {
		reset(t, pool)
		// The first attempt fails after it may have sent.
		s := &fakeSender{err: fmt.Errorf("x: %w", telco.ErrMaybeSent)}
		w := newWorker(t, s)
		if err := w.Work(ctx, job(msg("again"), 1)); err == nil {
			t.Fatal("first attempt: Work = nil, want the error")
		}
		var first time.Time
		if err := pool.QueryRow(ctx, "SELECT first_attempt_at FROM telco_sends WHERE external_id = 'again'").Scan(&first); err != nil {
			t.Fatal(err)
		}
		s.err = nil
		s.found = map[string]telco.Message{"again": {MessageSid: "MGfound", ExternalID: "again"}}
		if err := w.Work(ctx, job(msg("again"), 2)); err != nil {
			t.Fatalf("second attempt: Work = %v", err)
		}
		if s.sends != 1 || s.finds != 1 {
			t.Fatalf("sends %d, finds %d; want 1 (the first attempt) and 1", s.sends, s.finds)
		}
		if want := first.Add(-riversend.DefaultClockSkew); !s.lastSince.Equal(want) {
			t.Fatalf("looked up since %v, want the first attempt less the skew (%v)", s.lastSince, want)
		}
		if o := outcome(t, "again"); o.State != riversend.StateSent || o.MessageSid != "MGfound" || o.Attempts != 2 {
			t.Fatalf("outcome %+v, want sent MGfound after 2 attempts", o)
		}
	})

	t.Run("a retried job not found is sent", func(t *testing.T) {
		reset(t, pool)
		s := &fakeSender{}
		if err := newWorker(t, s).Work(ctx, job(msg("lost"), 3)); err != nil {
			t.Fatalf("Work = %v", err)
		}
		if s.sends != 1 || s.finds != 1 {
			t.Fatalf("sends %d, finds %d; want 1 and 1", s.sends, s.finds)
		}
	})

	t.Run("a failed lookup never sends", func(t *testing.T) {
		reset(t, pool)
		s := &fakeSender{findErr: errors.New("lookup down")}
		err := newWorker(t, s).Work(ctx, job(msg("unsure"), 2))
		if err == nil || isCancel(err) || s.sends != 0 {
			t.Fatalf("Work = %v with %d sends, want a retryable error and no send", err, s.sends)
		}
	})

	t.Run("NewWorker needs a way to look up", func(t *testing.T) {
		if _, err := riversend.NewWorker(riversend.WorkerConfig{Sender: sendOnly{}, DB: pool}); err == nil {
			t.Fatal("NewWorker accepted a Sender that cannot look up and no Finder")
		}
		if _, err := riversend.NewWorker(riversend.WorkerConfig{Sender: &fakeSender{}}); err == nil {
			t.Fatal("NewWorker accepted no DB")
		}
	})
}

type sendOnly struct{}

func (sendOnly) SendOnce(context.Context, string, *telco.SendMessageParams) (*telco.Message, error) {
	return nil, errors.New("unused")
}
