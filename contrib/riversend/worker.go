package riversend

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/riverqueue/river"
	"github.com/telcosdk/telco"
)

// Sender sends one message effectively once; *telco.MessagesService is
// one. SendOnce requires p.ExternalID, looks it up before any resend after
// a failure that may have reached the service, and returns an error still
// matching telco.ErrMaybeSent only when its rounds ran out.
type Sender interface {
	SendOnce(ctx context.Context, propertySid string, p *telco.SendMessageParams) (*telco.Message, error)
}

// Finder finds sent messages by ExternalId; *telco.MessagesService is one.
// A job that River works a second time looks its message up with it before
// sending, because the first attempt may have sent it and then lost its
// answer, timed out, or died with its process.
type Finder interface {
	FindByExternalID(ctx context.Context, propertySid string, since time.Time, externalIDs ...string) (map[string]telco.Message, error)
}

// DefaultRateLimitWait is how long a job is snoozed after a 429 whose
// answer carried no usable Retry-After.
const DefaultRateLimitWait = 5 * time.Second

// DefaultClockSkew is how far before its first attempt a retried job
// starts looking for its message, for clocks of the database and the
// service that disagree.
const DefaultClockSkew = time.Minute

// WorkerConfig configures a Worker.
type WorkerConfig struct {
	// Sender sends; usually client.Messages. Required.
	Sender Sender
	// Finder looks messages up on retries; nil uses Sender when it is a
	// Finder too (client.Messages is). Required one way or the other: a
	// worker that cannot look up would risk sending twice.
	Finder Finder
	// DB is where outcomes are recorded (telco_sends); usually the pool
	// River uses. Required.
	DB DB
	// RateLimitWait is the snooze after a 429 without a Retry-After;
	// 0 means DefaultRateLimitWait. A quarter of it is added at random so
	// that snoozed jobs do not all come back at once.
	RateLimitWait time.Duration
	// ClockSkew widens the lookup window of a retried job; 0 means
	// DefaultClockSkew.
	ClockSkew time.Duration
	// Permanent decides whether a service error is a refusal that retrying
	// cannot fix (the job is cancelled and the refusal recorded); nil uses
	// IsPermanent.
	Permanent func(*telco.APIError) bool
}

// Worker is the River worker for SendArgs. Register it with
// river.AddWorker(workers, w).
type Worker struct {
	river.WorkerDefaults[SendArgs]
	cfg WorkerConfig
}

// NewWorker checks cfg and returns the worker.
func NewWorker(cfg WorkerConfig) (*Worker, error) {
	if cfg.Sender == nil {
		return nil, errors.New("riversend: NewWorker: Sender is required")
	}
	if cfg.Finder == nil {
		f, ok := cfg.Sender.(Finder)
		if !ok {
			return nil, errors.New("riversend: NewWorker: Finder is required when Sender is not one")
		}
		cfg.Finder = f
	}
	if cfg.DB == nil {
		return nil, errors.New("riversend: NewWorker: DB is required")
	}
	if cfg.RateLimitWait <= 0 {
		cfg.RateLimitWait = DefaultRateLimitWait
	}
	if cfg.ClockSkew <= 0 {
		cfg.ClockSkew = DefaultClockSkew
	}
	if cfg.Permanent == nil {
		cfg.Permanent = IsPermanent
	}
	return &Worker{cfg: cfg}, nil
}

// IsPermanent is the default refusal rule: a 4xx answer is a refusal of
// this message that the same request would meet again (400 for bad
// parameters, 403 FORBIDDEN, 404, 409, 422, ...), except 401 (credentials:
// fixed by the operator, after which the jobs should go on), 408 (a
// timeout) and 429 (a rate limit; snoozed instead). A per-element error
// (StatusCode 0) is a refusal too. Everything else is retried.
func IsPermanent(e *telco.APIError) bool {
	switch {
	case e.StatusCode == 0:
		return true
	case e.StatusCode == http.StatusUnauthorized, e.StatusCode == http.StatusRequestTimeout,
		e.StatusCode == http.StatusTooManyRequests:
		return false
	}
	return e.StatusCode >= 400 && e.StatusCode < 500
}

// Work sends the job's message once and records its outcome:
//   - sent: the MessageSid goes to telco_sends and the job completes;
//   - a *telco.ValidationError or a permanent refusal: the code goes to
//     telco_sends and the job is cancelled (river.JobCancel), never retried;
//   - a 429: the job is snoozed for the service's Retry-After, or
//     RateLimitWait, without using up an attempt;
//   - anything else (transport failures, 5xx, timeouts, rounds of
//     reconciliation that ran out): the error goes back to River, which
//     retries with its backoff until MaxAttempts, then records "failed".
//
// Every attempt first notes itself in telco_sends (one write), which keeps
// when the first attempt started. A job on its second attempt or later
// looks its ExternalId up, from that time less ClockSkew, and completes
// with the message found instead of sending.
func (w *Worker) Work(ctx context.Context, job *river.Job[SendArgs]) error {
	a := &job.Args
	if a.ExternalID == "" {
		// Without it nothing can be reconciled; and SendOnce would refuse
		// it too.
		err := &telco.ValidationError{Op: "riversend.Worker", Fields: []telco.FieldError{{
			Code: telco.CodeParameterRequired, FieldName: "ExternalId", Message: "required to send once"}}}
		return w.cancel(ctx, job, err)
	}
	first, err := begin(ctx, w.cfg.DB, a, job.Attempt)
	if err != nil {
		return err
	}
	if job.Attempt > 1 {
		found, err := w.cfg.Finder.FindByExternalID(ctx, a.PropertySid, first.Add(-w.cfg.ClockSkew), a.ExternalID)
		if err != nil {
			return w.retry(ctx, job, fmt.Errorf("looking up %s before resending: %w", a.ExternalID, err))
		}
		if m, ok := found[a.ExternalID]; ok {
			return record(ctx, w.cfg.DB, a, job.Attempt, Outcome{State: StateSent, MessageSid: m.MessageSid})
		}
	}
	m, err := w.cfg.Sender.SendOnce(ctx, a.PropertySid, a.Params())
	if err == nil {
		if m == nil {
			return w.retry(ctx, job, errors.New("SendOnce returned no message and no error"))
		}
		return record(ctx, w.cfg.DB, a, job.Attempt, Outcome{State: StateSent, MessageSid: m.MessageSid})
	}
	var ve *telco.ValidationError
	if errors.As(err, &ve) {
		return w.cancel(ctx, job, err)
	}
	var ae *telco.APIError
	if errors.As(err, &ae) && !errors.Is(err, telco.ErrMaybeSent) {
		if ae.StatusCode == http.StatusTooManyRequests {
			return river.JobSnooze(w.snooze(ae))
		}
		if w.cfg.Permanent(ae) {
			return w.cancel(ctx, job, err)
		}
	}
	return w.retry(ctx, job, err)
}

// snooze is how long to wait after a 429: the service's Retry-After when
// the SDK reports one, else RateLimitWait; plus up to a quarter at random.
func (w *Worker) snooze(ae *telco.APIError) time.Duration {
	d := retryAfter(ae)
	if d <= 0 {
		d = w.cfg.RateLimitWait
	}
	return d + rand.N(d/4+1)
}

// cancel records the refusal and cancels the job. When the outcome cannot
// be written the job is retried instead: sending again meets the same
// refusal, so nothing is sent twice.
func (w *Worker) cancel(ctx context.Context, job *river.Job[SendArgs], err error) error {
	o := Outcome{State: StateRefused, ErrorCode: telco.ErrorCode(err), ErrorMessage: err.Error()}
	if rerr := record(ctx, w.cfg.DB, &job.Args, job.Attempt, o); rerr != nil {
		return errors.Join(err, rerr)
	}
	return river.JobCancel(err)
}

// retry hands err back to River for its backoff; on the last attempt it
// records the failure first, since River will discard the job.
func (w *Worker) retry(ctx context.Context, job *river.Job[SendArgs], err error) error {
	if job.Attempt >= job.MaxAttempts {
		o := Outcome{State: StateFailed, ErrorCode: telco.ErrorCode(err), ErrorMessage: err.Error()}
		if rerr := record(ctx, w.cfg.DB, &job.Args, job.Attempt, o); rerr != nil {
			return errors.Join(err, rerr)
		}
	}
	return err
}
