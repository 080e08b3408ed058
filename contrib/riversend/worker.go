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
// one. The Worker sends with Client.Messages unless WorkerConfig.Sender
// replaces it (to instrument the sends, say): a replacement must send
// with SendOnce of a Client whose ledger is the same Ledger, since the
// ledger is what keeps a job worked twice from sending twice.
type Sender interface {
	SendOnce(ctx context.Context, propertySid string, p *telco.SendMessageParams) (*telco.Message, error)
}

// DefaultRateLimitWait is how long a job is snoozed after a 429 whose
// answer carried no usable Retry-After.
const DefaultRateLimitWait = 5 * time.Second

// WorkerConfig configures a Worker.
type WorkerConfig struct {
	// Client sends the messages, with Messages.SendOnce. Required, and
	// its ledger must be a *Ledger, shared by every worker: build it with
	// telco.WithLedger(riversend.NewLedger(pool)). Its ReconcilePolicy's
	// SettleTime should exceed the longest time the service takes to show
	// a message in a search, as for any SendOnce.
	Client *telco.Client
	// Sender, when set, sends in place of Client.Messages; see Sender.
	Sender Sender
	// DB is where the worker records its verdicts (refused, failed); nil
	// uses the pool of Client's Ledger. Give the same database.
	DB DB
	// RateLimitWait is the snooze after a 429 without a Retry-After;
	// 0 means DefaultRateLimitWait. A quarter of it is added at random so
	// that snoozed jobs do not all come back at once.
	RateLimitWait time.Duration
	// Permanent decides whether a service error is a refusal that retrying
	// cannot fix (the job is cancelled and the refusal recorded); nil uses
	// IsPermanent.
	Permanent func(*telco.APIError) bool
}

// Worker is the River worker for SendArgs. Register it with
// river.AddWorker(workers, w).
type Worker struct {
	river.WorkerDefaults[SendArgs]
	cfg    WorkerConfig
	ledger *Ledger
}

// NewWorker checks cfg and returns the worker. It refuses a Client whose
// ledger is not a *Ledger: with a process-local ledger, a job worked again
// by another process, or after a restart, could not know what its earlier
// attempts did.
func NewWorker(cfg WorkerConfig) (*Worker, error) {
	if cfg.Client == nil {
		return nil, errors.New("riversend: NewWorker: Client is required: a *telco.Client built with " +
			"telco.WithLedger(riversend.NewLedger(pool))")
	}
	l, ok := cfg.Client.Ledger().(*Ledger)
	if !ok || l == nil {
		return nil, fmt.Errorf("riversend: NewWorker: the Client keeps its send records in a %T, not in Postgres: "+
			"build it with telco.WithLedger(riversend.NewLedger(pool)), so that every attempt of a job, "+
			"in any process, shares them", cfg.Client.Ledger())
	}
	if cfg.Sender == nil {
		cfg.Sender = cfg.Client.Messages
	}
	if cfg.DB == nil {
		cfg.DB = l.pool
	}
	if cfg.RateLimitWait <= 0 {
		cfg.RateLimitWait = DefaultRateLimitWait
	}
	if cfg.Permanent == nil {
		cfg.Permanent = IsPermanent
	}
	return &Worker{cfg: cfg, ledger: l}, nil
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

// Work sends the job's message once, with SendOnce on the Ledger, and
// settles the job:
//   - sent: the job completes (the ledger, and so telco_sends, says sent);
//   - a *telco.ValidationError, a permanent refusal, or an ExternalId
//     already used for another message (telco.ErrExternalIDReused): the
//     refusal goes to telco_sends and the job is cancelled
//     (river.JobCancel), never retried;
//   - a 429: the job is snoozed for the service's Retry-After, or
//     RateLimitWait, without using up an attempt;
//   - anything else (transport failures, 5xx, timeouts, a send left
//     unresolved): the error goes back to River, which retries with its
//     backoff until MaxAttempts, then records "failed".
//
// What the earlier attempts did is the ledger's to say, not River's
// attempt number, which a stop gives back: SendOnce answers a message sent
// before from its record, waits for an attempt another process holds, and
// looks a message that may have been sent up once the settle time has
// passed since that attempt, before it sends anything.
func (w *Worker) Work(ctx context.Context, job *river.Job[SendArgs]) error {
	a := &job.Args
	if a.ExternalID == "" {
		// Without it nothing can be reconciled; and SendOnce would refuse
		// it too.
		err := &telco.ValidationError{Op: "riversend.Worker", Fields: []telco.FieldError{{
			Code: telco.CodeParameterRequired, FieldName: "ExternalId", Message: "required to send once"}}}
		return w.cancel(ctx, job, err)
	}
	m, err := w.cfg.Sender.SendOnce(ctx, a.PropertySid, a.Params())
	if err == nil {
		if m == nil {
			return w.retry(ctx, job, errors.New("SendOnce returned no message and no error"))
		}
		if w.ledger.unstoredKey(a.PropertySid, a.ExternalID) {
			// The SDK could not write the outcome: write it here, or have
			// River retry, which finds the message by a look-up.
			if err := w.ledger.markSent(ctx, a, m); err != nil {
				return w.retry(ctx, job, fmt.Errorf("sent as %s, but not recorded: %w", m.MessageSid, err))
			}
		}
		return nil
	}
	var ve *telco.ValidationError
	if errors.As(err, &ve) || errors.Is(err, telco.ErrExternalIDReused) {
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
	if rerr := verdict(ctx, w.cfg.DB, &job.Args, StateRefused, err); rerr != nil {
		return errors.Join(err, rerr)
	}
	return river.JobCancel(err)
}

// retry hands err back to River for its backoff; on the last attempt it
// records the failure first, since River will discard the job.
func (w *Worker) retry(ctx context.Context, job *river.Job[SendArgs], err error) error {
	if job.Attempt >= job.MaxAttempts {
		if rerr := verdict(ctx, w.cfg.DB, &job.Args, StateFailed, err); rerr != nil {
			return errors.Join(err, rerr)
		}
	}
	return err
}
