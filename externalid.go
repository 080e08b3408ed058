package telco

// Look-ups by ExternalId: FindByExternalID, ListByExternalID, FillLedger
// and the reconcile look-ups of SendOnce all scan the project's sent
// messages over a window of time, placed on the service's clock
// (serviceclock.go). Concurrent look-ups of one project share a scan.

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"
)

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
// the Date header of the scans' successful answers (one small Find learns
// it when the Client has scanned nothing yet), widened by
// ReconcilePolicy.ClockSkew, and extended when the service's clock turns
// out to be past its end. Date_From is the second of since, rounded down;
// Date_To, exclusive, the second after now, so both edges are covered.
// Concurrent calls for the same project that are waiting at the same time
// share one scan: a scan serves the callers that joined before it began,
// and the next scan the ones that joined while it ran.
func (s *MessagesService) FindByExternalID(ctx context.Context, propertySid string, since time.Time, externalIDs ...string) (map[string]Message, error) {
	const op = "Messages.FindByExternalID"
	if err := checkLookup(op, propertySid, since, externalIDs); err != nil {
		return nil, err
	}
	found, err := s.client.scans.lookup(ctx, s, propertySid, since, externalIDs, false)
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
	return s.client.scans.lookup(ctx, s, propertySid, since, externalIDs, true)
}

// lookUpFirst looks up, in one scan of the last LookBack, the messages
// the ledger has never seen, and records those it finds as sent: the
// claim that follows answers them from the ledger.
func (c *onceCall) lookUpFirst(ctx context.Context) error {
	open := c.open()
	var unseen []int
	err := c.ledger.Update(ctx, c.prop, c.ids(open), func(recs []LedgerRecord) error {
		unseen = unseen[:0]
		for k, i := range open {
			if recs[k].State == LedgerNew && recs[k].Attempts == 0 {
				unseen = append(unseen, i)
			}
		}
		return nil
	})
	if err != nil || len(unseen) == 0 {
		return err
	}
	since := time.Now().Add(-c.policy.LookBack)
	found, err := c.s.client.scans.lookup(ctx, c.s, c.prop, since, c.ids(unseen), false)
	if err != nil {
		return fmt.Errorf("looking the ExternalIds up before their first send: %w", err)
	}
	var hits []int
	for _, i := range unseen {
		if _, ok := found[c.items[i].id]; ok {
			hits = append(hits, i)
		}
	}
	if len(hits) == 0 {
		return nil
	}
	return c.ledger.Update(ctx, c.prop, c.ids(hits), func(recs []LedgerRecord) error {
		for k, i := range hits {
			if recs[k].State == LedgerNew && recs[k].Attempts == 0 { // nobody claimed it meanwhile
				m := found[c.items[i].id][0]
				recs[k].State, recs[k].Digest, recs[k].Message, recs[k].Found = LedgerSent, c.items[i].digest, stripText(&m), true
			}
		}
		return nil
	})
}

// FillLedger records in the Client's ledger, as sent, every message the
// project sent between from (inclusive) and to (exclusive) that carries an
// ExternalId, so that a fresh ledger (a new machine, a container, a lost
// file) knows what an earlier one sent, and SendOnce and SendBatchOnce
// answer those ExternalIds from it instead of sending again. It returns
// how many records it changed.
//
// It reads the window page by page, until an empty page: a request per
// 200 messages the project sent in it. A message sent so recently that the service's
// search does not show it yet (see ReconcilePolicy.SettleTime) is not
// recorded, so fill a ledger before its first send, not in a race with
// another sender. An ExternalId stored more than once is recorded with the
// first message the service lists. A record already sent is left as it
// is; one in any other state (in doubt, held by an attempt, refused)
// becomes sent: the service's history settles it. Records filled this way
// have no digest, so a later send of the same ExternalId is answered with
// the stored message whatever its text.
func (s *MessagesService) FillLedger(ctx context.Context, propertySid string, from, to time.Time) (int, error) {
	const op = "Messages.FillLedger"
	p := &FindMessagesParams{DateFrom: from, DateTo: to, Direction: DirectionTransmit}
	if err := s.client.precheck(op, "PropertySid", propertySid, true, p.check); err != nil {
		return 0, err
	}
	changed := 0
	seen := map[string]bool{}
	var batch []Message
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		ids := make([]string, len(batch))
		for i := range batch {
			ids[i] = batch[i].ExternalID
		}
		n := 0
		err := s.client.ledger.Update(ctxOrBackground(ctx), propertySid, ids, func(recs []LedgerRecord) error {
			n = 0
			for i := range recs {
				if recs[i].State != LedgerSent {
					recs[i].State, recs[i].Message, recs[i].Found, recs[i].Err = LedgerSent, stripText(&batch[i]), true, nil
					n++
				}
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("telco: %s: ledger: %w", op, err)
		}
		changed += n
		batch = batch[:0]
		return nil
	}
	var failed error
	_, err := s.client.scans.pages(ctx, s, propertySid, from.Unix(), ceilUnix(to), func(m Message) bool {
		if m.ExternalID == "" || seen[m.ExternalID] {
			return true
		}
		seen[m.ExternalID] = true
		if batch = append(batch, m); len(batch) == fillBatch {
			failed = flush()
		}
		return failed == nil
	})
	if err == nil {
		err = failed
	}
	if err == nil {
		err = flush()
	}
	return changed, err
}

// fillBatch is how many records FillLedger writes in one ledger update.
const fillBatch = 500

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

// scanner is a Client's look-ups by ExternalId: what it knows of the
// service's clock, and the scans in progress per project.
type scanner struct {
	clock serviceClock

	mu    sync.Mutex
	scans map[string]*scanQueue // by project SID; present while a scan runs
}

func newScanner() *scanner { return &scanner{scans: map[string]*scanQueue{}} }

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
func (sc *scanner) lookup(ctx context.Context, s *MessagesService, propertySid string, since time.Time, ids []string, all bool) (map[string][]Message, error) {
	ctx = ctxOrBackground(ctx)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	w := &lookWaiter{ctx: ctx, since: since, ids: ids, all: all, done: make(chan struct{})}
	sc.mu.Lock()
	q := sc.scans[propertySid]
	start := q == nil
	if start {
		q = &scanQueue{}
		sc.scans[propertySid] = q
	}
	q.waiting = append(q.waiting, w)
	sc.mu.Unlock()
	if start {
		go sc.serve(s, propertySid, q)
	}
	select {
	case <-w.done:
		return w.found, w.err
	case <-ctx.Done():
		sc.mu.Lock()
		defer sc.mu.Unlock()
		select {
		case <-w.done: // served meanwhile
			return w.found, w.err
		default:
		}
		if w.batch == nil {
			w.left = true
		} else if w.batch.live--; w.batch.live == 0 {
			w.batch.cancel()
		}
		return nil, ctx.Err()
	}
}

// serve runs the project's scans until nobody waits.
func (sc *scanner) serve(s *MessagesService, propertySid string, q *scanQueue) {
	for {
		sc.mu.Lock()
		var batch []*lookWaiter
		for _, w := range q.waiting {
			if !w.left {
				batch = append(batch, w)
			}
		}
		q.waiting = nil
		if len(batch) == 0 {
			delete(sc.scans, propertySid)
			sc.mu.Unlock()
			return
		}
		ctx, cancel := context.WithCancel(context.WithoutCancel(batch[0].ctx))
		b := &scanBatch{live: len(batch), cancel: cancel}
		since := batch[0].since
		want := map[string]bool{}
		all := false
		for _, w := range batch {
			w.batch = b
			if w.since.Before(since) {
				since = w.since
			}
			for _, id := range w.ids {
				want[id] = true
			}
			all = all || w.all
		}
		sc.mu.Unlock()

		found, err := sc.scan(ctx, s, propertySid, since, want, all)
		cancel()
		sc.mu.Lock()
		for _, w := range batch {
			w.found, w.err = nil, err
			if err == nil {
				w.found = make(map[string][]Message, len(w.ids))
				for _, id := range w.ids {
					if ms, ok := found[id]; ok {
						w.found[id] = ms
					}
				}
			}
			close(w.done)
		}
		sc.mu.Unlock()
	}
}

// pages reads the project's transmitted messages of the window [from, to)
// in Unix seconds, calling fn for each until it returns false, and
// returns the Date of the first answer (0 when it had none). It pages with
// Results_Skip, in steps of the first page's length, until an empty page:
// messages are only ever added, so a message stored before the read began
// cannot be skipped, whatever the service's order (an insertion ahead of
// the cursor can only show one twice), and a service that caps its pages
// below the size asked still has every page read. A page that repeats the
// previous one ends the read: the service ignores the position, and
// reading on would not show more. Pages after the first are requested
// WithParallelPages at a time.
func (sc *scanner) pages(ctx context.Context, s *MessagesService, propertySid string, from, to int64, fn func(Message) bool) (first int64, err error) {
	p := FindMessagesParams{DateFrom: time.Unix(from, 0), DateTo: time.Unix(to, 0), Direction: DirectionTransmit}
	page, first, err := sc.find(ctx, s, propertySid, &p)
	if err != nil || len(page.Items) == 0 {
		return first, err
	}
	prev, skip := page.Items, len(page.Items) // the first page's length is the service's page size
	for _, m := range prev {
		if !fn(m) {
			return first, nil
		}
	}
	err = readAhead(ctx, s.client.parallelPages, func(ctx context.Context, k int) ([]Message, error) {
		q := p
		q.Skip = skip * (k + 1)
		page, _, err := sc.find(ctx, s, propertySid, &q)
		if err != nil {
			return nil, err
		}
		return page.Items, nil
	}, func(_ int, items []Message) bool {
		if len(items) == 0 || samePage(items, prev) {
			return false
		}
		for _, m := range items {
			if !fn(m) {
				return false
			}
		}
		prev = items
		return true
	})
	return first, err
}

// find is one page of a scan: Find, with its answer's Date read for the
// service's clock. date is 0 when the answer had none.
func (sc *scanner) find(ctx context.Context, s *MessagesService, propertySid string, p *FindMessagesParams) (page *Page[Message], date int64, err error) {
	ctx, info := CaptureResponse(ctx)
	sent := time.Now()
	page, err = s.Find(ctx, propertySid, p)
	if err != nil {
		return nil, 0, err
	}
	date, _ = sc.clock.observe(info.Header.Get("Date"), sent, time.Now())
	return page, date, nil
}

// scan reads the window once, collecting the wanted IDs (every message of
// each when all is set, else stopping once each is found).
func (sc *scanner) scan(ctx context.Context, s *MessagesService, propertySid string, since time.Time, want map[string]bool, all bool) (map[string][]Message, error) {
	if _, _, ok := sc.clock.bounds(); !ok {
		// No answer yet to read the service's clock from: ask for one.
		now := time.Now()
		if _, _, err := sc.find(ctx, s, propertySid, &FindMessagesParams{DateFrom: now.Add(-time.Second), DateTo: now.Add(time.Second),
			Direction: DirectionTransmit, ListParams: ListParams{Count: 1}}); err != nil {
			return nil, err
		}
	}
	// Without a Date header (bounds still unknown) the caller's clock is
	// used, widened by ClockSkew alone.
	lo, hi, _ := sc.clock.bounds()
	skew := s.client.reconcile.ClockSkew
	from, to := window(since, time.Now(), lo, hi, skew)
	found := make(map[string][]Message, len(want))
	seen := map[string]bool{} // MessageSids, as a page may repeat one
	for {
		first, err := sc.pages(ctx, s, propertySid, from, to, func(m Message) bool {
			if !want[m.ExternalID] || (m.MessageSid != "" && seen[m.MessageSid]) {
				return true
			}
			seen[m.MessageSid] = true
			found[m.ExternalID] = append(found[m.ExternalID], m)
			return all || len(found) < len(want)
		})
		if err != nil {
			return nil, err
		}
		if !all && len(found) == len(want) {
			return found, nil
		}
		// The first answer's Date is the service's time, rounded down,
		// once the scan had begun: every message stored before then has
		// Created at most that second. If the window ended before it,
		// search the seconds it missed.
		if first == 0 || first < to {
			return found, nil
		}
		from, to = to, first+1+int64((skew+time.Second-1)/time.Second)
	}
}
