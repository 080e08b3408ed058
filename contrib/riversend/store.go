package riversend

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
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

// State is where a message is in telco_sends: the column state, a
// summary for people and for River's side of the work. The Ledger keeps
// its own, finer state beside it (Outcome.LedgerState).
//
// How they relate: a message is StateSent exactly when the ledger says
// telco.LedgerSent, whoever learnt it (a worker, a SendOnce outside River,
// a look-up). StateRefused and StateFailed are verdicts of the Worker on
// a River job (it cancelled the job, or River ran out of attempts); the
// ledger then says telco.LedgerRefused, LedgerNotSent or LedgerInDoubt
// (a failed job's message may still have been sent: it is looked up
// before any new send). An attempt that begins after such a verdict (the
// message sent again by other means) makes it StateEnqueued again. Every
// other row is StateEnqueued, a message outside River included (sent with
// SendOnce on the Ledger, not sent yet).
type State string

// The states of a message in telco_sends.
const (
	// StateEnqueued: not settled: the job is waiting, running or
	// retrying, or a SendOnce is at work on it.
	StateEnqueued State = "enqueued"
	// StateSent: the service stored the message; MessageSid is set.
	StateSent State = "sent"
	// StateRefused: the service (or client-side validation) refused the
	// message in a way retrying cannot fix, or its ExternalId was used
	// for another message; ErrorCode says why. The job was cancelled and
	// nothing was sent.
	StateRefused State = "refused"
	// StateFailed: River ran out of attempts. ErrorMessage is the last
	// error. The ledger keeps the message in doubt when it may have been
	// sent, so a later SendOnce on the Ledger looks it up before sending.
	StateFailed State = "failed"
)

// recordTimeout bounds the write of an outcome.
const recordTimeout = 10 * time.Second

// schema creates telco_sends, and brings a table of an earlier version to
// this one: the ledger's columns are added, and the rows' ledger states
// are derived from their outcomes (an attempt that may have sent, the
// last of a failed job or one in progress, is in doubt: looked up before
// any new send). Every statement is idempotent.
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
ALTER TABLE telco_sends
    ADD COLUMN IF NOT EXISTS ledger_state     text,
    ADD COLUMN IF NOT EXISTS digest           text,
    ADD COLUMN IF NOT EXISTS last_attempt_at  timestamptz,
    ADD COLUMN IF NOT EXISTS attempt_ended_at timestamptz,
    ADD COLUMN IF NOT EXISTS claim_until      timestamptz,
    ADD COLUMN IF NOT EXISTS attempt_nanos    integer[],
    ADD COLUMN IF NOT EXISTS message          jsonb,
    ADD COLUMN IF NOT EXISTS found            boolean NOT NULL DEFAULT false,
    ADD COLUMN IF NOT EXISTS error            jsonb;
UPDATE telco_sends SET ledger_state = CASE
        WHEN state = 'sent' THEN 'sent'
        WHEN state = 'refused' THEN 'refused'
        WHEN state = 'failed' OR attempts > 0 THEN 'in-doubt'
        ELSE 'new' END
    WHERE ledger_state IS NULL;
ALTER TABLE telco_sends ALTER COLUMN ledger_state SET DEFAULT 'new',
    ALTER COLUMN ledger_state SET NOT NULL;
`

// migrateLock serializes concurrent Migrates of one database (an
// advisory lock's key: "telco_se" in ASCII).
const migrateLock = 0x74656c636f5f7365

// Migrate brings River's tables to the latest version with rivermigrate,
// creates telco_sends, or adds the Ledger's columns to a telco_sends of an
// earlier version, keeping its rows, and creates telco_callbacks (the
// table of CallbackOnce). Every step is idempotent and safe to run from
// several processes at once; run it at deploy time, before workers of this
// version start, and with no worker of an earlier version still running
// (those keep no ledger). MigrateSends does the second step alone, for a
// database whose River tables are migrated otherwise, or that uses the
// Ledger without River; MigrateCallbacks the third, for a receiver of
// webhooks that needs only CallbackOnce.
func Migrate(ctx context.Context, pool *pgxpool.Pool) error {
	m, err := rivermigrate.New(riverpgxv5.New(pool), nil)
	if err != nil {
		return fmt.Errorf("riversend: Migrate: %w", err)
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("riversend: Migrate: river: %w", err)
	}
	if err := MigrateSends(ctx, pool); err != nil {
		return fmt.Errorf("riversend: Migrate: %w", err)
	}
	if err := MigrateCallbacks(ctx, pool); err != nil {
		return fmt.Errorf("riversend: Migrate: %w", err)
	}
	return nil
}

// MigrateSends creates telco_sends, or brings it to this version; it is
// idempotent and takes a lock of its own, so concurrent runs wait for
// each other.
func MigrateSends(ctx context.Context, pool *pgxpool.Pool) error {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("riversend: MigrateSends: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", int64(migrateLock)); err != nil {
		return fmt.Errorf("riversend: MigrateSends: %w", err)
	}
	if _, err := tx.Exec(ctx, schema); err != nil {
		return fmt.Errorf("riversend: MigrateSends: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("riversend: MigrateSends: %w", err)
	}
	return nil
}

// Enqueue inserts the messages as jobs of up to DefaultChunkSize messages
// of one project (SendChunkArgs) inside tx, the caller's own transaction:
// the messages are sent only if tx commits. Every message needs
// PropertySid and ExternalID (a *telco.ValidationError before anything is
// written otherwise); the message itself is checked by the worker, which
// records a refusal in telco_sends.
//
// A message whose project and ExternalID are already in telco_sends (from
// an earlier call, an earlier message of the same call, or a concurrent
// transaction that commits first) is skipped: its row, which Enqueue
// inserts in tx beside the jobs, is what makes each message unique.
// Enqueue returns how many messages it enqueued.
//
// rc may be an insert-only client (no Queues, no Workers).
func Enqueue(ctx context.Context, rc *river.Client[pgx.Tx], tx pgx.Tx, msgs ...SendArgs) (int, error) {
	return EnqueueWith(ctx, rc, tx, EnqueueOptions{}, msgs...)
}

// EnqueueOptions are the choices of EnqueueWith.
type EnqueueOptions struct {
	// ChunkSize is the most messages in one job; 0 means DefaultChunkSize.
	// Larger chunks cost fewer requests and transactions per message;
	// smaller ones spread a small campaign over more workers, and a chunk
	// that fails as a whole (the service refusing the request, a send in
	// doubt) holds fewer messages back.
	ChunkSize int
}

// EnqueueWith is Enqueue with options.
func EnqueueWith(ctx context.Context, rc *river.Client[pgx.Tx], tx pgx.Tx, opts EnqueueOptions, msgs ...SendArgs) (int, error) {
	var bad []telco.FieldError
	if opts.ChunkSize < 0 {
		bad = append(bad, telco.FieldError{Code: telco.CodeParameterInvalid, FieldName: "ChunkSize",
			Message: fmt.Sprintf("ChunkSize must be 0 (the default) or more, not %d", opts.ChunkSize)})
	}
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
	size := opts.ChunkSize
	if size == 0 {
		size = DefaultChunkSize
	}
	props := make([]string, len(msgs))
	ids := make([]string, len(msgs))
	for i, m := range msgs {
		props[i], ids[i] = m.PropertySid, m.ExternalID
	}
	// The outcome rows go first: their primary key decides which messages
	// are new, for good, whatever River's retention later removes. They
	// are inserted in key order, the order a Ledger locks its rows in, so
	// that the two cannot deadlock.
	rows, err := tx.Query(ctx, `
		INSERT INTO telco_sends (property_sid, external_id)
		SELECT * FROM unnest($1::text[], $2::text[]) AS k(p, i) ORDER BY p, i
		ON CONFLICT DO NOTHING
		RETURNING property_sid, external_id`, props, ids)
	if err != nil {
		return 0, fmt.Errorf("riversend: Enqueue: %w", err)
	}
	fresh := make(map[ledgerKey]bool)
	for rows.Next() {
		var k ledgerKey
		if err := rows.Scan(&k.prop, &k.id); err != nil {
			rows.Close()
			return 0, fmt.Errorf("riversend: Enqueue: %w", err)
		}
		fresh[k] = true
	}
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("riversend: Enqueue: %w", err)
	}
	// The new messages by project, in the order given; the first of
	// duplicates within this call.
	var order []string
	byProp := map[string][]SendArgs{}
	n := 0
	for _, m := range msgs {
		k := ledgerKey{m.PropertySid, m.ExternalID}
		if !fresh[k] {
			continue
		}
		delete(fresh, k)
		if _, ok := byProp[k.prop]; !ok {
			order = append(order, k.prop)
		}
		byProp[k.prop] = append(byProp[k.prop], m)
		n++
	}
	var params []river.InsertManyParams
	for _, p := range order {
		g := byProp[p]
		for s := 0; s < len(g); s += size {
			params = append(params, river.InsertManyParams{Args: SendChunkArgs{Messages: g[s:min(s+size, len(g))]}})
		}
	}
	if len(params) == 0 {
		return 0, nil
	}
	if _, err := rc.InsertManyTx(ctx, tx, params); err != nil {
		return 0, fmt.Errorf("riversend: Enqueue: %w", err)
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
	// Attempts counts the attempts to send that the ledger recorded (each
	// one made a request, or may have); a job's snoozes and a look-up that
	// found the message are not attempts.
	Attempts   int
	EnqueuedAt time.Time // when the row was made: by Enqueue, or the first SendOnce
	FinishedAt time.Time // zero while enqueued
	// LedgerState is the Ledger's state of the message (see State).
	LedgerState telco.LedgerState
}

// ErrNotEnqueued is returned by Lookup when telco_sends has no row for the
// message.
var ErrNotEnqueued = errors.New("riversend: message not enqueued")

// Lookup returns the outcome of one message.
func Lookup(ctx context.Context, db DB, propertySid, externalID string) (*Outcome, error) {
	var (
		o               Outcome
		sid, code, msg  *string
		finished        *time.Time
		state, ledgerSt string
	)
	err := db.QueryRow(ctx, `
		SELECT property_sid, external_id, state, message_sid, error_code, error_message,
		       attempts, enqueued_at, finished_at, ledger_state
		FROM telco_sends WHERE property_sid = $1 AND external_id = $2`, propertySid, externalID).
		Scan(&o.PropertySid, &o.ExternalID, &state, &sid, &code, &msg, &o.Attempts, &o.EnqueuedAt, &finished, &ledgerSt)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, ErrNotEnqueued
	}
	if err != nil {
		return nil, fmt.Errorf("riversend: Lookup: %w", err)
	}
	o.State, o.LedgerState = State(state), ledgerStateOf(ledgerSt)
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

// verdict is the Worker's verdict on one message: StateRefused or
// StateFailed, and why.
type verdict struct {
	a   *SendArgs
	st  State
	err error
}

// recordVerdicts records the Worker's verdicts in one statement, except
// on messages sent: a verdict never hides a sent message. It inserts the
// rows of messages whose job was inserted without Enqueue.
//
// It runs on a context of its own, detached from the job's: a verdict
// reached as the job timed out is still worth recording.
func recordVerdicts(ctx context.Context, db DB, vs []verdict) error {
	if len(vs) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	defer cancel()
	// One verdict per message (the last), in key order: the order a
	// Ledger locks its rows in.
	last := map[ledgerKey]verdict{}
	for _, v := range vs {
		last[ledgerKey{v.a.PropertySid, v.a.ExternalID}] = v
	}
	keys := make([]ledgerKey, 0, len(last))
	for k := range last {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b ledgerKey) int { return cmp.Or(cmp.Compare(a.prop, b.prop), cmp.Compare(a.id, b.id)) })
	var props, ids, states, codes, texts []string
	for _, k := range keys {
		v := last[k]
		props, ids, states = append(props, k.prop), append(ids, k.id), append(states, string(v.st))
		text := ""
		if v.err != nil {
			text = v.err.Error()
		}
		codes, texts = append(codes, telco.ErrorCode(v.err)), append(texts, text)
	}
	_, err := db.Exec(ctx, `
		INSERT INTO telco_sends AS t (property_sid, external_id, state, error_code, error_message, finished_at)
		SELECT p, i, s, nullif(c, ''), nullif(m, ''), now()
		FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[]) AS v(p, i, s, c, m)
		ORDER BY p, i
		ON CONFLICT (property_sid, external_id) DO UPDATE SET
		    state = excluded.state, error_code = excluded.error_code,
		    error_message = excluded.error_message, finished_at = now()
		WHERE t.state <> 'sent'`,
		props, ids, states, codes, texts)
	if err != nil {
		if len(keys) == 1 {
			return fmt.Errorf("riversend: recording the outcome of %s: %w", keys[0].id, err)
		}
		return fmt.Errorf("riversend: recording the outcomes of %d messages: %w", len(keys), err)
	}
	return nil
}
