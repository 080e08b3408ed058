package riversend_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/telcotest"

	"github.com/telcosdk/telco/contrib/riversend"
)

// sameRec compares records field by field, times by instant.
func sameRec(t *testing.T, got, want telco.LedgerRecord) {
	t.Helper()
	times := [][2]time.Time{{got.First, want.First}, {got.Last, want.Last}, {got.Ended, want.Ended}, {got.Claim, want.Claim}}
	for i, p := range times {
		if !p[0].Equal(p[1]) {
			t.Errorf("time %d: got %v, want %v", i, p[0], p[1])
		}
	}
	got.First, got.Last, got.Ended, got.Claim = time.Time{}, time.Time{}, time.Time{}, time.Time{}
	want.First, want.Last, want.Ended, want.Claim = time.Time{}, time.Time{}, time.Time{}, time.Time{}
	deref := func(r telco.LedgerRecord) string {
		s := fmt.Sprintf("%+v", r.Message)
		if r.Message != nil {
			s = fmt.Sprintf("%+v", *r.Message)
		}
		if r.Err != nil {
			s += fmt.Sprintf(" %+v", *r.Err)
		}
		r.Message, r.Err = nil, nil
		return fmt.Sprintf("%+v %s", r, s)
	}
	if g, w := deref(got), deref(want); g != w {
		t.Errorf("record read back:\n got %s\nwant %s", g, w)
	}
}

// read returns the records of ids as an Update sees them, storing nothing.
func read(t *testing.T, l *riversend.Ledger, prop string, ids ...string) []telco.LedgerRecord {
	t.Helper()
	var out []telco.LedgerRecord
	if err := l.Update(context.Background(), prop, ids, func(recs []telco.LedgerRecord) error {
		out = append([]telco.LedgerRecord(nil), recs...)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestLedger(t *testing.T) {
	dsn := pgtestStart(t)
	pool := migrated(t, dsn)
	ctx := context.Background()
	l := riversend.NewLedger(pool)

	t.Run("a record comes back as written, to the nanosecond", func(t *testing.T) {
		reset(t, pool)
		base := time.Date(2026, 3, 4, 5, 6, 7, 123456789, time.UTC)
		want := telco.LedgerRecord{PropertySid: "PR1", ExternalID: "rt", State: telco.LedgerSent, Digest: "abc",
			First: base, Last: base.Add(time.Second + 1), Ended: base.Add(2*time.Second + 999), Claim: base.Add(time.Minute + 7),
			Attempts: 3, Found: true,
			Message: &telco.Message{MessageSid: "MG1", PropertySid: "PR1", To: "+61400000002", Status: telco.MessageStatus("Delivered"),
				Created: telco.TimestampOf(base), ExternalID: "rt", NumSegments: 2},
			Err: &telco.APIError{StatusCode: 400, Code: telco.CodeParameterRequired, Message: "Text is required"}}
		if err := l.Update(ctx, "PR1", []string{"rt"}, func(recs []telco.LedgerRecord) error {
			if r := recs[0]; r.PropertySid != "PR1" || r.ExternalID != "rt" || r.State != telco.LedgerNew || r.Attempts != 0 {
				t.Errorf("a record never written reads %+v, want a zero record with its key", r)
			}
			recs[0] = want
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		sameRec(t, read(t, l, "PR1", "rt")[0], want)
		o, err := riversend.Lookup(ctx, pool, "PR1", "rt")
		if err != nil {
			t.Fatal(err)
		}
		if o.State != riversend.StateSent || o.MessageSid != "MG1" || o.Attempts != 3 || o.LedgerState != telco.LedgerSent || o.FinishedAt.IsZero() {
			t.Fatalf("outcome of a record sent: %+v", o)
		}
	})

	t.Run("fn's error stores nothing and is returned as is", func(t *testing.T) {
		reset(t, pool)
		boom := errors.New("boom")
		err := l.Update(ctx, "PR1", []string{"x", "y"}, func(recs []telco.LedgerRecord) error {
			recs[0].State, recs[0].Attempts = telco.LedgerSending, 1
			return boom
		})
		if err != boom {
			t.Fatalf("Update = %v, want fn's error itself", err)
		}
		if n := count(t, pool, "SELECT count(*) FROM telco_sends"); n != 0 {
			t.Fatalf("%d rows after a failed fn, want 0", n)
		}
	})

	t.Run("a record left new is not stored", func(t *testing.T) {
		reset(t, pool)
		read(t, l, "PR1", "looked-at")
		if _, err := riversend.Lookup(ctx, pool, "PR1", "looked-at"); !errors.Is(err, riversend.ErrNotEnqueued) {
			t.Fatalf("Lookup after a read-only Update = %v, want ErrNotEnqueued", err)
		}
	})

	t.Run("updates from many processes are serialized, in any key order", func(t *testing.T) {
		reset(t, pool)
		// Two more pools: other processes sharing the database.
		ledgers := []*riversend.Ledger{l, riversend.NewLedger(newPool(t, dsn)), riversend.NewLedger(newPool(t, dsn))}
		keys := []string{"k1", "k2", "k3", "k4"}
		const rounds = 40
		var wg sync.WaitGroup
		errs := make(chan error, 3*4*rounds)
		for g := range 12 {
			wg.Go(func() {
				lg := ledgers[g%len(ledgers)]
				order := append([]string(nil), keys...)
				if g%2 == 1 {
					for i, j := 0, len(order)-1; i < j; i, j = i+1, j-1 {
						order[i], order[j] = order[j], order[i]
					}
				}
				for range rounds {
					if err := lg.Update(ctx, "PR1", order, func(recs []telco.LedgerRecord) error {
						for i := range recs {
							recs[i].Attempts++ // a lost update shows as a missing increment
							recs[i].State = telco.LedgerNotSent
						}
						return nil
					}); err != nil {
						errs <- err
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("Update failed: %v", err)
		}
		for _, r := range read(t, l, "PR1", keys...) {
			if r.Attempts != 12*rounds {
				t.Fatalf("%s: %d increments stored, want %d", r.ExternalID, r.Attempts, 12*rounds)
			}
		}
	})

	t.Run("one message through SendOnce on two clients, River and Enqueue is sent once", func(t *testing.T) {
		reset(t, pool)
		srv := telcotest.NewServer()
		defer srv.Close()
		// Two processes, each its own pool and Client, no River.
		c1 := srv.Client(telco.WithLedger(riversend.NewLedger(newPool(t, dsn))))
		c2 := srv.Client(telco.WithLedger(riversend.NewLedger(newPool(t, dsn))))
		a := msg("shared")
		a.PropertySid = srv.PropertySid
		m1, err := c1.Messages.SendOnce(ctx, a.PropertySid, a.Params())
		if err != nil {
			t.Fatal(err)
		}
		m2, err := c2.Messages.SendOnce(ctx, a.PropertySid, a.Params())
		if err != nil || m2.MessageSid != m1.MessageSid {
			t.Fatalf("second client: %+v, %v; want the first's message %s from the ledger", m2, err, m1.MessageSid)
		}
		// Enqueue knows it: no job.
		if n := enqueue(t, pool, insertOnly(t, pool), a); n != 0 {
			t.Fatalf("Enqueue of a message sent with SendOnce inserted %d jobs, want 0", n)
		}
		// A job for it all the same (inserted without Enqueue, or
		// redelivered) is answered from the ledger.
		w, err := riversend.NewWorker(riversend.WorkerConfig{Client: c2})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Work(ctx, job(1, a)); err != nil {
			t.Fatal(err)
		}
		if n := len(srv.Messages(srv.PropertySid)); n != 1 || srv.Requests() != 1 {
			t.Fatalf("%d messages stored with %d requests, want 1 and 1", n, srv.Requests())
		}
		// Enqueued first, sent by SendOnce before its job ran: the job
		// does not send it again.
		b := msg("enqueued-first")
		b.PropertySid = srv.PropertySid
		if n := enqueue(t, pool, insertOnly(t, pool), b); n != 1 {
			t.Fatalf("Enqueue inserted %d jobs, want 1", n)
		}
		if _, err := c1.Messages.SendOnce(ctx, b.PropertySid, b.Params()); err != nil {
			t.Fatal(err)
		}
		if err := w.Work(ctx, job(1, b)); err != nil {
			t.Fatal(err)
		}
		if n := len(srv.Messages(srv.PropertySid)); n != 2 || srv.Requests() != 2 {
			t.Fatalf("%d messages stored with %d requests, want 2 and 2", n, srv.Requests())
		}
		o, err := riversend.Lookup(ctx, pool, b.PropertySid, b.ExternalID)
		if err != nil || o.State != riversend.StateSent || o.Attempts != 1 {
			t.Fatalf("outcome %+v, %v; want sent after one attempt", o, err)
		}
	})

	t.Run("an Update waits out a database restart", func(t *testing.T) {
		srv := newServer(t)
		p := migrated(t, srv.DSN)
		lg := riversend.NewLedger(p)
		bump := func() error {
			return lg.Update(ctx, "PR1", []string{"r"}, func(recs []telco.LedgerRecord) error {
				recs[0].Attempts++
				recs[0].State = telco.LedgerNotSent
				return nil
			})
		}
		if err := bump(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- srv.Restart(300 * time.Millisecond) }()
		// Updates go on through the crash: each waits for the server to
		// come back, except one whose commit the crash cut, whose fate
		// is unknown (reported as an error).
		ok, failed := 0, 0
		var restarted bool
		for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline) || !restarted; {
			if err := bump(); err != nil {
				t.Logf("Update during the restart: %v", err)
				failed++
			} else {
				ok++
			}
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
				restarted = true
			default:
			}
		}
		r := read(t, lg, "PR1", "r")[0]
		t.Logf("%d updates through the restart, %d failed", ok, failed)
		if failed > 1 || r.Attempts < ok+1 || r.Attempts > ok+1+failed {
			t.Fatalf("%d increments stored after %d updates done and %d failed; want every one done kept, at most one failed", r.Attempts, ok, failed)
		}
	})
}

func newPool(t *testing.T, dsn string) *pgxpool.Pool {
	t.Helper()
	p, err := pgxpool.New(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

// TestMigrateKeepsAnEarlierTable: a telco_sends of the version before the
// ledger keeps its rows, and they read as the ledger should see them.
func TestMigrateKeepsAnEarlierTable(t *testing.T) {
	dsn := pgtestStart(t)
	pool := newPool(t, dsn)
	ctx := context.Background()
	srv := telcotest.NewServer()
	defer srv.Close()
	prop := srv.PropertySid
	sent, err := srv.Client().Messages.Send(ctx, prop, &telco.SendMessageParams{From: "+61400000001", To: "+61400000002",
		Text: "hi old-sent", ExternalID: "old-sent"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `
		CREATE TABLE telco_sends (
		    property_sid text NOT NULL, external_id text NOT NULL, state text NOT NULL DEFAULT 'enqueued',
		    message_sid text, error_code text, error_message text, attempts integer NOT NULL DEFAULT 0,
		    enqueued_at timestamptz NOT NULL DEFAULT now(), first_attempt_at timestamptz, finished_at timestamptz,
		    PRIMARY KEY (property_sid, external_id));
		CREATE INDEX telco_sends_state ON telco_sends (state)`); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `
		INSERT INTO telco_sends (property_sid, external_id, state, message_sid, attempts, first_attempt_at, finished_at) VALUES
		    ($1, 'old-sent', 'sent', $2, 1, now(), now()),
		    ($1, 'old-waiting', 'enqueued', NULL, 0, NULL, NULL),
		    ($1, 'old-running', 'enqueued', NULL, 1, now() - interval '1 minute', NULL),
		    ($1, 'old-failed', 'failed', NULL, 5, now() - interval '1 minute', now()),
		    ($1, 'old-refused', 'refused', NULL, 1, now(), now())`, prop, sent.MessageSid); err != nil {
		t.Fatal(err)
	}
	for range 2 { // idempotent
		if err := riversend.Migrate(ctx, pool); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]telco.LedgerState{"old-sent": telco.LedgerSent, "old-waiting": telco.LedgerNew,
		"old-running": telco.LedgerInDoubt, "old-failed": telco.LedgerInDoubt, "old-refused": telco.LedgerRefused}
	for id, ls := range want {
		o, err := riversend.Lookup(ctx, pool, prop, id)
		if err != nil {
			t.Fatal(err)
		}
		if o.LedgerState != ls {
			t.Errorf("%s: ledger state %q, want %q", id, o.LedgerState, ls)
		}
	}
	st, err := riversend.CountStates(ctx, pool)
	if err != nil {
		t.Fatal(err)
	}
	if st[riversend.StateSent] != 1 || st[riversend.StateEnqueued] != 2 || st[riversend.StateFailed] != 1 || st[riversend.StateRefused] != 1 {
		t.Fatalf("states after the migration: %v; want them unchanged", st)
	}

	// The ledger reads them: the sent one is answered without a request,
	// the failed one (which may have been sent) is looked up first.
	c := srv.Client(telco.WithLedger(riversend.NewLedger(pool)))
	before := srv.Requests()
	m, err := c.Messages.SendOnce(ctx, prop, &telco.SendMessageParams{From: "+61400000001", To: "+61400000002",
		Text: "hi old-sent", ExternalID: "old-sent"})
	if err != nil || m.MessageSid != sent.MessageSid || srv.Requests() != before {
		t.Fatalf("SendOnce of a message sent before the migration: %+v, %v, %d requests; want %s from the row, none",
			m, err, srv.Requests()-before, sent.MessageSid)
	}
	if _, err := c.Messages.SendOnce(ctx, prop, &telco.SendMessageParams{From: "+61400000001", To: "+61400000002",
		Text: "hi old-failed", ExternalID: "old-failed"}); err != nil {
		t.Fatal(err)
	}
	if n := len(srv.Messages(prop)); n != 2 {
		t.Fatalf("%d messages stored, want 2", n)
	}
	o, err := riversend.Lookup(ctx, pool, prop, "old-failed")
	if err != nil || o.State != riversend.StateSent {
		t.Fatalf("old-failed after SendOnce: %+v, %v; want sent", o, err)
	}
	// Enqueue's dedupe still stands on the old rows.
	rc := insertOnly(t, pool)
	waiting, fresh := msg("old-waiting"), msg("new-one")
	waiting.PropertySid, fresh.PropertySid = prop, prop
	if n := enqueue(t, pool, rc, waiting, fresh); n != 1 {
		t.Fatalf("Enqueue inserted %d, want 1 (only the new one)", n)
	}
}
