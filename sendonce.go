package telco

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
// SettleTime, look the ExternalIds up with one scan of Find over a window
// a few seconds wide, and send again only what was not found, for at most
// MaxRounds look-ups. Zero fields take the defaults of
// DefaultReconcilePolicy; negative ones make NewClient fail.
type ReconcilePolicy struct {
	// SettleTime is how long to wait after an ambiguous failure before
	// looking: a request the service is still processing when the window
	// is read is not found, and its message would be sent a second time.
	// The wait should exceed the longest time the service takes to store
	// a message it has accepted. Default 2s.
	SettleTime time.Duration
	// MaxRounds bounds the look-ups after ambiguous failures, and with
	// them the sends: a message is sent again only when a look-up found
	// it missing and another look-up may follow the new send. Default 3.
	MaxRounds int
	// ClockSkew widens the window on both sides, for the difference
	// between the clock that writes the service's Date header (which
	// places the window) and the one that stamps a message's Created, and
	// for drift since the last answer. Default 1s.
	ClockSkew time.Duration
}

// DefaultReconcilePolicy returns the policy a Client uses without
// WithReconcilePolicy: settle 2s, 3 rounds, 1s of clock skew.
func DefaultReconcilePolicy() ReconcilePolicy {
	return ReconcilePolicy{SettleTime: 2 * time.Second, MaxRounds: 3, ClockSkew: time.Second}
}

// WithReconcilePolicy replaces DefaultReconcilePolicy for SendOnce,
// SendBatchOnce and FindByExternalID.
func WithReconcilePolicy(p ReconcilePolicy) Option {
	return func(c *clientConfig) { c.reconcile = p }
}

// UnresolvedError is returned by SendOnce and SendBatchOnce when they
// could not tell whether messages were sent: the rounds of the
// ReconcilePolicy ran out, a look-up kept failing, or the context ended
// while waiting. It matches ErrMaybeSent, and through Unwrap the last
// failure (errors.Is(err, context.Canceled) holds after a cancellation).
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

// SendOnce sends one SMS at most once in effect, even when the connection
// fails after the service acted. p.ExternalID is required (a
// *ValidationError without it, before any request) and should be unique
// to this message: it is how the message is found again.
//
// SendOnce calls Send. When that fails in a way that matches ErrMaybeSent,
// it waits ReconcilePolicy.SettleTime, looks the ExternalId up among the
// project's messages sent since the call began (FindByExternalID), and
// returns the stored message with a nil error when it is there; when it is
// not, it sends again, for at most MaxRounds look-ups. Sends are never
// retried blindly, whatever RetryPolicy.RetryUnsafe says. Any other error
// of Send (a rejection, a failure before the request left) is returned
// as is. The result is uncertain only when the rounds run out, a look-up
// keeps failing or ctx ends: the error is then an *UnresolvedError that
// matches ErrMaybeSent and names the ExternalId.
func (s *MessagesService) SendOnce(ctx context.Context, propertySid string, p *SendMessageParams) (*Message, error) {
	const op = "Messages.SendOnce"
	if err := pathParam(op, "PropertySid", propertySid); err != nil {
		return nil, err
	}
	if p == nil {
		return nil, nilParams(op)
	}
	if p.ExternalID == "" {
		return nil, &ValidationError{Op: op, Fields: []FieldError{{Code: CodeParameterRequired, FieldName: "ExternalId",
			Message: "ExternalId is required: it is how a message that may have been sent is found again"}}}
	}
	ctx = withoutUnsafeRetry(ctx)
	since := time.Now()
	pol := s.client.once.policy
	m, err := s.Send(ctx, propertySid, p)
	for rounds := 0; ; {
		if err == nil {
			return m, nil
		}
		if !errors.Is(err, ErrMaybeSent) {
			return nil, err
		}
		// In doubt: settle, then look, until found, resent or out of rounds.
		if rounds == pol.MaxRounds {
			return nil, &UnresolvedError{Op: op, ExternalIDs: []string{p.ExternalID}, Rounds: rounds, Err: err}
		}
		if werr := sleepCtx(ctx, pol.SettleTime); werr != nil {
			return nil, &UnresolvedError{Op: op, ExternalIDs: []string{p.ExternalID}, Rounds: rounds, Err: werr}
		}
		rounds++
		found, lerr := s.client.once.lookup(ctx, s, propertySid, since, []string{p.ExternalID})
		switch {
		case lerr != nil:
			if ctx.Err() != nil {
				return nil, &UnresolvedError{Op: op, ExternalIDs: []string{p.ExternalID}, Rounds: rounds, Err: lerr}
			}
			err = &lookupError{op: op, err: lerr} // still in doubt: look again next round
		case len(found) > 0:
			msg := found[p.ExternalID]
			return &msg, nil
		case rounds == pol.MaxRounds:
			// Not found, but a new send could not be checked again.
			return nil, &UnresolvedError{Op: op, ExternalIDs: []string{p.ExternalID}, Rounds: rounds,
				Err: fmt.Errorf("not found after the last look-up, not sent again: %w", err)}
		default:
			m, err = s.Send(ctx, propertySid, p)
		}
	}
}

// SendBatchOnce is SendOnce for a batch: every element needs an
// ExternalID, distinct within the batch (a *ValidationError otherwise,
// before any request). It calls SendBatch; after a failure of the whole
// batch that matches ErrMaybeSent, it settles, finds all the batch's
// ExternalIds in one scan, and sends again, in one batch, only the
// elements not found. The results align with msgs as SendBatch's do:
// elements found carry the stored message, elements the service rejected
// their *APIError.
//
// When err is not nil, the results are returned all the same, aligned with
// msgs: an element with neither Message nor Err was not confirmed. The
// error is an *UnresolvedError naming those ExternalIds when their fate is
// unknown, or the failure of a send that reached no decision on them
// (such as a whole-batch rejection).
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
		if id == "" {
			fe.add(CodeParameterRequired, name, name+" is required: it is how a message that may have been sent is found again")
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

	ctx = withoutUnsafeRetry(ctx)
	since := time.Now()
	pol := s.client.once.policy
	results := make([]BatchResult, len(msgs))
	todo := make([]int, len(msgs)) // indices of msgs not settled yet
	for i := range todo {
		todo[i] = i
	}
	send := func() error {
		batch := make([]SendMessageParams, len(todo))
		for j, i := range todo {
			batch[j] = msgs[i]
		}
		res, err := s.SendBatch(ctx, propertySid, batch)
		if err != nil {
			return err
		}
		for j, i := range todo {
			results[i] = res[j]
		}
		todo = todo[:0]
		return nil
	}
	pendingIDs := func() []string {
		ids := make([]string, len(todo))
		for j, i := range todo {
			ids[j] = msgs[i].ExternalID
		}
		return ids
	}
	unresolved := func(rounds int, err error) ([]BatchResult, error) {
		return results, &UnresolvedError{Op: op, ExternalIDs: pendingIDs(), Rounds: rounds, Err: err}
	}

	err := send()
	for rounds := 0; ; {
		if err == nil {
			return results, nil
		}
		if !errors.Is(err, ErrMaybeSent) {
			return results, err
		}
		if rounds == pol.MaxRounds {
			return unresolved(rounds, err)
		}
		if werr := sleepCtx(ctx, pol.SettleTime); werr != nil {
			return unresolved(rounds, werr)
		}
		rounds++
		found, lerr := s.client.once.lookup(ctx, s, propertySid, since, pendingIDs())
		if lerr != nil {
			if ctx.Err() != nil {
				return unresolved(rounds, lerr)
			}
			err = &lookupError{op: op, err: lerr}
			continue
		}
		left := todo[:0]
		for _, i := range todo {
			if m, ok := found[msgs[i].ExternalID]; ok {
				results[i] = BatchResult{Message: &m}
			} else {
				left = append(left, i)
			}
		}
		todo = left
		switch {
		case len(todo) == 0:
			return results, nil
		case rounds == pol.MaxRounds:
			return unresolved(rounds, fmt.Errorf("not found after the last look-up, not sent again: %w", err))
		default:
			err = send()
		}
	}
}

// lookupError is a failed look-up: the send it follows is still in doubt,
// so it matches ErrMaybeSent.
type lookupError struct {
	op  string
	err error
}

func (e *lookupError) Error() string {
	return "telco: " + e.op + ": looking the ExternalId up: " + e.err.Error() + " (" + ErrMaybeSent.Error() + ")"
}
func (e *lookupError) Unwrap() []error { return []error{e.err, ErrMaybeSent} }

// FindByExternalID returns the transmitted messages of the project whose
// ExternalId is one of externalIDs, keyed by ExternalId (the first stored
// when one was stored twice); IDs not found are absent. One scan of Find
// serves all the IDs: it pages over a window from since to just after
// now, stopping early once every ID is found.
//
// since is read on the caller's clock, typically time.Now() taken before
// the first send. The window is placed on the service's clock, learnt from
// the Date header of its answers (one small Find learns it when the Client
// has had no answer yet), widened by ReconcilePolicy.ClockSkew, and
// extended when the service's clock turns out to be past its end. Date_From
// is the second of since, rounded down; Date_To, exclusive, the second
// after now, so both edges are covered. Concurrent calls for the same
// project that are waiting at the same time share one scan: a scan serves
// the callers that joined before it began, and the next scan the ones that
// joined while it ran.
func (s *MessagesService) FindByExternalID(ctx context.Context, propertySid string, since time.Time, externalIDs ...string) (map[string]Message, error) {
	const op = "Messages.FindByExternalID"
	if err := pathParam(op, "PropertySid", propertySid); err != nil {
		return nil, err
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
	if err := fe.err(op); err != nil {
		return nil, err
	}
	return s.client.once.lookup(ctx, s, propertySid, since, externalIDs)
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

// noUnsafeRetryKey marks the context of SendOnce's sends: checkRetry
// ignores RetryPolicy.RetryUnsafe for them, since a blind resend is what
// SendOnce replaces with a look-up.
type noUnsafeRetryKey struct{}

func withoutUnsafeRetry(ctx context.Context) context.Context {
	if ctx == nil {
		ctx = context.Background()
	}
	return context.WithValue(ctx, noUnsafeRetryKey{}, true)
}

func noUnsafeRetry(ctx context.Context) bool { return ctx.Value(noUnsafeRetryKey{}) != nil }

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

// observe is called by checkRetry after every attempt, with the time the
// attempt began: it learns the service's clock from the answer's Date
// header, and hands the header to a scan's probe in ctx.
func (o *onceState) observe(ctx context.Context, resp *http.Response, sent time.Time) {
	if o == nil || resp == nil {
		return
	}
	v := resp.Header.Get("Date")
	if v == "" {
		return
	}
	if d, ok := o.clock.observe(v, sent, time.Now()); ok {
		if p, _ := ctx.Value(dateProbeKey{}).(*dateProbe); p != nil {
			p.first.CompareAndSwap(0, d)
		}
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

type dateProbeKey struct{}

// scanQueue holds the callers waiting for the next scan of one project.
type scanQueue struct{ waiting []*lookWaiter }

// lookWaiter is one caller of lookup.
type lookWaiter struct {
	ctx   context.Context // for its values: the scan outlives no caller's interest
	since time.Time
	ids   []string
	done  chan struct{}
	found map[string]Message
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
func (o *onceState) lookup(ctx context.Context, s *MessagesService, propertySid string, since time.Time, ids []string) (map[string]Message, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	w := &lookWaiter{ctx: ctx, since: since, ids: ids, done: make(chan struct{})}
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
		for _, w := range batch {
			w.batch = b
			if w.since.Before(since) {
				since = w.since
			}
			for _, id := range w.ids {
				want[id] = struct{}{}
			}
		}
		o.mu.Unlock()

		found, err := o.scan(ctx, s, propertySid, since, want)
		cancel()
		o.mu.Lock()
		for _, w := range batch {
			if err != nil {
				w.err = err
			} else {
				w.found = make(map[string]Message, len(w.ids))
				for _, id := range w.ids {
					if m, ok := found[id]; ok {
						w.found[id] = m
					}
				}
			}
			close(w.done)
		}
		o.mu.Unlock()
	}
}

// scan pages Find over the window once, collecting the wanted IDs. It
// pages with Results_Skip: messages are only ever added, so a message
// stored before the scan began cannot be skipped, whatever the service's
// order (an insertion ahead of the cursor can only show one twice).
func (o *onceState) scan(ctx context.Context, s *MessagesService, propertySid string, since time.Time, want map[string]struct{}) (map[string]Message, error) {
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
	found := make(map[string]Message, len(want))
	for {
		probe := &dateProbe{}
		pctx := context.WithValue(ctx, dateProbeKey{}, probe)
		p := &FindMessagesParams{DateFrom: time.Unix(from, 0), DateTo: time.Unix(to, 0), Direction: DirectionTransmit}
		for m, err := range s.FindAll(pctx, propertySid, p) {
			if err != nil {
				return nil, err
			}
			if _, ok := want[m.ExternalID]; !ok {
				continue
			}
			if _, dup := found[m.ExternalID]; !dup {
				found[m.ExternalID] = m
				if len(found) == len(want) {
					return found, nil
				}
			}
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
