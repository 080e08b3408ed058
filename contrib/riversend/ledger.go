package riversend

// The SDK's send ledger in Postgres: the rows of telco_sends hold the
// records of telco.Ledger, so that SendOnce and SendBatchOnce in every
// process sharing the database (River workers or not) keep one memory of
// each ExternalId's attempts.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/telcosdk/telco"
)

// Ledger is a telco.Ledger kept in the table telco_sends (see Migrate),
// one row per project and ExternalId: give it to every Client that sends
// the messages, with telco.WithLedger(riversend.NewLedger(pool)), and
// SendOnce sends each ExternalId once between all of them, in any number
// of processes and machines, with or without River. A message enqueued
// with Enqueue and one sent with SendOnce directly share the row.
//
// Each Update is one transaction that locks the rows of its keys (in the
// order of their ExternalIds, so that two updates cannot deadlock),
// creating the missing ones, calls fn and writes what it changed; it is
// retried, fn included, when the database reports a serialization failure
// or a deadlock, or when the connection fails before the commit, for up
// to about three seconds (a database restarting). Only a connection lost
// during the commit itself leaves the change unknown; the SDK's protocol
// is safe either way, as its records are written before any request and
// an attempt whose record is missing is looked up.
type Ledger struct {
	pool *pgxpool.Pool

	mu sync.Mutex
	// unstored holds the keys whose last Update did not commit: a send
	// whose outcome the SDK could not record, which the worker records
	// itself rather than leave its message in doubt.
	unstored map[ledgerKey]struct{}
}

type ledgerKey struct{ prop, id string }

var _ telco.Ledger = (*Ledger)(nil)

// NewLedger returns the ledger in pool's database, which Migrate must have
// prepared.
func NewLedger(pool *pgxpool.Pool) *Ledger {
	return &Ledger{pool: pool, unstored: map[ledgerKey]struct{}{}}
}

// The states of the column ledger_state: telco.LedgerState's, with "new"
// for telco.LedgerNew (the empty string).
const ledgerStateNew = "new"

func ledgerStateOf(s string) telco.LedgerState {
	switch st := telco.LedgerState(s); st {
	case telco.LedgerSending, telco.LedgerInDoubt, telco.LedgerSent, telco.LedgerRefused, telco.LedgerNotSent:
		return st
	case "", ledgerStateNew:
		return telco.LedgerNew
	default:
		// Written by something else (a newer version, a hand): the safe
		// reading is that an attempt may have reached the service.
		return telco.LedgerInDoubt
	}
}

func ledgerStateColumn(s telco.LedgerState) string {
	if s == telco.LedgerNew {
		return ledgerStateNew
	}
	return string(s)
}

// Retries of an Update that failed for a reason that leaves nothing
// stored: waits double from the first to the last, about 3 s in all.
const (
	ledgerTries    = 9
	ledgerRetryMin = 10 * time.Millisecond
	ledgerRetryMax = time.Second
)

// Update runs fn on the records of propertySid's externalIDs, as
// telco.Ledger requires: atomically across every process sharing the
// database; fn's error is returned as is, with nothing stored.
func (l *Ledger) Update(ctx context.Context, propertySid string, externalIDs []string, fn func(recs []telco.LedgerRecord) error) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if len(externalIDs) == 0 {
		return fn(nil)
	}
	wait := ledgerRetryMin
	for try := 1; ; try++ {
		atCommit, err := l.update(ctx, propertySid, externalIDs, fn)
		var fe *fnError
		if errors.As(err, &fe) {
			return fe.err
		}
		l.note(propertySid, externalIDs, err == nil)
		if err == nil {
			return nil
		}
		if try == ledgerTries || !retryable(err, atCommit) || ctx.Err() != nil {
			return fmt.Errorf("riversend: Ledger.Update: %w", err)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("riversend: Ledger.Update: %w", err)
		case <-t.C:
		}
		wait = min(2*wait, ledgerRetryMax)
	}
}

// fnError carries fn's own error out of a transaction.
type fnError struct{ err error }

func (e *fnError) Error() string { return e.err.Error() }

// retryable says whether a failed Update may run again: its transaction
// did not commit (a failure before the commit, or the server's refusal of
// it) and the failure can pass (a conflict, a connection lost or refused
// while the server restarts).
func retryable(err error, atCommit bool) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case pe.Code == "40001", pe.Code == "40P01": // serialization failure, deadlock
			return true
		case strings.HasPrefix(pe.Code, "08"), strings.HasPrefix(pe.Code, "57P"): // connection, shutdown, starting up
			return true
		}
		return false
	}
	if atCommit {
		return false // the commit may have been made: the change is unknown
	}
	// Not an answer of the server: the connection failed or could not be
	// made, so the transaction did not commit.
	return !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
}

// note keeps which keys' last Update did not commit.
func (l *Ledger) note(prop string, ids []string, stored bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, id := range ids {
		if stored {
			delete(l.unstored, ledgerKey{prop, id})
		} else {
			l.unstored[ledgerKey{prop, id}] = struct{}{}
		}
	}
}

// unstoredKey reports whether the last Update of the key failed.
func (l *Ledger) unstoredKey(prop, id string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, ok := l.unstored[ledgerKey{prop, id}]
	return ok
}

// ledgerColumns are read for a record, in the order scanRecord takes them.
const ledgerColumns = `external_id, ledger_state, digest, first_attempt_at, last_attempt_at,
	attempt_ended_at, claim_until, attempt_nanos, attempts, message, message_sid, found, error`

// update runs one transaction in two round trips: BEGIN, the locks and
// the reads in one pipeline; the writes and COMMIT in another. atCommit
// says that the error came from the second, whose commit may have been
// made before the connection failed.
func (l *Ledger) update(ctx context.Context, prop string, ids []string, fn func([]telco.LedgerRecord) error) (atCommit bool, err error) {
	keys := slices.Clone(ids)
	slices.Sort(keys)
	keys = slices.Compact(keys)

	conn, err := l.pool.Acquire(ctx)
	if err != nil {
		return false, err
	}
	open := false // a transaction may be open on conn
	defer func() {
		if open {
			// Not committed: roll back, or drop a connection that cannot
			// (the pool must not get it back inside a transaction).
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			if _, rerr := conn.Exec(rctx, "ROLLBACK"); rerr != nil {
				_ = conn.Conn().Close(rctx)
			}
		}
		conn.Release()
	}()

	// Missing rows are created first, then every row is locked, both in
	// ExternalId order: two updates of overlapping keys take their locks
	// in the same order.
	b := &pgx.Batch{}
	b.Queue("BEGIN")
	b.Queue(`INSERT INTO telco_sends (property_sid, external_id)
		SELECT $1, id FROM unnest($2::text[]) AS id ORDER BY id
		ON CONFLICT DO NOTHING RETURNING external_id`, prop, keys)
	b.Queue(`SELECT `+ledgerColumns+` FROM telco_sends
		WHERE property_sid = $1 AND external_id = ANY($2) ORDER BY external_id FOR UPDATE`, prop, keys)
	open = true
	created := map[string]bool{}
	read := make(map[string]telco.LedgerRecord, len(keys))
	err = func() error {
		br := conn.SendBatch(ctx, b)
		defer br.Close()
		if _, err := br.Exec(); err != nil {
			return err
		}
		rows, err := br.Query()
		if err != nil {
			return err
		}
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			created[id] = true
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if rows, err = br.Query(); err != nil {
			return err
		}
		for rows.Next() {
			rec, err := scanRecord(rows, prop)
			if err != nil {
				rows.Close()
				return err
			}
			read[rec.ExternalID] = rec
		}
		if err := rows.Err(); err != nil {
			return err
		}
		return br.Close()
	}()
	if err != nil {
		return false, err
	}

	recs := make([]telco.LedgerRecord, len(ids))
	for i, id := range ids {
		rec, ok := read[id]
		if !ok {
			return false, fmt.Errorf("row of %q not found after it was created", id)
		}
		recs[i] = rec
	}
	if err := fn(recs); err != nil {
		return false, &fnError{err}
	}

	// What fn left, by key (the last of repeated keys), when it changed.
	out := map[string]telco.LedgerRecord{}
	for i, id := range ids {
		r := recs[i]
		r.PropertySid, r.ExternalID = prop, id
		out[id] = r
	}
	var w ledgerWrite
	var drop []string
	for _, id := range keys {
		r := out[id]
		if sameRecord(r, read[id]) {
			if created[id] && r.State == telco.LedgerNew && r.Attempts == 0 {
				drop = append(drop, id) // nothing to remember
			}
			continue
		}
		if err := w.add(r); err != nil {
			return false, err
		}
	}
	b = &pgx.Batch{}
	if len(w.ids) > 0 {
		w.queue(b, prop)
	}
	if len(drop) > 0 {
		b.Queue(`DELETE FROM telco_sends WHERE property_sid = $1 AND external_id = ANY($2)`, prop, drop)
	}
	b.Queue("COMMIT")
	err = conn.SendBatch(ctx, b).Close()
	var pe *pgconn.PgError
	if err != nil && errors.As(err, &pe) {
		// The server refused a statement: the transaction is aborted,
		// and its COMMIT, if it ran, rolled back.
		return false, err
	}
	// Committed, or the connection failed with the outcome unknown:
	// nothing is open to roll back either way.
	open = err != nil && !conn.Conn().IsClosed()
	return err != nil, err
}

// scanRecord reads one row of ledgerColumns. A row written before the
// ledger's columns existed, as sent, gets its message from message_sid.
func scanRecord(rows pgx.Rows, prop string) (telco.LedgerRecord, error) {
	var (
		rec                       telco.LedgerRecord
		state                     string
		digest, sid               *string
		first, last, ended, claim *time.Time
		nanos                     []int32
		msg, apiErr               []byte
	)
	rec.PropertySid = prop
	if err := rows.Scan(&rec.ExternalID, &state, &digest, &first, &last, &ended, &claim, &nanos,
		&rec.Attempts, &msg, &sid, &rec.Found, &apiErr); err != nil {
		return rec, err
	}
	rec.State = ledgerStateOf(state)
	rec.Digest = deref(digest)
	ns := func(i int) time.Duration {
		if i < len(nanos) {
			return time.Duration(nanos[i])
		}
		return 0
	}
	rec.First, rec.Last, rec.Ended, rec.Claim = exact(first, ns(0)), exact(last, ns(1)), exact(ended, ns(2)), exact(claim, ns(3))
	if len(msg) > 0 {
		rec.Message = &telco.Message{}
		if err := json.Unmarshal(msg, rec.Message); err != nil {
			return rec, fmt.Errorf("message of %q: %w", rec.ExternalID, err)
		}
	} else if rec.State == telco.LedgerSent {
		rec.Message = &telco.Message{MessageSid: deref(sid), PropertySid: prop, ExternalID: rec.ExternalID}
	}
	if len(apiErr) > 0 {
		rec.Err = &telco.APIError{}
		if err := json.Unmarshal(apiErr, rec.Err); err != nil {
			return rec, fmt.Errorf("error of %q: %w", rec.ExternalID, err)
		}
	}
	return rec, nil
}

// exact is a time read from a timestamptz (microseconds) with the
// nanoseconds it lost put back: the SDK compares the times it wrote with
// the ones it reads, and a ledger hands records back unchanged.
func exact(t *time.Time, ns time.Duration) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.Add(ns)
}

// sameRecord compares records by value, times by instant.
func sameRecord(a, b telco.LedgerRecord) bool {
	if a.State != b.State || a.Digest != b.Digest || a.Attempts != b.Attempts || a.Found != b.Found ||
		!a.First.Equal(b.First) || !a.Last.Equal(b.Last) || !a.Ended.Equal(b.Ended) || !a.Claim.Equal(b.Claim) {
		return false
	}
	if (a.Message == nil) != (b.Message == nil) || (a.Message != nil && *a.Message != *b.Message) {
		return false
	}
	if (a.Err == nil) != (b.Err == nil) {
		return false
	}
	if a.Err != nil {
		ja, _ := json.Marshal(a.Err)
		jb, _ := json.Marshal(b.Err)
		return string(ja) == string(jb)
	}
	return true
}

// ledgerWrite collects the rows an Update writes, column by column, for
// one statement over unnest.
type ledgerWrite struct {
	ids, states, digests, sids, codes, texts, nanos []*string
	first, last, ended, claim                       []*time.Time
	attempts                                        []int32
	found                                           []bool
	msgs, errs                                      []*string
}

func (w *ledgerWrite) add(r telco.LedgerRecord) error {
	str := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	tm := func(t time.Time) *time.Time {
		if t.IsZero() {
			return nil
		}
		return &t
	}
	w.ids = append(w.ids, &r.ExternalID)
	st := ledgerStateColumn(r.State)
	w.states = append(w.states, &st)
	w.digests = append(w.digests, str(r.Digest))
	w.first, w.last, w.ended, w.claim = append(w.first, tm(r.First)), append(w.last, tm(r.Last)),
		append(w.ended, tm(r.Ended)), append(w.claim, tm(r.Claim))
	n := "{"
	for i, t := range []time.Time{r.First, r.Last, r.Ended, r.Claim} {
		if i > 0 {
			n += ","
		}
		n += strconv.Itoa(t.Nanosecond() % 1000)
	}
	n += "}"
	w.nanos = append(w.nanos, &n)
	w.attempts = append(w.attempts, int32(r.Attempts))
	w.found = append(w.found, r.Found)
	var msg, sid, apiErr, code, text *string
	if r.Message != nil {
		j, err := json.Marshal(r.Message)
		if err != nil {
			return fmt.Errorf("message of %q: %w", r.ExternalID, err)
		}
		s := string(j)
		msg, sid = &s, str(r.Message.MessageSid)
	}
	if r.Err != nil {
		j, err := json.Marshal(r.Err)
		if err != nil {
			return fmt.Errorf("error of %q: %w", r.ExternalID, err)
		}
		s := string(j)
		apiErr, code = &s, str(r.Err.Code)
		m := r.Err.Message
		if m == "" {
			m = r.Err.Error()
		}
		text = &m
	}
	w.msgs, w.sids, w.errs, w.codes, w.texts = append(w.msgs, msg), append(w.sids, sid), append(w.errs, apiErr),
		append(w.codes, code), append(w.texts, text)
	return nil
}

// queue writes the collected rows. The columns of the outcome (state,
// message_sid, error_code, error_message, finished_at) follow the ledger:
// sent once it says sent; enqueued again (with the finish cleared) when
// an attempt begins after a refusal or a failure; otherwise as they were.
func (w *ledgerWrite) queue(b *pgx.Batch, prop string) {
	b.Queue(`
		UPDATE telco_sends AS t SET
		    ledger_state = u.state, digest = u.digest,
		    first_attempt_at = u.first, last_attempt_at = u.last, attempt_ended_at = u.ended,
		    claim_until = u.claim, attempt_nanos = u.nanos::integer[], attempts = u.attempts,
		    message = u.msg::jsonb, found = u.found, error = u.err::jsonb,
		    state = CASE WHEN u.state = 'sent' THEN 'sent'
		                 WHEN u.attempts > t.attempts THEN 'enqueued'
		                 ELSE t.state END,
		    message_sid = CASE WHEN u.state = 'sent' THEN u.sid ELSE t.message_sid END,
		    error_code = CASE WHEN u.state = 'sent' THEN NULL ELSE coalesce(u.code, t.error_code) END,
		    error_message = CASE WHEN u.state = 'sent' THEN NULL ELSE coalesce(u.text, t.error_message) END,
		    finished_at = CASE WHEN u.state = 'sent' AND t.state <> 'sent' THEN now()
		                       WHEN u.state = 'sent' THEN t.finished_at
		                       WHEN u.attempts > t.attempts THEN NULL
		                       ELSE t.finished_at END
		FROM unnest($2::text[], $3::text[], $4::text[], $5::timestamptz[], $6::timestamptz[], $7::timestamptz[],
		            $8::timestamptz[], $9::text[], $10::integer[], $11::text[], $12::boolean[], $13::text[],
		            $14::text[], $15::text[], $16::text[])
		     AS u(id, state, digest, first, last, ended, claim, nanos, attempts, msg, found, err, sid, code, text)
		WHERE t.property_sid = $1 AND t.external_id = u.id`,
		prop, w.ids, w.states, w.digests, w.first, w.last, w.ended, w.claim, w.nanos, w.attempts, w.msgs,
		w.found, w.errs, w.sids, w.codes, w.texts)
}

// markSent records each message of ids (of project prop) as sent, with
// its message in ms, whatever its record says: the worker calls it for the
// messages SendBatchOnce or SendOnce returned but whose outcome the SDK
// could not write. One Update: one transaction.
func (l *Ledger) markSent(ctx context.Context, prop string, ids []string, ms []*telco.Message) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	defer cancel()
	now := time.Now()
	return l.Update(ctx, prop, ids, func(recs []telco.LedgerRecord) error {
		for k := range recs {
			r := &recs[k]
			if r.State == telco.LedgerSent {
				continue
			}
			c := *ms[k]
			c.Text = "" // as the SDK keeps it: the digest stands for the text
			r.State, r.Message, r.Found, r.Err, r.Claim = telco.LedgerSent, &c, false, nil, time.Time{}
			if r.Ended.IsZero() || r.Ended.Before(r.Last) {
				r.Ended = now
			}
		}
		return nil
	})
}
