package riversend

// A telco.CallbackOnce kept in Postgres: the replicas of a webhook
// receiver behind a load balancer share it, so that a callback delivered
// to two of them runs its function once.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/telcosdk/telco"
)

// CallbackTable is the table of CallbackOnce, created by Migrate (or
// MigrateCallbacks) in the connection's search_path.
const CallbackTable = "telco_callbacks"

// DefaultCallbackLease is how long a claim of CallbackOnce holds a
// callback when its maker says nothing more (a process that died in the
// function): longer than a webhook function should ever take.
const DefaultCallbackLease = 5 * time.Minute

// CallbackOnce is a telco.CallbackOnce kept in the table telco_callbacks
// (see MigrateCallbacks): give the same one, on the same database, to the
// WebhookHandler of every replica of a receiver, and a callback delivered
// to several of them, at once or one after another, runs its function
// once.
//
//	h := telco.InboundMessageHandler(reply)
//	h.Once = riversend.NewCallbackOnce(pool)
//
// It keeps the promises of telco.CallbackOnce as the memory one does, with
// the database as the memory: a Claim of a callback done returns false; a
// Claim of one another delivery holds, in any process, waits for that
// delivery's Done (false after a success; after a failure, the waiting
// Claim may take the callback itself and returns true), or for its own
// context to end, which is an error (the handler answers 503 and the
// sender delivers again). A claim whose maker died holds the callback for
// Lease, after which a Claim takes it over. A failure of the database is
// an error, never a false: a callback is not dropped because its record
// could not be read.
//
// Done rows are kept for MaxAge, after which the callback runs again if
// delivered; Prune deletes them, and the expired claims. Set the fields
// before first use.
type CallbackOnce struct {
	// Lease is how long a claim holds a callback; 0 means
	// DefaultCallbackLease.
	Lease time.Duration
	// MaxAge is how long a callback done is remembered; 0 means
	// telco.DefaultCallbackOnceAge.
	MaxAge time.Duration

	pool *pgxpool.Pool

	mu sync.Mutex
	// held is the token of each claim this value holds, so that Done gives
	// up only its own claim, not one another delivery took over after the
	// lease ran out.
	held map[string]string
}

var _ telco.CallbackOnce = (*CallbackOnce)(nil)

// NewCallbackOnce returns the CallbackOnce in pool's database, which
// Migrate (or MigrateCallbacks) must have prepared.
func NewCallbackOnce(pool *pgxpool.Pool) *CallbackOnce {
	return &CallbackOnce{pool: pool, held: map[string]string{}}
}

func (c *CallbackOnce) lease() time.Duration {
	if c.Lease > 0 {
		return c.Lease
	}
	return DefaultCallbackLease
}

func (c *CallbackOnce) maxAge() time.Duration {
	if c.MaxAge > 0 {
		return c.MaxAge
	}
	return telco.DefaultCallbackOnceAge
}

// Waits for a callback another delivery holds: polled, from the first to
// the last, doubling.
const (
	callbackPollMin = 10 * time.Millisecond
	callbackPollMax = 500 * time.Millisecond
)

// Claim reports whether the caller is to run the function of the callback
// key: true when it was neither done nor held (now held by this claim, for
// Lease), false when it is done. While another delivery holds it, Claim
// waits; see CallbackOnce.
func (c *CallbackOnce) Claim(ctx context.Context, key string) (bool, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	token, err := newToken()
	if err != nil {
		return false, fmt.Errorf("riversend: CallbackOnce.Claim: %w", err)
	}
	poll := callbackPollMin
	failures := 0
	for {
		state, err := c.tryClaim(ctx, key, token)
		switch {
		case err != nil:
			// The statement is safe to run again: a claim that was made
			// but not seen is found again by its token.
			failures++
			if failures == ledgerTries || !retryable(err, false) || ctx.Err() != nil {
				return false, fmt.Errorf("riversend: CallbackOnce.Claim: %w", err)
			}
		case state == "claimed":
			c.mu.Lock()
			c.held[key] = token
			c.mu.Unlock()
			return true, nil
		case state == "done":
			return false, nil
		default:
			failures = 0 // held by another delivery, or not visible yet: wait
		}
		t := time.NewTimer(poll)
		select {
		case <-ctx.Done():
			t.Stop()
			return false, fmt.Errorf("riversend: CallbackOnce.Claim: waiting for another delivery of the callback: %w", ctx.Err())
		case <-t.C:
		}
		poll = min(2*poll, callbackPollMax)
	}
}

// tryClaim claims key for token when it is free, its claim expired, or it
// is token's own; or done but older than MaxAge. It returns "claimed",
// else the row's state ("done" or "held"), or "" when the row a conflict
// met is not visible to the statement yet.
func (c *CallbackOnce) tryClaim(ctx context.Context, key, token string) (string, error) {
	var state string
	err := c.pool.QueryRow(ctx, `
		WITH claim AS (
		    INSERT INTO telco_callbacks AS t (key, state, holder, held_until)
		    VALUES ($1, 'held', $2, now() + $3 * interval '1 millisecond')
		    ON CONFLICT (key) DO UPDATE SET state = 'held', holder = excluded.holder,
		        held_until = excluded.held_until, done_at = NULL
		    WHERE (t.state = 'held' AND (t.held_until < now() OR t.holder = excluded.holder))
		       OR (t.state = 'done' AND t.done_at < now() - $4 * interval '1 millisecond')
		    RETURNING 'claimed'::text AS state
		)
		SELECT state FROM claim
		UNION ALL
		SELECT state FROM telco_callbacks WHERE key = $1 AND NOT EXISTS (SELECT 1 FROM claim)`,
		key, token, c.lease().Milliseconds(), c.maxAge().Milliseconds()).Scan(&state)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	return state, err
}

// Done ends a claim: ok records the callback as done (whoever holds it
// now: its function has run), !ok gives up this value's claim of it, so
// that a later Claim returns true. A failure of the database is retried
// for a few seconds (a database restarting), on a context of its own
// bounded to ten seconds, as the handler gives Done one without a
// deadline.
func (c *CallbackOnce) Done(ctx context.Context, key string, ok bool) error {
	if ctx == nil {
		ctx = context.Background()
	}
	c.mu.Lock()
	token, mine := c.held[key]
	delete(c.held, key)
	c.mu.Unlock()
	if !ok && !mine {
		return nil // nothing of this value's to give up
	}
	ctx, cancel := context.WithTimeout(ctx, recordTimeout)
	defer cancel()
	wait := ledgerRetryMin
	for try := 1; ; try++ {
		var err error
		if ok {
			_, err = c.pool.Exec(ctx, `
				INSERT INTO telco_callbacks (key, state, done_at) VALUES ($1, 'done', now())
				ON CONFLICT (key) DO UPDATE SET state = 'done', done_at = now(), holder = NULL, held_until = NULL`, key)
		} else {
			_, err = c.pool.Exec(ctx, `DELETE FROM telco_callbacks WHERE key = $1 AND state = 'held' AND holder = $2`, key, token)
		}
		// Both statements are idempotent: one whose commit was lost may
		// run again.
		if err == nil {
			return nil
		}
		if try == ledgerTries || ctx.Err() != nil {
			return fmt.Errorf("riversend: CallbackOnce.Done: %w", err)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("riversend: CallbackOnce.Done: %w", err)
		case <-t.C:
		}
		wait = min(2*wait, ledgerRetryMax)
	}
}

// Prune deletes the callbacks done more than MaxAge ago and the claims
// whose lease ran out, and returns how many rows it deleted. Run it now
// and then (a River periodic job, say): Claim already ignores those rows,
// Prune keeps the table small.
func (c *CallbackOnce) Prune(ctx context.Context) (int64, error) {
	tag, err := c.pool.Exec(ctx, `
		DELETE FROM telco_callbacks
		WHERE (state = 'done' AND done_at < now() - $1 * interval '1 millisecond')
		   OR (state = 'held' AND held_until < now())`, c.maxAge().Milliseconds())
	if err != nil {
		return 0, fmt.Errorf("riversend: CallbackOnce.Prune: %w", err)
	}
	return tag.RowsAffected(), nil
}

// newToken is a claim's token: random, so that no two claims share one.
func newToken() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}

// callbackSchema creates telco_callbacks; idempotent.
const callbackSchema = `
CREATE TABLE IF NOT EXISTS telco_callbacks (
    key        text        PRIMARY KEY,
    state      text        NOT NULL CHECK (state IN ('held', 'done')),
    holder     text,
    held_until timestamptz,
    done_at    timestamptz,
    created_at timestamptz NOT NULL DEFAULT now()
);
`

// MigrateCallbacks creates telco_callbacks, the table of CallbackOnce. It
// is idempotent and takes the same lock as MigrateSends; Migrate runs it.
func MigrateCallbacks(ctx context.Context, pool *pgxpool.Pool) error {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("riversend: MigrateCallbacks: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", int64(migrateLock)); err != nil {
		return fmt.Errorf("riversend: MigrateCallbacks: %w", err)
	}
	if _, err := tx.Exec(ctx, callbackSchema); err != nil {
		return fmt.Errorf("riversend: MigrateCallbacks: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("riversend: MigrateCallbacks: %w", err)
	}
	return nil
}
