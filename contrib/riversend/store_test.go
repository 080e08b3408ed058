package riversend_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/telcosdk/telco"

	"github.com/telcosdk/telco/contrib/riversend"
)

func msg(id string) riversend.SendArgs {
	return riversend.SendArgs{PropertySid: "PR1", ExternalID: id, From: "+61400000001", To: "+61400000002", Text: "hi " + id}
}

// TestStore shares one Postgres between the subtests that need little of it.
func TestStore(t *testing.T) {
	pool := newDB(t)
	rc := insertOnly(t, pool)
	ctx := context.Background()

	t.Run("enqueueing twice inserts one job", func(t *testing.T) {
		reset(t, pool)
		if n := enqueue(t, pool, rc, msg("a"), msg("b"), msg("a")); n != 2 {
			t.Fatalf("first Enqueue enqueued %d messages, want 2 (one duplicate within the call)", n)
		}
		if n := enqueue(t, pool, rc, msg("b"), msg("c")); n != 1 {
			t.Fatalf("second Enqueue enqueued %d messages, want 1 (b was enqueued before)", n)
		}
		// One chunk per call, holding each message once.
		if got := queued(t, pool); len(got) != 2 || fmt.Sprint(got) != "[[PR1/a PR1/b] [PR1/c]]" {
			t.Fatalf("jobs %v, want [[PR1/a PR1/b] [PR1/c]]", got)
		}
		// The same ExternalId in another project is another message.
		other := msg("a")
		other.PropertySid = "PR2"
		if n := enqueue(t, pool, rc, other); n != 1 {
			t.Fatalf("same ExternalId in another project: %d messages, want 1", n)
		}
		o, err := riversend.Lookup(ctx, pool, "PR1", "a")
		if err != nil {
			t.Fatal(err)
		}
		if o.State != riversend.StateEnqueued || o.MessageSid != "" || !o.FinishedAt.IsZero() {
			t.Fatalf("outcome after Enqueue = %+v, want enqueued and unfinished", o)
		}
	})

	t.Run("chunks hold one project each, at most ChunkSize messages, in input order", func(t *testing.T) {
		reset(t, pool)
		var msgs []riversend.SendArgs
		for i := range 7 {
			m := msg(fmt.Sprintf("m%d", i))
			if i%2 == 1 {
				m.PropertySid = "PR2"
			}
			msgs = append(msgs, m)
		}
		tx, err := pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback(ctx)
		n, err := riversend.EnqueueWith(ctx, rc, tx, riversend.EnqueueOptions{ChunkSize: 2}, msgs...)
		if err != nil || n != 7 {
			t.Fatalf("EnqueueWith = %d, %v; want 7 messages", n, err)
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		want := "[[PR1/m0 PR1/m2] [PR1/m4 PR1/m6] [PR2/m1 PR2/m3] [PR2/m5]]"
		if got := fmt.Sprint(queued(t, pool)); got != want {
			t.Fatalf("jobs %s, want %s", got, want)
		}
		// The default: DefaultChunkSize messages a job.
		reset(t, pool)
		msgs = msgs[:0]
		for i := range 2*riversend.DefaultChunkSize + 1 {
			msgs = append(msgs, msg(fmt.Sprintf("d%04d", i)))
		}
		if n := enqueue(t, pool, rc, msgs...); n != len(msgs) {
			t.Fatalf("Enqueue = %d, want %d", n, len(msgs))
		}
		var sizes []int
		for _, j := range queued(t, pool) {
			sizes = append(sizes, len(j))
		}
		if fmt.Sprint(sizes) != fmt.Sprintf("[%d %d 1]", riversend.DefaultChunkSize, riversend.DefaultChunkSize) {
			t.Fatalf("chunk sizes %v, want two of DefaultChunkSize and one of 1", sizes)
		}
		if _, err := riversend.EnqueueWith(ctx, rc, nil, riversend.EnqueueOptions{ChunkSize: -1}, msg("x")); telco.ErrorCode(err) != telco.CodeParameterInvalid {
			t.Fatalf("EnqueueWith a negative ChunkSize = %v, want a ValidationError", err)
		}
	})

	t.Run("River alone keeps jobs unique by ExternalId", func(t *testing.T) {
		reset(t, pool)
		// Inserted without Enqueue (no telco_sends row): River's unique
		// jobs still refuse the second, whatever the other fields say.
		first, err := rc.Insert(ctx, msg("x"), nil)
		if err != nil {
			t.Fatal(err)
		}
		again := msg("x")
		again.Text = "different text, same message"
		second, err := rc.Insert(ctx, again, nil)
		if err != nil {
			t.Fatal(err)
		}
		if first.UniqueSkippedAsDuplicate || !second.UniqueSkippedAsDuplicate || second.Job.ID != first.Job.ID {
			t.Fatalf("unique insert: first skipped=%v, second skipped=%v (ids %d, %d)",
				first.UniqueSkippedAsDuplicate, second.UniqueSkippedAsDuplicate, first.Job.ID, second.Job.ID)
		}
		if second.Job.Queue != riversend.Queue {
			t.Fatalf("queue %q, want %q", second.Job.Queue, riversend.Queue)
		}
	})

	t.Run("Enqueue commits with the caller's transaction or not at all", func(t *testing.T) {
		reset(t, pool)
		tx, err := pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, "CREATE TEMP TABLE orders (id int)"); err != nil {
			t.Fatal(err)
		}
		if n, err := riversend.Enqueue(ctx, rc, tx, msg("r1"), msg("r2")); err != nil || n != 2 {
			t.Fatalf("Enqueue in tx = %d, %v", n, err)
		}
		if n := count(t, pool, "SELECT count(*) FROM river_job"); n != 0 {
			t.Fatalf("%d jobs visible outside the open transaction, want 0", n)
		}
		if err := tx.Rollback(ctx); err != nil {
			t.Fatal(err)
		}
		if n := count(t, pool, "SELECT count(*) FROM river_job") + count(t, pool, "SELECT count(*) FROM telco_sends"); n != 0 {
			t.Fatalf("%d rows left after rollback, want 0", n)
		}
		// Rolled back, so not "already enqueued": it can be enqueued now.
		if n := enqueue(t, pool, rc, msg("r1")); n != 1 {
			t.Fatalf("after rollback, Enqueue inserted %d, want 1", n)
		}
	})

	t.Run("Enqueue refuses messages without a key before writing", func(t *testing.T) {
		reset(t, pool)
		tx, err := pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback(ctx)
		bad := msg("")
		noProp := msg("p")
		noProp.PropertySid = ""
		_, err = riversend.Enqueue(ctx, rc, tx, msg("ok"), bad, noProp)
		var ve *telco.ValidationError
		if !errors.As(err, &ve) || len(ve.Fields) != 2 || telco.ErrorCode(err) != telco.CodeParameterRequired {
			t.Fatalf("Enqueue without ExternalId/PropertySid: %v, want a ValidationError with 2 fields", err)
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		if n := count(t, pool, "SELECT count(*) FROM river_job"); n != 0 {
			t.Fatalf("%d jobs written by a refused Enqueue, want 0", n)
		}
	})

	t.Run("Lookup of a message never enqueued", func(t *testing.T) {
		reset(t, pool)
		if _, err := riversend.Lookup(ctx, pool, "PR1", "nope"); !errors.Is(err, riversend.ErrNotEnqueued) {
			t.Fatalf("Lookup = %v, want ErrNotEnqueued", err)
		}
	})

	t.Run("worker", func(t *testing.T) { testWorker(t, pool) })
}

// job builds the job River would hand the worker: a chunk of msgs.
func job(attempt int, msgs ...riversend.SendArgs) *river.Job[riversend.SendChunkArgs] {
	return &river.Job[riversend.SendChunkArgs]{
		JobRow: &rivertype.JobRow{ID: 1, Attempt: attempt, MaxAttempts: 5, CreatedAt: time.Now().Add(-time.Minute),
			Kind: riversend.ChunkKind, State: rivertype.JobStateRunning},
		Args: riversend.SendChunkArgs{Messages: msgs},
	}
}

// messageJob builds a job of one message (SendArgs), as earlier versions
// of Enqueue inserted.
func messageJob(a riversend.SendArgs, attempt int) *river.Job[riversend.SendArgs] {
	return &river.Job[riversend.SendArgs]{
		JobRow: &rivertype.JobRow{ID: 1, Attempt: attempt, MaxAttempts: 5, CreatedAt: time.Now().Add(-time.Minute),
			Kind: riversend.Kind, State: rivertype.JobStateRunning},
		Args: a,
	}
}

// queued lists the chunk jobs in the order they were inserted, each as
// the "project/ExternalId" of its messages.
func queued(t *testing.T, pool *pgxpool.Pool) [][]string {
	t.Helper()
	rows, err := pool.Query(context.Background(), "SELECT args FROM river_job WHERE kind = $1 ORDER BY id", riversend.ChunkKind)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out [][]string
	for rows.Next() {
		var a riversend.SendChunkArgs
		if err := rows.Scan(&a); err != nil {
			t.Fatal(err)
		}
		var keys []string
		for _, m := range a.Messages {
			keys = append(keys, m.PropertySid+"/"+m.ExternalID)
		}
		out = append(out, keys)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
