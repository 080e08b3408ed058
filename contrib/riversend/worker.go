package riversend

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/telcosdk/telco"
)

// Sender sends messages effectively once; *telco.MessagesService is one.
// The Worker sends with Client.Messages unless WorkerConfig.Sender
// replaces it (to instrument the sends, say): a replacement must send
// with SendBatchOnce and SendOnce of a Client whose ledger is the same
// Ledger, since the ledger is what keeps a job worked twice from sending
// twice.
type Sender interface {
	SendOnce(ctx context.Context, propertySid string, p *telco.SendMessageParams) (*telco.Message, error)
	SendBatchOnce(ctx context.Context, propertySid string, msgs []telco.SendMessageParams) ([]telco.BatchResult, error)
}

// DefaultRateLimitWait is how long a job is snoozed after a 429 whose
// answer carried no usable Retry-After.
const DefaultRateLimitWait = 5 * time.Second

// DefaultJobTimeout bounds one attempt of a job (the Worker's Timeout):
// long enough for a chunk's request to use a whole attempt timeout of the
// SDK's (telco.DefaultAttemptTimeout, 60 s) and still be reconciled in the
// same attempt (the default ReconcilePolicy settles 5 s, up to 4 times),
// rather than by River's retry after its backoff.
const DefaultJobTimeout = 2 * time.Minute

// WorkerConfig configures a Worker.
type WorkerConfig struct {
	// Client sends the messages, with Messages.SendBatchOnce (and
	// SendOnce). Required, and its ledger must be a *Ledger, shared by
	// every worker: build it with telco.WithLedger(riversend.NewLedger(pool)).
	// Its ReconcilePolicy's SettleTime should exceed the longest time the
	// service takes to show a message in a search, as for any SendOnce.
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
	// cannot fix (the message is refused and the refusal recorded); nil
	// uses IsPermanent.
	Permanent func(*telco.APIError) bool
	// JobTimeout bounds each attempt of a job; 0 (or less) means
	// DefaultJobTimeout. It is the Worker's Timeout, which River uses in
	// place of its Config.JobTimeout for these jobs, and it delays River's
	// rescue of a job whose worker died: River rescues a job once both this
	// and Config.RescueStuckJobsAfter have passed since its attempt began.
	JobTimeout time.Duration
}

// Worker is the River worker of SendChunkArgs, the jobs Enqueue inserts.
// Register it with river.AddWorker(workers, w); jobs of one message
// (SendArgs) need MessageWorker too.
type Worker struct {
	river.WorkerDefaults[SendChunkArgs]
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
	if cfg.JobTimeout <= 0 {
		cfg.JobTimeout = DefaultJobTimeout
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

// Timeout is WorkerConfig.JobTimeout: River's bound on each attempt.
func (w *Worker) Timeout(*river.Job[SendChunkArgs]) time.Duration { return w.cfg.JobTimeout }

// Work sends the chunk's messages, each once, with one SendBatchOnce per
// project (Enqueue makes chunks of one project), and settles each message:
//   - sent: done (the ledger, and so telco_sends, says sent);
//   - a *telco.ValidationError, a permanent refusal (per element, or of
//     the request), or an ExternalId already used for another message
//     (telco.ErrExternalIDReused): refused, and the refusal recorded in
//     telco_sends; never sent again by this job;
//   - a 429: the job is snoozed for the service's Retry-After, or
//     RateLimitWait, without using up an attempt;
//   - anything else (transport failures, 5xx, timeouts, messages left
//     unresolved): the job goes back to River, which retries it with its
//     backoff until MaxAttempts; on the last attempt the messages not
//     settled are recorded "failed".
//
// The job completes when every message is sent or refused, and is
// cancelled (river.JobCancel) when every one was refused. A retry sends
// only what is left: the messages sent are answered by the ledger without
// a request, the ones refused are skipped.
//
// SendBatchOnce refuses the whole chunk for the fault of one message (a
// reused ExternalId, a rule of the SDK's, a request the service refused
// as a whole): the worker then sends the chunk's messages one by one with
// SendOnce, so that each refusal is the message's own.
//
// What the earlier attempts did is the ledger's to say, not River's
// attempt number, which a stop gives back: SendBatchOnce answers a message
// sent before from its record, waits for an attempt another process
// holds, and looks a message that may have been sent up once the settle
// time has passed since that attempt, before it sends anything.
func (w *Worker) Work(ctx context.Context, job *river.Job[SendChunkArgs]) error {
	msgs := job.Args.Messages
	outs := make([]outcome, len(msgs))
	for i := range msgs {
		if err := checkArgs(&msgs[i]); err != nil {
			outs[i] = outcome{fate: fateRefused, err: err}
		}
	}
	if err := w.skipRefused(ctx, msgs, outs); err != nil {
		return err
	}
	// By project, in the order they come: Enqueue makes chunks of one
	// project, a chunk made by hand may mix them.
	var props []string
	byProp := map[string][]int{}
	for i := range msgs {
		if outs[i].fate != fateOpen {
			continue
		}
		p := msgs[i].PropertySid
		if _, ok := byProp[p]; !ok {
			props = append(props, p)
		}
		byProp[p] = append(byProp[p], i)
	}
	for _, p := range props {
		w.sendChunk(ctx, p, msgs, byProp[p], outs)
	}
	return w.settle(ctx, job.JobRow, msgs, outs)
}

// checkArgs refuses a message that cannot be sent once: without an
// ExternalId nothing can be reconciled (SendOnce would refuse it too), and
// without a project there is nowhere to send it.
func checkArgs(a *SendArgs) error {
	var fields []telco.FieldError
	if a.ExternalID == "" {
		fields = append(fields, telco.FieldError{Code: telco.CodeParameterRequired, FieldName: "ExternalId",
			Message: "required to send once"})
	}
	if a.PropertySid == "" {
		fields = append(fields, telco.FieldError{Code: telco.CodeParameterRequired, FieldName: "PropertySid",
			Message: "a project is required"})
	}
	if len(fields) == 0 {
		return nil
	}
	return &telco.ValidationError{Op: "riversend.Worker", Fields: fields}
}

// fate is what became of one message in an attempt of its job.
type fate int

const (
	fateOpen    fate = iota // not settled by this attempt
	fateSent                // the service stored it
	fateRefused             // refused, now: the verdict is to be recorded
	fateEarlier             // refused by an earlier attempt, whose verdict is recorded
	fateSnooze              // rate limited: to be tried after wait
	fateRetry               // to be tried again after River's backoff
)

// outcome is one message's result in an attempt.
type outcome struct {
	fate fate
	err  error          // the refusal, or why it is to be retried
	wait time.Duration  // the snooze, for fateSnooze
	msg  *telco.Message // the message stored, for fateSent
}

// skipRefused marks the messages whose refusal an earlier attempt of the
// job recorded: they are not sent again, as a refused job of one message
// is cancelled rather than retried.
func (w *Worker) skipRefused(ctx context.Context, msgs []SendArgs, outs []outcome) error {
	var props, ids []string
	for i := range msgs {
		if outs[i].fate == fateOpen {
			props, ids = append(props, msgs[i].PropertySid), append(ids, msgs[i].ExternalID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	rows, err := w.cfg.DB.Query(ctx, `
		SELECT t.property_sid, t.external_id FROM telco_sends AS t
		JOIN unnest($1::text[], $2::text[]) AS k(p, i) ON t.property_sid = k.p AND t.external_id = k.i
		WHERE t.state = 'refused'`, props, ids)
	if err != nil {
		return fmt.Errorf("riversend: reading the chunk's earlier verdicts: %w", err)
	}
	defer rows.Close()
	refused := map[ledgerKey]bool{}
	for rows.Next() {
		var k ledgerKey
		if err := rows.Scan(&k.prop, &k.id); err != nil {
			return fmt.Errorf("riversend: reading the chunk's earlier verdicts: %w", err)
		}
		refused[k] = true
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("riversend: reading the chunk's earlier verdicts: %w", err)
	}
	for i := range msgs {
		if outs[i].fate == fateOpen && refused[ledgerKey{msgs[i].PropertySid, msgs[i].ExternalID}] {
			outs[i] = outcome{fate: fateEarlier}
		}
	}
	return nil
}

// sendChunk sends the messages idx of one project with one SendBatchOnce
// and sets their outcomes.
func (w *Worker) sendChunk(ctx context.Context, prop string, msgs []SendArgs, idx []int, outs []outcome) {
	params := make([]telco.SendMessageParams, len(idx))
	for k, i := range idx {
		params[k] = *msgs[i].Params()
	}
	res, err := w.cfg.Sender.SendBatchOnce(ctx, prop, params)
	if err != nil && len(idx) > 1 && w.judge(err).fate == fateRefused {
		// Refused as a whole, maybe for one message's fault: each alone.
		w.sendEach(ctx, msgs, idx, outs)
		return
	}
	for k, i := range idx {
		switch {
		case k < len(res) && res[k].Message != nil:
			outs[i] = outcome{fate: fateSent, msg: res[k].Message}
		case k < len(res) && res[k].Err != nil:
			outs[i] = w.judge(res[k].Err)
		case err != nil:
			outs[i] = w.judge(err)
		default:
			outs[i] = outcome{fate: fateRetry, err: errors.New("SendBatchOnce returned no result and no error")}
		}
	}
}

// sendEach sends the messages idx one by one with SendOnce; a 429 snoozes
// the ones not sent yet.
func (w *Worker) sendEach(ctx context.Context, msgs []SendArgs, idx []int, outs []outcome) {
	for k, i := range idx {
		outs[i] = w.sendOne(ctx, &msgs[i])
		if outs[i].fate == fateSnooze {
			for _, j := range idx[k+1:] {
				outs[j] = outs[i]
			}
			return
		}
	}
}

// sendOne sends one message with SendOnce.
func (w *Worker) sendOne(ctx context.Context, a *SendArgs) outcome {
	m, err := w.cfg.Sender.SendOnce(ctx, a.PropertySid, a.Params())
	switch {
	case err != nil:
		return w.judge(err)
	case m == nil:
		return outcome{fate: fateRetry, err: errors.New("SendOnce returned no message and no error")}
	}
	return outcome{fate: fateSent, msg: m}
}

// judge sorts a failure: a refusal, a rate limit, or anything else, which
// is retried.
func (w *Worker) judge(err error) outcome {
	var ve *telco.ValidationError
	if errors.As(err, &ve) || errors.Is(err, telco.ErrExternalIDReused) {
		return outcome{fate: fateRefused, err: err}
	}
	var ae *telco.APIError
	if errors.As(err, &ae) && !errors.Is(err, telco.ErrMaybeSent) {
		if ae.StatusCode == http.StatusTooManyRequests {
			return outcome{fate: fateSnooze, err: err, wait: w.snooze(ae)}
		}
		if w.cfg.Permanent(ae) {
			return outcome{fate: fateRefused, err: err}
		}
	}
	return outcome{fate: fateRetry, err: err}
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

// settle records what the attempt leaves to record and tells River what
// to do with the job:
//   - a message sent whose outcome the SDK could not write is written
//     here, or retried (which finds it by a look-up);
//   - refusals are recorded; on the last attempt, so are the messages not
//     settled, as failed, since River will discard the job;
//   - any message to retry: the job is retried; else any snoozed: the job
//     is snoozed; else it completes, or is cancelled when every message
//     was refused.
//
// When a verdict cannot be written the job is retried instead: sending
// again meets the same refusal, so nothing is sent twice.
func (w *Worker) settle(ctx context.Context, row *rivertype.JobRow, msgs []SendArgs, outs []outcome) error {
	w.recordUnstored(ctx, msgs, outs)
	count := map[fate]int{}
	var wait time.Duration
	for _, o := range outs {
		count[o.fate]++
		wait = max(wait, o.wait)
	}
	last := row.Attempt >= row.MaxAttempts && count[fateRetry] > 0
	var vs []verdict
	for i, o := range outs {
		switch {
		case o.fate == fateRefused:
			vs = append(vs, verdict{a: &msgs[i], st: StateRefused, err: o.err})
		case last && (o.fate == fateRetry || o.fate == fateSnooze):
			vs = append(vs, verdict{a: &msgs[i], st: StateFailed, err: o.err})
		}
	}
	var err error
	switch {
	case count[fateRetry] > 0:
		err = summary(msgs, outs, fateRetry, "not settled")
	case count[fateSnooze] > 0:
		err = river.JobSnooze(wait)
	case count[fateRefused] > 0 && count[fateRefused] == len(outs):
		err = river.JobCancel(summary(msgs, outs, fateRefused, "refused"))
	}
	rerr := recordVerdicts(ctx, w.cfg.DB, vs)
	switch {
	case rerr == nil:
		return err
	case count[fateRetry] > 0:
		return errors.Join(err, rerr)
	}
	// Refusals not written: retried rather than completed, snoozed or
	// cancelled, so that the next attempt writes them.
	return errors.Join(summary(msgs, outs, fateRefused, "refused"), rerr)
}

// recordUnstored writes the messages sent whose outcome the SDK could not
// write (the database failed just then), one ledger update per project;
// those it cannot write either are retried, and a retry finds them by a
// look-up.
func (w *Worker) recordUnstored(ctx context.Context, msgs []SendArgs, outs []outcome) {
	byProp := map[string][]int{}
	var props []string
	for i, o := range outs {
		if o.fate == fateSent && w.ledger.unstoredKey(msgs[i].PropertySid, msgs[i].ExternalID) {
			p := msgs[i].PropertySid
			if _, ok := byProp[p]; !ok {
				props = append(props, p)
			}
			byProp[p] = append(byProp[p], i)
		}
	}
	for _, p := range props {
		idx := byProp[p]
		ids := make([]string, len(idx))
		ms := make([]*telco.Message, len(idx))
		for k, i := range idx {
			ids[k], ms[k] = msgs[i].ExternalID, outs[i].msg
		}
		if err := w.ledger.markSent(ctx, p, ids, ms); err != nil {
			for _, i := range idx {
				outs[i] = outcome{fate: fateRetry, err: fmt.Errorf("sent as %s, but not recorded: %w", outs[i].msg.MessageSid, err)}
			}
		}
	}
}

// summary is the error of the messages of one fate: the message's own
// error when the job has one message, else a count with the first.
func summary(msgs []SendArgs, outs []outcome, f fate, what string) error {
	n, first := 0, -1
	for i, o := range outs {
		if o.fate == f {
			n++
			if first < 0 {
				first = i
			}
		}
	}
	if first < 0 {
		return fmt.Errorf("riversend: no message %s", what)
	}
	err := outs[first].err
	if err == nil {
		err = errors.New("no error given")
	}
	if len(outs) == 1 {
		return err
	}
	return fmt.Errorf("riversend: %d of %d messages %s; the first, ExternalId %s: %w",
		n, len(outs), what, strconv.Quote(msgs[first].ExternalID), err)
}

// MessageWorker is the River worker of SendArgs, jobs of one message:
// those that earlier versions of Enqueue inserted, and those inserted with
// River's Insert. It sends with SendOnce and settles the job as Worker
// settles a message: completed when sent, cancelled when refused, snoozed
// on a 429, retried otherwise. Register it beside the Worker while such
// jobs may remain: river.AddWorker(workers, w.MessageWorker()).
type MessageWorker struct {
	river.WorkerDefaults[SendArgs]
	w *Worker
}

// MessageWorker returns the worker of jobs of one message, sending as w
// does.
func (w *Worker) MessageWorker() *MessageWorker { return &MessageWorker{w: w} }

// Timeout is WorkerConfig.JobTimeout, as for the Worker.
func (m *MessageWorker) Timeout(*river.Job[SendArgs]) time.Duration { return m.w.cfg.JobTimeout }

// Work sends the job's message once, with SendOnce on the Ledger; see
// Worker.Work for how a message is settled.
func (m *MessageWorker) Work(ctx context.Context, job *river.Job[SendArgs]) error {
	msgs := []SendArgs{job.Args}
	outs := make([]outcome, 1)
	if err := checkArgs(&msgs[0]); err != nil {
		outs[0] = outcome{fate: fateRefused, err: err}
	} else {
		outs[0] = m.w.sendOne(ctx, &msgs[0])
	}
	return m.w.settle(ctx, job.JobRow, msgs, outs)
}
