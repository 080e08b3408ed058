package riversend_test

import (
	"context"
	"errors"
	"testing"
	"time"

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
			t.Fatalf("first Enqueue inserted %d jobs, want 2 (one duplicate within the call)", n)
		}
		if n := enqueue(t, pool, rc, msg("b"), msg("c")); n != 1 {
			t.Fatalf("second Enqueue inserted %d jobs, want 1 (b was enqueued before)", n)
		}
		if n := count(t, pool, "SELECT count(*) FROM river_job WHERE kind = $1", riversend.Kind); n != 3 {
			t.Fatalf("%d jobs stored, want 3", n)
		}
		// The same ExternalId in another project is another message.
		other := msg("a")
		other.PropertySid = "PR2"
		if n := enqueue(t, pool, rc, other); n != 1 {
			t.Fatalf("same ExternalId in another project: %d jobs, want 1", n)
		}
		o, err := riversend.Lookup(ctx, pool, "PR1", "a")
		if err != nil {
			t.Fatal(err)
		}
		if o.State != riversend.StateEnqueued || o.MessageSid != "" || !o.FinishedAt.IsZero() {
			t.Fatalf("outcome after Enqueue = %+v, want enqueued and unfinished", o)
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

// job builds the job River would hand the worker.
func job(a riversend.SendArgs, attempt int) *river.Job[riversend.SendArgs] {
	return &river.Job[riversend.SendArgs]{
		JobRow: &rivertype.JobRow{ID: 1, Attempt: attempt, MaxAttempts: 5, CreatedAt: time.Now().Add(-time.Minute),
			Kind: riversend.Kind, State: rivertype.JobStateRunning},
		Args: a,
	}
}
