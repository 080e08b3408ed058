package telco

// Effectively-once sending: the one reconcile protocol behind SendOnce and
// SendBatchOnce, and through them the CLI and contrib/riversend, each of
// which only supplies where its records live (a Ledger). Look-ups by
// ExternalId are in externalid.go, the service's clock in serviceclock.go.
//
// For each message the protocol works from its ledger record:
//
//  0. with ReconcilePolicy.LookBack, the messages the ledger has never
//     seen are looked up first, in one scan; found ones are recorded as
//     sent;
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
	"strconv"
	"strings"
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
	// LookBack, when positive, makes SendOnce and SendBatchOnce look an
	// ExternalId the ledger has never seen up among the project's
	// messages of the last LookBack before its first send, and answer
	// with the message found instead of sending: for a fresh ledger (a new
	// machine, a container, a lost file) that must not repeat what an
	// earlier one sent. It costs one scan of that window per call (one
	// for all the messages of a batch): a page request per 200 messages
	// the project sent in it. A message sent so recently that the
	// service's search does not show it yet (see SettleTime) is not
	// found. Zero (the default) sends without looking; FillLedger fills a
	// ledger once instead.
	LookBack time.Duration
}

// DefaultReconcilePolicy returns the policy a Client uses without
// WithReconcilePolicy: settle 5s, 4 rounds, 30s of clock skew, no look-up
// before a first send.
func DefaultReconcilePolicy() ReconcilePolicy {
	return ReconcilePolicy{SettleTime: 5 * time.Second, MaxRounds: 4, ClockSkew: 30 * time.Second}
}

// WithReconcilePolicy replaces DefaultReconcilePolicy for SendOnce,
// SendBatchOnce, FindByExternalID and ListByExternalID.
func WithReconcilePolicy(p ReconcilePolicy) Option {
	return func(c *clientConfig) { c.reconcile = p }
}

// normalize fills the zero fields with the defaults and rejects negative
// ones.
func (p ReconcilePolicy) normalize() (ReconcilePolicy, error) {
	if p.SettleTime < 0 || p.MaxRounds < 0 || p.ClockSkew < 0 || p.LookBack < 0 {
		return p, errors.New("telco: NewClient: negative value in ReconcilePolicy")
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
	return p, nil
}

// SendOnce sends one SMS at most once in effect: across failures after
// the service acted, and across calls that share the Client's Ledger (see
// Client.Ledger), so that a caller's own retry, a job redelivered or a
// second run of a program with a shared ledger does not send it twice.
// p.ExternalID is required, without leading or trailing blanks (a
// *ValidationError otherwise, before any request), and should be unique
// to this message within the project: it is how the message is found
// again.
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
	c := s.newOnceCall(op, propertySid, []SendMessageParams{*p}, false)
	if err := c.run(ctxOrBackground(ctx)); err != nil {
		return nil, err
	}
	if res := c.items[0].result; res.Err != nil {
		return nil, res.Err
	} else {
		return res.Message, nil
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
	c := s.newOnceCall(op, propertySid, msgs, true)
	err := c.run(ctxOrBackground(ctx))
	res := make([]BatchResult, len(msgs))
	for i := range c.items {
		res[i] = c.items[i].result
	}
	return res, err
}

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

// onceCall is one call of SendOnce or SendBatchOnce.
type onceCall struct {
	s      *MessagesService
	op     string
	prop   string
	msgs   []SendMessageParams
	batch  bool // sends go as SendBatch (SendBatchOnce), else as Send
	policy ReconcilePolicy
	ledger Ledger
	items  []onceItem // one per message, in input order

	rounds  int   // look-ups made
	lastErr error // the last failure that left a message in doubt
	// doubtAt is when this call last saw an attempt end in doubt: settle
	// counts from then for its messages.
	doubtAt time.Time
}

// onceItem is one message of a call.
type onceItem struct {
	id, digest string
	seen       LedgerRecord // its record as this call last knew it
	result     BatchResult
	done       bool // result is final
	// missedAt is when a look-up of this call last missed it: a message
	// is sent again only after two look-ups a settle time apart miss it.
	missedAt time.Time
}

func (s *MessagesService) newOnceCall(op, propertySid string, msgs []SendMessageParams, batch bool) *onceCall {
	c := &onceCall{s: s, op: op, prop: propertySid, msgs: msgs, batch: batch,
		policy: s.client.reconcile, ledger: s.client.ledger, items: make([]onceItem, len(msgs))}
	for i := range msgs {
		c.items[i].id, c.items[i].digest = msgs[i].ExternalID, messageDigest(&msgs[i])
	}
	return c
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

func (c *onceCall) run(ctx context.Context) error {
	if c.policy.LookBack > 0 {
		if err := c.lookUpFirst(ctx); err != nil {
			return c.fail(err)
		}
	}
	poll := holdPollMin
	for {
		open := c.open()
		if len(open) == 0 {
			return nil
		}
		send, look, held, err := c.claim(ctx, open)
		if err != nil {
			return c.fail(err)
		}
		switch {
		case len(send) > 0:
			if err := c.send(ctx, send); err != nil {
				return err
			}
		case len(look) > 0:
			if c.rounds >= c.policy.MaxRounds {
				return c.unresolved(errOrMaybe(c.lastErr))
			}
			if err := c.settle(ctx, look); err != nil {
				return c.unresolved(err)
			}
			c.lookUp(ctx, look)
		case len(held) > 0:
			if err := sleepCtx(ctx, poll); err != nil {
				return c.unresolved(fmt.Errorf("waiting for another attempt in progress: %w", err))
			}
			poll = min(2*poll, holdPollMax)
		case len(c.open()) == 0:
			return nil // every one was sent already
		default:
			// Nothing claimable and nothing to look up: the look-ups ran
			// out with messages not found, which are not sent again.
			return c.unresolved(fmt.Errorf("not found after the last look-up, not sent again: %w", errOrMaybe(c.lastErr)))
		}
	}
}

// open lists the messages not settled yet.
func (c *onceCall) open() []int {
	var out []int
	for i := range c.items {
		if !c.items[i].done {
			out = append(out, i)
		}
	}
	return out
}

// ids lists the ExternalIds of idx.
func (c *onceCall) ids(idx []int) []string {
	out := make([]string, len(idx))
	for k, i := range idx {
		out[k] = c.items[i].id
	}
	return out
}

// update runs fn on the ledger records of idx, in that order, and on
// success makes what fn left the records this call knows.
func (c *onceCall) update(ctx context.Context, idx []int, fn func(recs []LedgerRecord) error) error {
	var stored []LedgerRecord
	err := c.ledger.Update(ctx, c.prop, c.ids(idx), func(recs []LedgerRecord) error {
		if err := fn(recs); err != nil {
			return err
		}
		stored = append(stored[:0], recs...)
		return nil
	})
	if err != nil {
		return err
	}
	for k, i := range idx {
		c.items[i].seen = stored[k]
	}
	return nil
}

// detached is a context for a ledger write that must happen even after
// ctx ended, bounded by outcomeTimeout.
func detached(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), outcomeTimeout)
}

// claim reads the records of open in one ledger update and sorts them:
// send (claimed now for a request), look (in doubt: a look-up first) and
// held (another caller's attempt is in flight). Sent records settle their
// message at once.
func (c *onceCall) claim(ctx context.Context, open []int) (send, look, held []int, err error) {
	now := time.Now()
	hold := now.Add(c.claimFor(ctx, now))
	mayResend := c.rounds < c.policy.MaxRounds
	err = c.update(ctx, open, func(recs []LedgerRecord) error {
		send, look, held = nil, nil, nil // fn may run more than once
		var reused []string
		for k, i := range open {
			// A refused message left nothing at the service: its
			// ExternalId may carry a corrected one.
			if d := recs[k].Digest; d != "" && d != c.items[i].digest && recs[k].State != LedgerRefused {
				reused = append(reused, c.items[i].id)
			}
		}
		if len(reused) > 0 {
			return &reusedError{op: c.op, ids: reused}
		}
		for k, i := range open {
			rec, it := &recs[k], &c.items[i]
			if prev := it.seen; rec.State == LedgerSending && prev.Attempts == rec.Attempts &&
				prev.Last.Equal(rec.Last) && !prev.Ended.IsZero() {
				// This call's own claim, whose outcome it could not
				// record: it saw the attempt end. Record it now.
				*rec = prev
			}
			switch rec.State {
			case LedgerSent:
				continue // settled below, once the update is stored
			case LedgerSending:
				if rec.Claim.After(now) {
					held = append(held, i)
				} else {
					look = append(look, i) // its maker stopped without a word
				}
				continue
			case LedgerInDoubt:
				look = append(look, i)
				continue
			}
			if !mayResend {
				continue
			}
			rec.State, rec.Digest = LedgerSending, it.digest
			rec.Attempts++
			if rec.First.IsZero() {
				rec.First = now
			}
			rec.Last, rec.Ended, rec.Claim = now, time.Time{}, hold
			rec.Message, rec.Err, rec.Found = nil, nil, false
			send = append(send, i)
		}
		return nil
	})
	if err != nil {
		return nil, nil, nil, err
	}
	for _, i := range open {
		if it := &c.items[i]; it.seen.State == LedgerSent && it.seen.Message != nil {
			c.settleFrom(i, *it.seen.Message)
		}
	}
	return send, look, held, nil
}

// settleFrom makes m, a stored message without its text, item i's result.
func (c *onceCall) settleFrom(i int, m Message) {
	m.Text = c.msgs[i].Text
	c.items[i].result, c.items[i].done = BatchResult{Message: &m}, true
}

// claimFor is how long a claim holds a message: the longest a send can
// last (every attempt timing out, with the waits between), bounded by
// ctx's deadline, with a margin for recording its outcome.
func (c *onceCall) claimFor(ctx context.Context, now time.Time) time.Duration {
	cl := c.s.client
	d := time.Duration(cl.retry.MaxRetries+1)*cl.attemptTimeout + time.Duration(cl.retry.MaxRetries)*cl.retry.MaxWait
	if dl, ok := ctx.Deadline(); ok {
		d = min(d, max(dl.Sub(now), 0))
	}
	return d + claimMargin
}

// send sends the claimed messages in one request and records their
// outcomes. It returns the error of a request that settled nothing
// without a doubt (a rejection of the whole request, a failure before it
// left), for the caller to return as is.
func (c *onceCall) send(ctx context.Context, idx []int) error {
	var res []BatchResult
	var err error
	if c.batch {
		batch := make([]SendMessageParams, len(idx))
		for k, i := range idx {
			batch[k] = c.msgs[i]
		}
		res, err = c.s.sendBatch(ctx, c.prop, batch, true)
	} else {
		var m *Message
		m, err = c.s.send(ctx, c.prop, &c.msgs[idx[0]], true)
		var ae *APIError
		switch {
		case err == nil:
			res = []BatchResult{{Message: m}}
		case !errors.Is(err, ErrMaybeSent) && errors.As(err, &ae) && ae.StatusCode != 0:
			res = []BatchResult{{Err: ae}} // the service refused it: that is the result
		}
	}
	ended := time.Now()
	doubt := err != nil && errors.Is(err, ErrMaybeSent)
	if doubt {
		c.doubtAt, c.lastErr = ended, err
	}
	outcome := make([]LedgerRecord, len(idx))
	for k, i := range idx {
		it := &c.items[i]
		o := it.seen
		o.Ended = ended
		switch {
		case res != nil && res[k].Message != nil:
			o.State, o.Message = LedgerSent, stripText(res[k].Message)
			it.result, it.done = res[k], true
		case res != nil && res[k].Err != nil:
			o.State, o.Err = LedgerRefused, res[k].Err
			it.result, it.done = res[k], true
		case doubt:
			o.State = LedgerInDoubt
		default:
			o.State = LedgerNotSent
			if ae := (*APIError)(nil); errors.As(err, &ae) {
				o.State, o.Err = LedgerRefused, ae
			}
		}
		outcome[k] = o
	}
	c.record(ctx, idx, outcome)
	if err != nil && !doubt && res == nil {
		return err
	}
	return nil
}

// record stores the outcomes of this call's attempt on idx, over the
// claims it made: a record another caller has claimed since (this claim
// having expired) is left to it, except that a sent message is always
// recorded. A failure to record is not reported: the claim then expires
// and the next caller looks the message up.
func (c *onceCall) record(ctx context.Context, idx []int, outcome []LedgerRecord) {
	ctx, cancel := detached(ctx)
	defer cancel()
	_ = c.ledger.Update(ctx, c.prop, c.ids(idx), func(recs []LedgerRecord) error {
		for k := range idx {
			cur, o := &recs[k], outcome[k]
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
	})
	for k, i := range idx {
		c.items[i].seen = outcome[k]
	}
}

// stripText copies m without its Text, which a ledger does not keep.
func stripText(m *Message) *Message {
	cp := *m
	cp.Text = ""
	return &cp
}

// settle waits until SettleTime has passed since the last attempt on
// each message of look, and since this call last saw one end in doubt.
// An attempt whose maker stopped without a word may have lasted until its
// claim ran out: settle counts from then.
func (c *onceCall) settle(ctx context.Context, look []int) error {
	from := c.doubtAt
	for _, i := range look {
		rec := c.items[i].seen
		from = later(from, later(rec.Last, rec.Ended))
		if rec.State == LedgerSending {
			from = later(from, rec.Claim)
		}
	}
	return sleepCtx(ctx, time.Until(from.Add(c.policy.SettleTime)))
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
func (c *onceCall) lookUp(ctx context.Context, look []int) {
	c.rounds++
	var since time.Time
	for _, i := range look {
		rec := c.items[i].seen
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
	found, err := c.s.client.scans.lookup(ctx, c.s, c.prop, since, c.ids(look), false)
	if err != nil {
		c.lastErr = lookupFailed(c.op, err)
		return
	}
	// Requests (by the start of their last attempt) of which this look-up
	// found some messages.
	now := time.Now()
	foundOf := map[int64]bool{}
	for _, i := range look {
		if _, ok := found[c.items[i].id]; ok {
			foundOf[c.items[i].seen.Last.UnixMicro()] = true
		}
	}
	outcome := make([]LedgerRecord, len(look))
	for k, i := range look {
		it := &c.items[i]
		o := it.seen
		if ms, ok := found[it.id]; ok {
			o.State, o.Message, o.Found = LedgerSent, stripText(&ms[0]), true
			c.settleFrom(i, ms[0])
		} else if foundOf[o.Last.UnixMicro()] || it.missedAt.IsZero() {
			// Missing, but its request's other messages are still
			// arriving, or this is the first look-up to miss it: the
			// service may have gone on processing after the client hung
			// up, so another settle round from now before a resend.
			o.State, o.Ended = LedgerInDoubt, now
			it.missedAt = now
		} else {
			o.State = LedgerNotSent // missed twice, a settle time apart
			c.lastErr = fmt.Errorf("not found by two look-ups a settle time apart: %w", errOrMaybe(c.lastErr))
		}
		outcome[k] = o
	}
	wctx, cancel := detached(ctx)
	defer cancel()
	err = c.update(wctx, look, func(recs []LedgerRecord) error {
		for k, i := range look {
			cur, o, was := &recs[k], outcome[k], c.items[i].seen
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
		c.lastErr = lookupFailed(c.op, err)
	}
}

func errOrMaybe(err error) error {
	if err == nil {
		return ErrMaybeSent
	}
	return err
}

// fail returns a failure of the ledger (or a reuse of an ExternalId) that
// stopped the protocol before a send: unresolved when messages this call
// sent or found in doubt are left so.
func (c *onceCall) fail(err error) error {
	var re *reusedError
	if errors.As(err, &re) {
		return err
	}
	err = fmt.Errorf("telco: %s: ledger: %w", c.op, err)
	for _, i := range c.open() {
		if s := c.items[i].seen.State; s == LedgerSending || s == LedgerInDoubt {
			return c.unresolved(err)
		}
	}
	return err
}

// unresolved is an *UnresolvedError naming the messages not settled.
func (c *onceCall) unresolved(err error) error {
	return &UnresolvedError{Op: c.op, ExternalIDs: c.ids(c.open()), Rounds: c.rounds, Err: err}
}

// lookupFailed is a failed look-up: the send it follows is still in
// doubt, so it matches ErrMaybeSent.
func lookupFailed(op string, err error) error {
	return &maybeSentError{fmt.Errorf("telco: %s: looking the ExternalId up: %w", op, err)}
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
