package telco

// Effectively-once sending: the one reconcile protocol behind SendOnce and
// SendBatchOnce, and through them the CLI and contrib/riversend, each of
// which only supplies where its records live (a Ledger).
//
// For each message the protocol works from its ledger record:
//
//  1. claim: in one ledger update for all the messages, a message already
//     sent is answered from the record; one held by a live attempt of
//     another caller is waited for; one in doubt is left for a look-up;
//     any other is claimed (LedgerSending, with the attempt's times) before
//     its request, so that every attempt that may reach the service,
//     whoever makes it, is on record;
//  2. send the claimed ones in one request and record each outcome: sent,
//     refused, not sent, or in doubt;
//  3. look up the messages in doubt, once SettleTime has passed since the
//     later of the start and the end of their last attempt, in one scan
//     from their first attempt; found ones are sent, missing ones are
//     cleared for sending again, except that when a look-up finds part of
//     one request's messages the rest is given another settle round (the
//     service is still storing it);
//  4. repeat until every message is settled, the look-ups run out
//     (MaxRounds) or ctx ends.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// ReconcilePolicy governs how SendOnce and SendBatchOnce settle a send
// whose outcome is unknown (an error matching ErrMaybeSent): wait
// SettleTime, look the ExternalIds up with one scan of Find, and send
// again only what was not found, for at most MaxRounds look-ups. Zero
// fields take the defaults of DefaultReconcilePolicy; negative ones make
// NewClient fail.
type ReconcilePolicy struct {
	// SettleTime is how long after an attempt that may have reached the
	// service its message is looked up, counted from the later of the
	// attempt's start and its end (when known): it should exceed the
	// longest time the service takes to show a message it accepted in a
	// search, processing after a client hung up included. A message still
	// being stored when the window is read is not found, and is sent a
	// second time. Default 5s.
	SettleTime time.Duration
	// MaxRounds bounds the look-ups of one call, and with them the sends:
	// a message is sent again only when two look-ups a settle time apart
	// found it missing and another look-up may follow the new send.
	// Default 4: enough to resend a message the service never got once.
	MaxRounds int
	// ClockSkew widens the search window on both sides, for the
	// difference between the clock that writes the service's Date header
	// (which places the window) and the one that stamps a message's
	// Created, and for drift since the last answer. Default 30s: real
	// gateways and their back ends disagree by seconds, and a wider
	// window costs only a few more messages scanned.
	ClockSkew time.Duration
}

// DefaultReconcilePolicy returns the policy a Client uses without
// WithReconcilePolicy: settle 5s, 4 rounds, 30s of clock skew.
func DefaultReconcilePolicy() ReconcilePolicy {
	return ReconcilePolicy{SettleTime: 5 * time.Second, MaxRounds: 4, ClockSkew: 30 * time.Second}
}

// WithReconcilePolicy replaces DefaultReconcilePolicy for SendOnce,
// SendBatchOnce, FindByExternalID and ListByExternalID.
func WithReconcilePolicy(p ReconcilePolicy) Option {
	return func(c *clientConfig) { c.reconcile = p }
}

// UnresolvedError is returned by SendOnce and SendBatchOnce when they
// could not tell whether messages were sent: the rounds of the
// ReconcilePolicy ran out, a look-up kept failing, another caller's
// attempt was still in flight, or the context ended while waiting. The
// ledger keeps the messages in doubt, so that the next call for them
// looks them up before sending. It matches ErrMaybeSent, and through
// Unwrap the last failure (errors.Is(err, context.Canceled) holds after a
// cancellation).
type UnresolvedError struct {
	Op          string   // "Messages.SendOnce" or "Messages.SendBatchOnce"
	ExternalIDs []string // the messages whose fate is unknown, in input order
	Rounds      int      // look-ups made
	Err         error    // the last failure: of a send, a look-up or the context
}

// Error names the ExternalIds and the last failure.
func (e *UnresolvedError) Error() string {
	var b strings.Builder
	b.WriteString("telco: " + e.Op + ": ")
	if len(e.ExternalIDs) == 1 {
		b.WriteString("ExternalId " + strconv.Quote(e.ExternalIDs[0]))
	} else {
		b.WriteString("ExternalIds ")
		for i, id := range e.ExternalIDs {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.Quote(id))
		}
	}
	fmt.Fprintf(&b, " unresolved after %d look-ups", e.Rounds)
	if e.Err != nil {
		b.WriteString(": " + e.Err.Error())
	}
	if !errors.Is(e.Err, ErrMaybeSent) {
		b.WriteString(" (" + ErrMaybeSent.Error() + ")")
	}
	return b.String()
}

// Unwrap returns the last failure.
func (e *UnresolvedError) Unwrap() error { return e.Err }

// Is reports that an UnresolvedError always matches ErrMaybeSent.
func (e *UnresolvedError) Is(target error) bool { return target == ErrMaybeSent }

// SendOnce sends one SMS at most once in effect: across failures after
// the service acted, and across calls that share the Client's Ledger (a
// memory ledger of its own without WithLedger), so that a caller's own
// retry, a job redelivered or a second run of a program with a shared
// ledger does not send it twice. p.ExternalID is required, without
// leading or trailing blanks (a *ValidationError otherwise, before any
// request), and should be unique to this message within the project: it
// is how the message is found again.
//
// With a record on file, a message already sent is returned without a
// request; one whose earlier attempt may have reached the service is
// looked up before anything is sent; and the same ExternalId with another
// To, From, Text or Schedule is refused with an error matching
// ErrExternalIDReused, nothing sent. Otherwise SendOnce records the
// attempt and calls Send. When that fails in a way that matches
// ErrMaybeSent, it waits ReconcilePolicy.SettleTime, looks the ExternalId
// up among the project's messages since the first attempt and returns the
// stored message when it is there; when it is not, it sends again, for at
// most MaxRounds look-ups. Sends are never retried blindly, whatever
// RetryPolicy.RetryUnsafe says. Any other error of Send (a rejection, a
// failure before the request left) is returned as is. The result is
// uncertain only when the rounds run out, a look-up keeps failing or ctx
// ends: the error is then an *UnresolvedError that matches ErrMaybeSent
// and names the ExternalId.
func (s *MessagesService) SendOnce(ctx context.Context, propertySid string, p *SendMessageParams) (*Message, error) {
	const op = "Messages.SendOnce"
	// Checked here, not only in Send, so a refusal names this method.
	if err := s.client.precheck(op, "PropertySid", propertySid, p != nil, func() fieldErrs { return p.check(time.Now()) }); err != nil {
		return nil, err
	}
	var fe fieldErrs
	checkExternalID(&fe, "ExternalId", p.ExternalID)
	if err := fe.err(op); err != nil {
		return nil, err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	// The run of a single send is pooled: on the happy path it is most of
	// what SendOnce allocates beyond Send.
	r := onceRuns.Get().(*onceRun)
	r.oneMsg[0] = *p
	r.start(s, op, propertySid, r.oneMsg[:], true)
	err := r.run(ctx)
	res := r.items[0].result
	r.reset()
	onceRuns.Put(r)
	if err != nil {
		return nil, err
	}
	if res.Err != nil {
		return nil, res.Err
	}
	return res.Message, nil
}

// onceRuns pools the runs of SendOnce.
var onceRuns = sync.Pool{New: func() any { return new(onceRun) }}

// checkExternalID applies the rules of an ExternalId that a message is
// found again by: present, and without leading or trailing blanks, which
// a service that trims them would not match.
func checkExternalID(fe *fieldErrs, name, id string) {
	switch {
	case id == "":
		fe.add(CodeParameterRequired, name, name+" is required: it is how a message that may have been sent is found again")
	case strings.TrimSpace(id) != id:
		fe.invalid(name, name+" has leading or trailing blanks, which the service may trim: the message could not be found again by it")
	}
}

// SendBatchOnce is SendOnce for a batch: every element needs an
// ExternalID, distinct within the batch and without leading or trailing
// blanks (a *ValidationError otherwise, before any request). Elements the
// ledger holds as sent are answered from it; the others are claimed and
// sent in one SendBatch; after a failure of the whole batch that matches
// ErrMaybeSent, it settles, finds the batch's ExternalIds in one scan,
// and sends again, in one batch, only the elements not found (when a
// look-up finds part of the batch, the rest is given another settle
// round first: the service may still be storing it). The results align
// with msgs as SendBatch's do: elements found carry the stored message,
// elements the service rejected their *APIError.
//
// When err is not nil, the results are returned all the same, aligned with
// msgs: an element with neither Message nor Err was not confirmed. The
// error is an *UnresolvedError naming those ExternalIds when their fate is
// unknown, an error matching ErrExternalIDReused when an ExternalId the
// ledger holds comes with a different message (nothing sent), or the
// failure of a send that reached no decision on them (such as a
// whole-batch rejection).
func (s *MessagesService) SendBatchOnce(ctx context.Context, propertySid string, msgs []SendMessageParams) ([]BatchResult, error) {
	const op = "Messages.SendBatchOnce"
	if err := pathParam(op, "PropertySid", propertySid); err != nil {
		return nil, err
	}
	if len(msgs) == 0 {
		return nil, &ValidationError{Op: op, Fields: []FieldError{{Code: CodeParameterRequired,
			FieldName: "Messages", Message: "Messages needs at least one message"}}}
	}
	var fe fieldErrs
	first := make(map[string]int, len(msgs))
	for i := range msgs {
		id := msgs[i].ExternalID
		name := "Messages[" + strconv.Itoa(i) + "].ExternalId"
		n := len(fe)
		if checkExternalID(&fe, name, id); len(fe) > n {
			continue
		}
		if j, dup := first[id]; dup {
			fe.invalid(name, fmt.Sprintf("%s repeats the ExternalId of Messages[%d]", name, j))
			continue
		}
		first[id] = i
	}
	if err := fe.err(op); err != nil {
		return nil, err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	r := new(onceRun)
	r.start(s, op, propertySid, msgs, false)
	err := r.run(ctx)
	res := make([]BatchResult, len(msgs))
	for i := range r.items {
		res[i] = r.items[i].result
	}
	return res, err
}

// start readies r, new or reset, for a run of msgs.
func (r *onceRun) start(s *MessagesService, op, propertySid string, msgs []SendMessageParams, single bool) {
	r.s, r.op, r.prop, r.msgs, r.single = s, op, propertySid, msgs, single
	r.pol, r.ledger = s.client.once.policy, s.client.ledger
	if len(msgs) == 1 {
		// The common case, in the run's own allocation.
		r.items, r.outBuf = r.one[:], r.oneOut[:0]
		r.sendBuf, r.lookBuf, r.heldBuf = r.oneSend[:0], r.oneLook[:0], r.oneHeld[:0]
	} else {
		r.items = make([]onceItem, len(msgs))
	}
	for i := range msgs {
		r.items[i].id = msgs[i].ExternalID
		r.items[i].digest = messageDigest(&msgs[i])
	}
	r.mem, _ = r.ledger.(*memoryLedger)
	if r.claimFn == nil {
		// Bound once per run value: a pooled run allocates them once.
		r.claimFn, r.recordFn = r.claimRecs, r.recordRecs
	}
}

// reset clears r for the pool: nothing of the call it served stays.
func (r *onceRun) reset() {
	*r = onceRun{claimFn: r.claimFn, recordFn: r.recordFn}
}

// onceRun is one call of SendOnce or SendBatchOnce.
type onceRun struct {
	s      *MessagesService
	op     string
	prop   string
	msgs   []SendMessageParams
	single bool
	pol    ReconcilePolicy
	ledger Ledger
	// mem is the ledger when it is a memoryLedger, which needs no time
	// limits and is told where a record was last.
	mem *memoryLedger
	// slot is where the memory ledger last held this run's single
	// message: the outcome's update finds its claim there.
	slot int32

	items   []onceItem
	rounds  int   // look-ups made
	lastErr error // the last failure that left a message in doubt
	// doubtAt is when this call last saw an attempt end in doubt: settle
	// counts from then for its messages.
	doubtAt time.Time

	// Room for a single message, and buffers reused from round to round.
	one     [1]onceItem
	idBuf   []string
	openBuf []int
	outBuf  []LedgerRecord
	sendBuf []int
	lookBuf []int
	heldBuf []int
	oneIdx  [1]int
	oneID   [1]string
	oneOut  [1]LedgerRecord
	oneSend [1]int
	oneLook [1]int
	oneHeld [1]int
	oneMsg  [1]SendMessageParams

	// The functions given to Ledger.Update, bound to r once, and their
	// arguments: closures would cost an allocation per update.
	claimFn, recordFn func([]LedgerRecord) error
	cOpen             []int
	cNow, cHold       time.Time
	cMayResend        bool
	rIdx              []int
	rOutcome          []LedgerRecord
}

// onceItem is one message of a run.
type onceItem struct {
	id, digest string
	seen       LedgerRecord // its record as this run last knew it
	result     BatchResult
	done       bool // result is final
	// missedAt is when a look-up of this run last missed it: a message
	// is sent again only after two look-ups a settle time apart miss it.
	missedAt time.Time
}

// Waits for a message another caller holds: polled, from the first to the
// last, doubling.
const (
	holdPollMin = 10 * time.Millisecond
	holdPollMax = 500 * time.Millisecond
)

// outcomeTimeout bounds the ledger write of an outcome, which runs even
// after ctx ended: a message sent as the caller gave up is still worth
// recording.
const outcomeTimeout = 10 * time.Second

// claimMargin is added to the longest a send can last to make a claim: the
// time to record its outcome.
const claimMargin = 2 * time.Second

func (r *onceRun) run(ctx context.Context) error {
	poll := holdPollMin
	for {
		open := r.open()
		if len(open) == 0 {
			return nil
		}
		send, look, held, err := r.claim(ctx, open)
		if err != nil {
			return r.fail(err)
		}
		switch {
		case len(send) > 0:
			if err := r.send(ctx, send); err != nil {
				return err
			}
		case len(look) > 0:
			if r.rounds >= r.pol.MaxRounds {
				return r.unresolved(errOrMaybe(r.lastErr))
			}
			if err := r.settle(ctx, look); err != nil {
				return r.unresolved(err)
			}
			r.lookUp(ctx, look)
		case len(held) > 0:
			if err := sleepCtx(ctx, poll); err != nil {
				return r.unresolved(fmt.Errorf("waiting for another attempt in progress: %w", err))
			}
			poll = min(2*poll, holdPollMax)
		case len(r.open()) == 0:
			return nil // every one was sent already
		default:
			// Nothing claimable and nothing to look up: the look-ups ran
			// out with messages not found, which are not sent again.
			return r.unresolved(fmt.Errorf("not found after the last look-up, not sent again: %w", errOrMaybe(r.lastErr)))
		}
	}
}

// open lists the messages not settled yet, in a buffer of the run's.
func (r *onceRun) open() []int {
	out := r.openBuf[:0]
	if len(r.items) == 1 {
		out = r.oneIdx[:0]
	}
	for i := range r.items {
		if !r.items[i].done {
			out = append(out, i)
		}
	}
	if len(r.items) > 1 {
		r.openBuf = out
	}
	return out
}

// idsOf lists the ExternalIds of idx, in a buffer of the run's: a Ledger
// does not keep the slice it is given.
func (r *onceRun) idsOf(idx []int) []string {
	if len(idx) == 1 {
		r.oneID[0] = r.items[idx[0]].id
		return r.oneID[:]
	}
	out := r.idBuf[:0]
	for _, i := range idx {
		out = append(out, r.items[i].id)
	}
	r.idBuf = out
	return out
}

// detached is a context for a ledger write that must happen even after
// ctx ended, bounded by outcomeTimeout; a memory ledger needs no bound.
func (r *onceRun) detached(ctx context.Context) (context.Context, context.CancelFunc) {
	if r.mem != nil {
		return context.Background(), func() {} // it reads nothing of ctx but its end
	}
	return context.WithTimeout(context.WithoutCancel(ctx), outcomeTimeout)
}

// claim reads the records of open in one ledger update and sorts them:
// send (claimed now for a request), look (in doubt: a look-up first) and
// held (another caller's attempt is in flight). Sent records settle their
// message at once.
func (r *onceRun) claim(ctx context.Context, open []int) (send, look, held []int, err error) {
	now := time.Now()
	r.cOpen, r.cNow, r.cHold = open, now, now.Add(r.claimFor(ctx, now))
	r.cMayResend = r.rounds < r.pol.MaxRounds
	err = r.update(ctx, open, now, r.claimFn)
	r.cOpen = nil
	send, look, held = r.sendBuf, r.lookBuf, r.heldBuf
	if err != nil {
		return nil, nil, nil, err
	}
	for _, i := range open {
		if it := &r.items[i]; it.seen.State == LedgerSent && it.seen.Message != nil {
			m := *it.seen.Message
			m.Text = r.msgs[i].Text
			it.result, it.done = BatchResult{Message: &m}, true
		}
	}
	return send, look, held, nil
}

// update is r.ledger.Update of idx's records, told the time the run read
// just before and, for the memory ledger, where its record was last.
func (r *onceRun) update(ctx context.Context, idx []int, now time.Time, fn func([]LedgerRecord) error) error {
	if r.mem != nil {
		return r.mem.update(ctx, r.prop, r.idsOf(idx), &r.slot, now, fn)
	}
	return r.ledger.Update(ctx, r.prop, r.idsOf(idx), fn)
}

// claimRecs is claim's function for Ledger.Update, on r.cOpen's records.
// The lists are built in r's buffers.
func (r *onceRun) claimRecs(recs []LedgerRecord) error {
	open, now, hold := r.cOpen, r.cNow, r.cHold
	r.sendBuf, r.lookBuf, r.heldBuf = r.sendBuf[:0], r.lookBuf[:0], r.heldBuf[:0]
	for k, i := range open {
		if d := recs[k].Digest; d != "" && d != r.items[i].digest {
			return r.reused(open, recs)
		}
	}
	for k, i := range open {
		rec, it := &recs[k], &r.items[i]
		if prev := it.seen; rec.State == LedgerSending && prev.Attempts == rec.Attempts &&
			prev.Last.Equal(rec.Last) && !prev.Ended.IsZero() {
			// This run's own claim, whose outcome it could not
			// record: it saw the attempt end. Record it now.
			*rec = prev
		}
		it.seen = *rec
		switch rec.State {
		case LedgerSent:
			continue // settled below, once the update is stored
		case LedgerSending:
			if rec.Claim.After(now) {
				r.heldBuf = append(r.heldBuf, i)
			} else {
				r.lookBuf = append(r.lookBuf, i) // its maker stopped without a word
			}
			continue
		case LedgerInDoubt:
			r.lookBuf = append(r.lookBuf, i)
			continue
		}
		if !r.cMayResend {
			continue
		}
		rec.State, rec.Digest = LedgerSending, it.digest
		rec.Attempts++
		if rec.First.IsZero() {
			rec.First = now
		}
		rec.Last, rec.Ended, rec.Claim = now, time.Time{}, hold
		rec.Message, rec.Err, rec.Found = nil, nil, false
		it.seen = *rec
		r.sendBuf = append(r.sendBuf, i)
	}
	return nil
}

// reused is the error of a claim that met ExternalIds the ledger holds for
// other messages.
func (r *onceRun) reused(open []int, recs []LedgerRecord) error {
	e := &reusedError{op: r.op}
	for k, i := range open {
		if d := recs[k].Digest; d != "" && d != r.items[i].digest {
			e.ids = append(e.ids, r.items[i].id)
		}
	}
	return e
}

// claimFor is how long a claim holds a message: the longest a send can
// last (every attempt timing out, with the waits between), bounded by
// ctx's deadline, with a margin for recording its outcome.
func (r *onceRun) claimFor(ctx context.Context, now time.Time) time.Duration {
	c := r.s.client
	d := time.Duration(c.retry.MaxRetries+1)*c.attemptTimeout + time.Duration(c.retry.MaxRetries)*c.retry.MaxWait
	if dl, ok := ctx.Deadline(); ok {
		d = min(d, max(dl.Sub(now), 0))
	}
	return d + claimMargin
}

// send sends the claimed messages in one request and records their
// outcomes. It returns the error of a request that settled nothing
// without a doubt (a rejection of the whole request, a failure before it
// left), for the caller to return as is.
func (r *onceRun) send(ctx context.Context, idx []int) error {
	var res []BatchResult
	var one [1]BatchResult
	var err error
	if r.single {
		var m *Message
		if m, err = r.s.send(ctx, r.prop, &r.msgs[idx[0]], true); err == nil {
			one[0].Message, res = m, one[:]
		} else if ae := (*APIError)(nil); !errors.Is(err, ErrMaybeSent) && errors.As(err, &ae) && ae.StatusCode != 0 {
			one[0].Err, res = ae, one[:] // the service refused it
		}
	} else {
		batch := make([]SendMessageParams, len(idx))
		for k, i := range idx {
			batch[k] = r.msgs[i]
		}
		res, err = r.s.sendBatch(ctx, r.prop, batch, true)
	}
	ended := time.Now()
	doubt := err != nil && errors.Is(err, ErrMaybeSent)
	if doubt {
		r.doubtAt, r.lastErr = ended, err
	}
	outcome := r.outBuf[:0]
	for k, i := range idx {
		it := &r.items[i]
		o := it.seen
		switch {
		case res != nil && res[k].Message != nil:
			o.State, o.Message, o.Ended = LedgerSent, r.keepable(res[k].Message), ended
			it.result, it.done = res[k], true
		case res != nil && res[k].Err != nil:
			o.State, o.Err, o.Ended = LedgerRefused, res[k].Err, ended
			it.result, it.done = res[k], true
		case doubt:
			o.State, o.Ended = LedgerInDoubt, ended
		default:
			o.State, o.Ended = LedgerNotSent, ended
			if ae := (*APIError)(nil); errors.As(err, &ae) {
				o.State, o.Err = LedgerRefused, ae
			}
		}
		outcome = append(outcome, o)
	}
	r.outBuf = outcome
	r.record(ctx, idx, outcome, ended)
	if r.single && res != nil {
		return nil // settled: a refusal is the result
	}
	if err != nil && !doubt {
		return err
	}
	return nil
}

// record stores the outcomes of this run's attempt on idx, over the
// claims it made: a record another caller has claimed since (this claim
// having expired) is left to it, except that a sent message is always
// recorded. A failure to record is not reported: the claim then expires
// and the next caller looks the message up.
func (r *onceRun) record(ctx context.Context, idx []int, outcome []LedgerRecord, now time.Time) {
	ctx, cancel := r.detached(ctx)
	defer cancel()
	r.rIdx, r.rOutcome = idx, outcome
	_ = r.update(ctx, idx, now, r.recordFn)
	r.rIdx, r.rOutcome = nil, nil
	for k, i := range idx {
		r.items[i].seen = outcome[k]
	}
}

// recordRecs is record's function for Ledger.Update: r.rOutcome over
// r.rIdx's records.
func (r *onceRun) recordRecs(recs []LedgerRecord) error {
	for k := range r.rIdx {
		cur, o := &recs[k], r.rOutcome[k]
		mine := cur.State == LedgerSending && cur.Attempts == o.Attempts && cur.Last.Equal(o.Last)
		switch {
		case cur.State == LedgerSent:
		case o.State == LedgerSent, mine:
			o.Attempts = max(o.Attempts, cur.Attempts)
			*cur = o
		case o.State == LedgerInDoubt && cur.State != LedgerSending:
			cur.State, cur.Ended = LedgerInDoubt, o.Ended
		}
	}
	return nil
}

// keepable is m as a ledger may keep it: without its Text. The memory
// ledger packs the message without its Text itself, sparing a copy.
func (r *onceRun) keepable(m *Message) *Message {
	if r.mem != nil {
		return m
	}
	return stripText(m)
}

// stripText copies m without its Text, for a ledger that should keep no
// message text.
func stripText(m *Message) *Message {
	c := *m
	c.Text = ""
	return &c
}

// settle waits until SettleTime has passed since the last attempt on
// each message of look, and since this run last saw one end in doubt. An
// attempt whose maker stopped without a word may have lasted until its
// claim ran out: settle counts from then.
func (r *onceRun) settle(ctx context.Context, look []int) error {
	var from time.Time
	for _, i := range look {
		rec := r.items[i].seen
		from = later(from, later(rec.Last, rec.Ended))
		if rec.State == LedgerSending {
			from = later(from, rec.Claim)
		}
	}
	from = later(from, r.doubtAt)
	return sleepCtx(ctx, time.Until(from.Add(r.pol.SettleTime)))
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// lookUp finds the messages of look in one scan from their first attempt
// and records what it learnt: found ones are sent; missing ones may be
// sent again once a second look-up, a settle time after the first, has
// missed them too (a service may go on processing a request after the
// client hung up, and then show it only a settle time later), and no
// other message of their request turned up meanwhile (the service still
// storing it).
func (r *onceRun) lookUp(ctx context.Context, look []int) {
	r.rounds++
	var since time.Time
	for _, i := range look {
		rec := r.items[i].seen
		f := rec.First
		if f.IsZero() {
			f = rec.Last
		}
		if f.IsZero() {
			f = time.Now().Add(-DefaultLedgerAge) // a record that lost its times
		}
		if since.IsZero() || f.Before(since) {
			since = f
		}
	}
	ids := append([]string(nil), r.idsOf(look)...) // the scan may outlive this call's buffers
	found, err := r.s.client.once.lookup(ctx, r.s, r.prop, since, ids, false)
	if err != nil {
		r.lastErr = lookupFailed(r.op, err)
		return
	}
	// Requests (by the start of their last attempt) of which this look-up
	// found some messages.
	now := time.Now()
	foundOf := map[int64]bool{}
	for _, i := range look {
		if _, ok := found[r.items[i].id]; ok {
			foundOf[r.items[i].seen.Last.UnixMicro()] = true
		}
	}
	outcome := make([]LedgerRecord, len(look))
	for k, i := range look {
		it := &r.items[i]
		o := it.seen
		if m, ok := found[it.id]; ok {
			ms := m[0]
			o.State, o.Message, o.Found = LedgerSent, stripText(&ms), true
			ms.Text = r.msgs[i].Text
			it.result, it.done = BatchResult{Message: &ms}, true
		} else if foundOf[o.Last.UnixMicro()] || it.missedAt.IsZero() {
			// Missing, but its request's other messages are still
			// arriving, or this is the first look-up to miss it: the
			// service may have gone on processing after the client hung
			// up, so another settle round from now before a resend.
			o.State, o.Ended = LedgerInDoubt, now
			it.missedAt = now
		} else {
			o.State = LedgerNotSent // missed twice, a settle time apart
			r.lastErr = fmt.Errorf("not found by two look-ups a settle time apart: %w", errOrMaybe(r.lastErr))
		}
		outcome[k] = o
	}
	ctx, cancel := r.detached(ctx)
	defer cancel()
	err = r.ledger.Update(ctx, r.prop, r.idsOf(look), func(recs []LedgerRecord) error {
		for k, i := range look {
			cur, o, was := &recs[k], outcome[k], r.items[i].seen
			switch {
			case cur.State == LedgerSent:
			case o.State == LedgerSent:
				*cur = o
			case cur.State == was.State && cur.Attempts == was.Attempts:
				*cur = o // unchanged since the claim read it
			}
		}
		return nil
	})
	if err != nil {
		// Not recorded: the records still say in doubt, and the next
		// claim will look again rather than send.
		r.lastErr = lookupFailed(r.op, err)
		return
	}
	for k, i := range look {
		r.items[i].seen = outcome[k]
	}
}

func errOrMaybe(err error) error {
	if err == nil {
		return ErrMaybeSent
	}
	return err
}

// fail returns a failure of the ledger (or a reuse of an ExternalId) that
// stopped the protocol before a send: unresolved when messages this run
// sent or found in doubt are left so.
func (r *onceRun) fail(err error) error {
	var re *reusedError
	if errors.As(err, &re) {
		return err
	}
	err = fmt.Errorf("telco: %s: ledger: %w", r.op, err)
	for _, i := range r.open() {
		if s := r.items[i].seen.State; s == LedgerSending || s == LedgerInDoubt {
			return r.unresolved(err)
		}
	}
	return err
}

// unresolved is an *UnresolvedError naming the messages not settled.
func (r *onceRun) unresolved(err error) error {
	open := r.open()
	ids := make([]string, len(open))
	for k, i := range open {
		ids[k] = r.items[i].id
	}
	return &UnresolvedError{Op: r.op, ExternalIDs: ids, Rounds: r.rounds, Err: err}
}

// reusedError is an ExternalId met with a message other than the one the
// ledger holds for it.
type reusedError struct {
	op  string
	ids []string
}

func (e *reusedError) Error() string {
	q := make([]string, len(e.ids))
	for i, id := range e.ids {
		q[i] = strconv.Quote(id)
	}
	return "telco: " + e.op + ": ExternalId " + strings.Join(q, ", ") + ": " + ErrExternalIDReused.Error() +
		" (another To, From, Text or Schedule); nothing sent"
}

func (e *reusedError) Is(target error) bool { return target == ErrExternalIDReused }

// lookupFailed is a failed look-up: the send it follows is still in
// doubt, so it matches ErrMaybeSent.
func lookupFailed(op string, err error) error {
	return &maybeSentError{fmt.Errorf("telco: %s: looking the ExternalId up: %w", op, err)}
}

// FindByExternalID returns the transmitted messages of the project whose
// ExternalId is one of externalIDs, keyed by ExternalId (the first stored
// when one was stored twice; ListByExternalID returns them all); IDs not
// found are absent. One scan of Find serves all the IDs: it pages over a
// window from since to just after now until an empty page (a page shorter
// than asked does not end it: the service may cap its pages), stopping
// early once every ID is found.
//
// since is read on the caller's clock, typically time.Now() taken before
// the first send. The window is placed on the service's clock, learnt from
// the Date header of its successful answers (one small Find learns it when
// the Client has had none yet; an error page from a gateway in front of
// the service does not count), widened by ReconcilePolicy.ClockSkew, and
// extended when the service's clock turns out to be past its end.
// Date_From is the second of since, rounded down; Date_To, exclusive, the
// second after now, so both edges are covered. Concurrent calls for the
// same project that are waiting at the same time share one scan: a scan
// serves the callers that joined before it began, and the next scan the
// ones that joined while it ran.
func (s *MessagesService) FindByExternalID(ctx context.Context, propertySid string, since time.Time, externalIDs ...string) (map[string]Message, error) {
	const op = "Messages.FindByExternalID"
	if err := checkLookup(op, propertySid, since, externalIDs); err != nil {
		return nil, err
	}
	found, err := s.client.once.lookup(ctx, s, propertySid, since, externalIDs, false)
	if err != nil {
		return nil, err
	}
	out := make(map[string]Message, len(found))
	for id, ms := range found {
		out[id] = ms[0]
	}
	return out, nil
}

// ListByExternalID is FindByExternalID returning every message stored
// with each ExternalId, in the order the service lists them: more than
// one is a duplicate, which is what an operator checking a send is
// looking for. It always scans the whole window.
func (s *MessagesService) ListByExternalID(ctx context.Context, propertySid string, since time.Time, externalIDs ...string) (map[string][]Message, error) {
	const op = "Messages.ListByExternalID"
	if err := checkLookup(op, propertySid, since, externalIDs); err != nil {
		return nil, err
	}
	return s.client.once.lookup(ctx, s, propertySid, since, externalIDs, true)
}

// checkLookup checks the arguments of a look-up by ExternalId.
func checkLookup(op, propertySid string, since time.Time, externalIDs []string) error {
	if err := pathParam(op, "PropertySid", propertySid); err != nil {
		return err
	}
	var fe fieldErrs
	if since.IsZero() {
		fe.add(CodeParameterRequired, "since", "since is required: the start of the window to search")
	}
	if len(externalIDs) == 0 {
		fe.add(CodeParameterRequired, "ExternalId", "at least one ExternalId is required")
	}
	for i, id := range externalIDs {
		if id == "" {
			fe.add(CodeParameterRequired, "ExternalId", "ExternalId "+strconv.Itoa(i)+" is empty")
		}
	}
	return fe.err(op)
}

// sleepCtx waits d, or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// onceState is a Client's machinery for SendOnce: its policy, what it
// knows of the service's clock, and the scans in progress per project.
type onceState struct {
	policy ReconcilePolicy
	clock  serviceClock

	mu    sync.Mutex
	scans map[string]*scanQueue // by project SID; present while a scanner runs
}

func newOnceState(p ReconcilePolicy) (*onceState, error) {
	if p.SettleTime < 0 || p.MaxRounds < 0 || p.ClockSkew < 0 {
		return nil, errors.New("telco: NewClient: negative value in ReconcilePolicy")
	}
	d := DefaultReconcilePolicy()
	if p.SettleTime == 0 {
		p.SettleTime = d.SettleTime
	}
	if p.MaxRounds == 0 {
		p.MaxRounds = d.MaxRounds
	}
	if p.ClockSkew == 0 {
		p.ClockSkew = d.ClockSkew
	}
	return &onceState{policy: p, scans: map[string]*scanQueue{}}, nil
}

// observe learns the service's clock from the Date header of a call's
// successful answer, and hands the header to the call's probe when a
// scan set one. An error page may come from a gateway in front of the
// service, whose clock is not the one that stamps messages: request.go
// calls observe only for 2xx answers.
func (o *onceState) observe(resp *http.Response, sent time.Time, probe *dateProbe) {
	v := resp.Header.Get("Date")
	if v == "" {
		return
	}
	if d, ok := o.clock.observe(v, sent, time.Now()); ok && probe != nil {
		probe.first.CompareAndSwap(0, d)
	}
}

// serviceClock estimates the offset of the service's clock from the
// caller's. A Date header D (whole seconds, rounded down) answering a
// request sent at local time s and received at r says the service's time
// was in [D, D+1) at a local time in [s, r], so its offset is in
// [D-r, D+1-s]. Samples are intersected, which narrows the interval to
// well under a second once answers come in every second; the intersection
// restarts when it comes out empty (a clock was stepped) or is older than
// a minute, so drift cannot accumulate in it.
type serviceClock struct {
	mu      sync.Mutex
	raw     string // the last Date header parsed, and its Unix seconds
	rawSec  int64
	lo, hi  time.Duration // offset bounds: service minus local
	epoch   time.Time     // when the current intersection began (local)
	samples int
}

// clockEpoch is how long samples are intersected before starting afresh.
const clockEpoch = time.Minute

func (c *serviceClock) observe(date string, sent, recv time.Time) (int64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	sec := c.rawSec
	if date != c.raw {
		t, err := http.ParseTime(date)
		if err != nil {
			return 0, false
		}
		c.raw, c.rawSec, sec = date, t.Unix(), t.Unix()
	}
	d := time.Unix(sec, 0)
	lo, hi := d.Sub(recv), d.Add(time.Second).Sub(sent)
	if c.samples > 0 && recv.Sub(c.epoch) < clockEpoch && max(lo, c.lo) <= min(hi, c.hi) {
		c.lo, c.hi = max(lo, c.lo), min(hi, c.hi)
	} else {
		c.lo, c.hi, c.epoch = lo, hi, recv
	}
	c.samples++
	return sec, true
}

// bounds returns the offset interval, and false before any Date header.
func (c *serviceClock) bounds() (lo, hi time.Duration, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lo, c.hi, c.samples > 0
}

// window places a search for messages created between the local times
// since and now on the service's clock, in the whole seconds Find takes:
// from (inclusive) rounded down, to (exclusive) the second after the last
// one that can hold a message created by now.
func window(since, now time.Time, lo, hi, skew time.Duration) (from, to int64) {
	return since.Add(lo - skew).Unix(), now.Add(hi+skew).Unix() + 1
}

// dateProbe receives the Date of the first answer of a scan, which tells
// whether the window reached the service's time when the scan began.
type dateProbe struct{ first atomic.Int64 }

// scanQueue holds the callers waiting for the next scan of one project.
type scanQueue struct{ waiting []*lookWaiter }

// lookWaiter is one caller of lookup.
type lookWaiter struct {
	ctx   context.Context // for its values: the scan outlives no caller's interest
	since time.Time
	ids   []string
	all   bool // every message of each ID, not only the first
	done  chan struct{}
	found map[string][]Message
	err   error
	left  bool       // gave up before a scan took it
	batch *scanBatch // the scan serving it, once taken
}

// scanBatch is one scan and the callers it serves; the scan is cancelled
// when every one of them has given up.
type scanBatch struct {
	live   int
	cancel context.CancelFunc
}

// lookup finds ids among the project's messages sent since the local time
// since, joining the project's next scan: scans run one after another per
// project, each serving every caller that joined before it began, so that
// callers reconciling at the same time share one.
func (o *onceState) lookup(ctx context.Context, s *MessagesService, propertySid string, since time.Time, ids []string, all bool) (map[string][]Message, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	w := &lookWaiter{ctx: ctx, since: since, ids: ids, all: all, done: make(chan struct{})}
	o.mu.Lock()
	q := o.scans[propertySid]
	start := q == nil
	if start {
		q = &scanQueue{}
		o.scans[propertySid] = q
	}
	q.waiting = append(q.waiting, w)
	o.mu.Unlock()
	if start {
		go o.runScans(s, propertySid, q)
	}
	select {
	case <-w.done:
		return w.found, w.err
	case <-ctx.Done():
		o.mu.Lock()
		select {
		case <-w.done: // served meanwhile
			o.mu.Unlock()
			return w.found, w.err
		default:
		}
		if w.batch == nil {
			w.left = true
		} else if w.batch.live--; w.batch.live == 0 {
			w.batch.cancel()
		}
		o.mu.Unlock()
		return nil, ctx.Err()
	}
}

// runScans serves the project's queue until it is empty.
func (o *onceState) runScans(s *MessagesService, propertySid string, q *scanQueue) {
	for {
		o.mu.Lock()
		var batch []*lookWaiter
		for _, w := range q.waiting {
			if !w.left {
				batch = append(batch, w)
			}
		}
		q.waiting = nil
		if len(batch) == 0 {
			delete(o.scans, propertySid)
			o.mu.Unlock()
			return
		}
		ctx, cancel := context.WithCancel(context.WithoutCancel(batch[0].ctx))
		b := &scanBatch{live: len(batch), cancel: cancel}
		since := batch[0].since
		want := map[string]struct{}{}
		all := false
		for _, w := range batch {
			w.batch = b
			if w.since.Before(since) {
				since = w.since
			}
			for _, id := range w.ids {
				want[id] = struct{}{}
			}
			all = all || w.all
		}
		o.mu.Unlock()

		found, err := o.scan(ctx, s, propertySid, since, want, all)
		cancel()
		o.mu.Lock()
		for _, w := range batch {
			if err != nil {
				w.err = err
			} else {
				w.found = make(map[string][]Message, len(w.ids))
				for _, id := range w.ids {
					if ms, ok := found[id]; ok {
						w.found[id] = ms
					}
				}
			}
			close(w.done)
		}
		o.mu.Unlock()
	}
}

// scan pages Find over the window once, collecting the wanted IDs (every
// message of each when all is set, else stopping once each is found). It
// pages with Results_Skip until an empty page: messages are only ever
// added, so a message stored before the scan began cannot be skipped,
// whatever the service's order (an insertion ahead of the cursor can only
// show one twice), and a service that caps its pages below the size asked
// still has every page read. A page that repeats the previous one ends
// the scan: the service ignores the position, and reading on would not
// show more.
func (o *onceState) scan(ctx context.Context, s *MessagesService, propertySid string, since time.Time, want map[string]struct{}, all bool) (map[string][]Message, error) {
	if _, _, ok := o.clock.bounds(); !ok {
		// No answer yet to read the service's clock from: ask for one.
		now := time.Now()
		if _, err := s.Find(ctx, propertySid, &FindMessagesParams{DateFrom: now.Add(-time.Second), DateTo: now.Add(time.Second),
			Direction: DirectionTransmit, ListParams: ListParams{Count: 1}}); err != nil {
			return nil, err
		}
	}
	// Without a Date header (bounds still unknown) the caller's clock is
	// used, widened by ClockSkew alone.
	lo, hi, _ := o.clock.bounds()
	skew := o.policy.ClockSkew
	from, to := window(since, time.Now(), lo, hi, skew)
	found := make(map[string][]Message, len(want))
	seen := map[string]struct{}{} // MessageSids, as a page may repeat one
	for {
		probe := &dateProbe{}
		p := &FindMessagesParams{DateFrom: time.Unix(from, 0), DateTo: time.Unix(to, 0), Direction: DirectionTransmit}
		var prev []Message
		for skip := 0; ; {
			p.Skip = skip
			page, err := s.find(ctx, propertySid, p, probe)
			if err != nil {
				return nil, err
			}
			if len(page.Items) == 0 || (prev != nil && samePage(page.Items, prev)) {
				break
			}
			for _, m := range page.Items {
				if _, ok := want[m.ExternalID]; !ok {
					continue
				}
				if _, dup := seen[m.MessageSid]; dup && m.MessageSid != "" {
					continue
				}
				seen[m.MessageSid] = struct{}{}
				found[m.ExternalID] = append(found[m.ExternalID], m)
				if !all && len(found) == len(want) {
					return found, nil
				}
			}
			skip += len(page.Items)
			prev = page.Items
		}
		// The first answer's Date is the service's time, rounded down,
		// once the scan had begun: every message stored before then has
		// Created at most that second. If the window ended before it,
		// search the seconds it missed.
		d := probe.first.Load()
		if d == 0 || d < to {
			return found, nil
		}
		from, to = to, d+1+int64((skew+time.Second-1)/time.Second)
	}
}
