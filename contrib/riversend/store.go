package riversend

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/telcosdk/telco"
)

// Table is the name of the outcome table Migrate creates, in the
// connection's search_path.
const Table = "telco_sends"

// DB is what the outcome helpers need of a database handle: a
// *pgxpool.Pool, a *pgx.Conn and a pgx.Tx all have it.
type DB interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// State is where a message is in telco_sends.
type State string

// The states of a message in telco_sends.
const (
	// StateEnqueued: the job is waiting, running or retrying.
	StateEnqueued State = "enqueued"
	// StateSent: the service stored the message; MessageSid is set.
	StateSent State = "sent"
	// StateRefused: the service (or client-side validation) refused the
	// message in a way retrying cannot fix; ErrorCode says why. The job
	// was cancelled and nothing was sent.
	StateRefused State = "refused"
	// StateFailed: River ran out of attempts. ErrorMessage is the last
	// error; when it says the request may have reached the service, look
	// the ExternalId up before sending it again by other means.
	StateFailed State = "failed"
)

// recordTimeout bounds the write of an outcome.
const recordTimeout = 10 * time.Second

const schema = `
CREATE TABLE IF NOT EXISTS telco_sends (
    property_sid  text        NOT NULL,
    external_id   text        NOT NULL,
    state         text        NOT NULL DEFAULT 'enqueued',
    message_sid   text,
    error_code    text,
    error_message text,
    attempts      integer     NOT NULL DEFAULT 0,
    enqueued_at   timestamptz NOT NULL DEFAULT now(),
    first_attempt_at timestamptz,
    finished_at   timestamptz,
    PRIMARY KEY (property_sid, external_id)
);
CREATE INDEX IF NOT EXISTS telco_sends_state ON telco_sends (state);
`

// Migrate brings River's tables to the latest version with rivermigrate
// and creates telco_sends. Both steps are idempotent; run it at deploy
// time, or call rivermigrate yourself and only the CREATE statements here
// will matter.
func Migrate(ctx context.Context, pool *pgxpool.Pool) error {
	m, err := rivermigrate.New(riverpgxv5.New(pool), nil)
	if err != nil {
		return fmt.Errorf("riversend: Migrate: %w", err)
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("riversend: Migrate: river: %w", err)
	}
	if _, err := pool.Exec(ctx, schema); err != nil {
		return fmt.Errorf("riversend: Migrate: %w", err)
	}
	return nil
}

// Enqueue inserts one job per message inside tx, the caller's own
// transaction: the messages are sent only if tx commits. Every message
// needs PropertySid and ExternalID (a *telco.ValidationError before
// anything is written otherwise); the message itself is checked by the
// worker, which records a refusal in telco_sends.
//
// A message whose project and ExternalID are already in telco_sends (from
// an earlier call, an earlier message of the same call, or a concurrent
// transaction that commits first) is skipped, and so is one River already
// holds a unique job for. Enqueue returns how many jobs it inserted.
//
// rc may be an insert-only client (no Queues, no Workers).
func Enqueue(ctx context.Context, rc *river.Client[pgx.Tx], tx pgx.Tx, msgs ...SendArgs) (int, error) {
	var bad []telco.FieldError
	for i, m := range msgs {
		if m.PropertySid == "" {
			bad = append(bad, telco.FieldError{Code: telco.CodeParameterRequired, FieldName: "PropertySid",
				Message: fmt.Sprintf("message %d: a project is required", i)})
		}
		if m.ExternalID == "" {
			bad = append(bad, telco.FieldError{Code: telco.CodeParameterRequired, FieldName: "ExternalId",
				Message: fmt.Sprintf("message %d: an ExternalId is required to send once", i)})
		}
	}
	if len(bad) > 0 {
		return 0, &telco.ValidationError{Op: "riversend.Enqueue", Fields: bad}
	}
	if len(msgs) == 0 {
		return 0, nil
	}
	props := make([]string, len(msgs))
	ids := make([]string, len(msgs))
	for i, m := range msgs {
		props[i], ids[i] = m.PropertySid, m.ExternalID
	}
	// The outcome rows go first: their primary key decides which messages
	// are new, for good, whatever River's retention later removes.
	rows, err := tx.Query(ctx, `
		INSERT INTO telco_sends (property_sid, external_id)
		SELECT * FROM unnest($1::text[], $2::text[])
		ON CONFLICT DO NOTHING
		RETURNING property_sid, external_id`, props, ids)
	if err != nil {
		return 0, fmt.Errorf("riversend: Enqueue: %w", err)
	}
	type key struct{ prop, id string }
	fresh := make(map[key]bool)
	for rows.Next() {
		var k key
		if err := rows.Scan(&k.prop, &k.id); err != nil {
			rows.Close()
			return 0, fmt.Errorf("riversend: Enqueue: %w", err)
		}
		fresh[k] = true
	}
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("riversend: Enqueue: %w", err)
	}
	params := make([]river.InsertManyParams, 0, len(fresh))
	for _, m := range msgs {
		k := key{m.PropertySid, m.ExternalID}
		if fresh[k] {
			delete(fresh, k) // the first of duplicates within this call
			params = append(params, river.InsertManyParams{Args: m})
		}
	}
	if len(params) == 0 {
		return 0, nil
	}
	res, err := rc.InsertManyTx(ctx, tx, params)
	if err != nil {
		return 0, fmt.Errorf("riversend: Enqueue: %w", err)
	}
	n := 0
	for _, r := range res {
		if !r.UniqueSkippedAsDuplicate {
			n++
		}
	}
	return n, nil
}

// Outcome is one row of telco_sends.
type Outcome struct {
	PropertySid  string
	ExternalID   string
	State        State
	MessageSid   string // set when State is StateSent
	ErrorCode    string // the service's (or validation's) code, when refused
	ErrorMessage string // the refusal or the last error
	Attempts     int    // attempts that reached the worker, snoozed ones included
	EnqueuedAt   time.Time
	FinishedAt   time.Time // zero while enqueued
}

// ErrNotEnqueued is returned by Lookup when telco_sends has no row for the
// message.
var ErrNotEnqueued = errors.New("riversend: message not enqueued")

// Lookup returns the outcome of one message.
func Lookup(ctx context.Context, db DB, propertySid, externalID string) (*Outcome, error) {
	var (
		o              Outcome
		sid, code, msg *string
		finished       *time.Time
		state          string
	)
	err := db.QueryRow(ctx, `
		SELECT property_sid, external_id, state, message_sid, error_code, error_message,
		       attempts, enqueued_at, finished_at
		FROM telco_sends WHERE property_sid = $1 AND external_id = $2`, propertySid, externalID).
		Scan(&o.PropertySid, &o.ExternalID, &state, &sid, &code, &msg, &o.Attempts, &o.EnqueuedAt, &finished)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, ErrNotEnqueued
	}
	if err != nil {
		return nil, fmt.Errorf("riversend: Lookup: %w", err)
	}
	o.State = State(state)
	o.MessageSid, o.ErrorCode, o.ErrorMessage = deref(sid), deref(code), deref(msg)
	if finished != nil {
		o.FinishedAt = *finished
	}
	return &o, nil
}

// CountStates counts the messages of telco_sends in each state.
func CountStates(ctx context.Context, db DB) (map[State]int, error) {
	rows, err := db.Query(ctx, `SELECT state, count(*) FROM telco_sends GROUP BY state`)
	if err != nil {
		return nil, fmt.Errorf("riversend: CountStates: %w", err)
	}
	defer rows.Close()
	out := make(map[State]int)
	for rows.Next() {
		var s string
		var n int
		if err := rows.Scan(&s, &n); err != nil {
			return nil, fmt.Errorf("riversend: CountStates: %w", err)
		}
		out[State(s)] = n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("riversend: CountStates: %w", err)
	}
	return out, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// begin notes that an attempt starts and returns when the first attempt
// started, by the database's clock: no attempt of the job can have sent
// its message before then, so a retried job's lookup starts there rather
// than at its creation (a campaign's jobs can wait in the queue for
// hours).
func begin(ctx context.Context, db DB, a *SendArgs, attempt int) (time.Time, error) {
	var first time.Time
	err := db.QueryRow(ctx, `
		INSERT INTO telco_sends AS t (property_sid, external_id, attempts, first_attempt_at)
		VALUES ($1, $2, $3, now())
		ON CONFLICT (property_sid, external_id) DO UPDATE SET
		    attempts = greatest(t.attempts + 1, excluded.attempts),
		    first_attempt_at = coalesce(t.first_attempt_at, excluded.first_attempt_at)
		RETURNING first_attempt_at`, a.PropertySid, a.ExternalID, attempt).Scan(&first)
	if err != nil {
		return time.Time{}, fmt.Errorf("riversend: noting an attempt of %s: %w", a.ExternalID, err)
	}
	return first, nil
}

// record writes a finished outcome. It inserts the row when the job was
// inserted without Enqueue, and overwrites an earlier outcome: a job that
// is worked again after its outcome was written (a crash between the two)
// reaches the same outcome.
//
// It runs on a context of its own, detached from the job's: a message that
// was sent as the job timed out is still worth recording.
func record(ctx context.Context, db DB, a *SendArgs, attempt int, o Outcome) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	defer cancel()
	_, err := db.Exec(ctx, `
		INSERT INTO telco_sends AS t (property_sid, external_id, state, message_sid, error_code,
		                              error_message, attempts, finished_at)
		VALUES ($1, $2, $3, nullif($4, ''), nullif($5, ''), nullif($6, ''), $7, now())
		ON CONFLICT (property_sid, external_id) DO UPDATE SET
		    state = excluded.state, message_sid = excluded.message_sid,
		    error_code = excluded.error_code, error_message = excluded.error_message,
		    attempts = greatest(t.attempts, excluded.attempts), finished_at = now()`,
		a.PropertySid, a.ExternalID, string(o.State), o.MessageSid, o.ErrorCode, o.ErrorMessage, attempt)
	if err != nil {
		return fmt.Errorf("riversend: recording the outcome of %s: %w", a.ExternalID, err)
	}
	return nil
}
