package riversend_test

import (
	"context"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/telcosdk/telco/contrib/riversend"
	"github.com/telcosdk/telco/contrib/riversend/pgtest"
)

// newDB starts a Postgres for t, migrated for River and telco_sends.
func newDB(t *testing.T) *pgxpool.Pool {
	t.Helper()
	return migrated(t, pgtest.Start(t))
}

func pgtestStart(t *testing.T) string { t.Helper(); return pgtest.Start(t) }

func newServer(t *testing.T) *pgtest.Server { t.Helper(); return pgtest.New(t) }

// quietLogger drops River's logs below warnings (rescues and retries
// are expected in these tests).
func quietLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
}

// migrated connects to dsn and migrates it for River and telco_sends.
func migrated(t *testing.T, dsn string) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = 40
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := riversend.Migrate(ctx, pool); err != nil {
		t.Fatal(err)
	}
	return pool
}

// insertOnly is a River client that only inserts jobs.
func insertOnly(t *testing.T, pool *pgxpool.Pool) *river.Client[pgx.Tx] {
	t.Helper()
	rc, err := river.NewClient(riverpgxv5.New(pool), &river.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return rc
}

// reset empties the tables between subtests sharing one server.
func reset(t *testing.T, pool *pgxpool.Pool) {
	t.Helper()
	if _, err := pool.Exec(context.Background(), "TRUNCATE river_job, telco_sends"); err != nil {
		t.Fatal(err)
	}
}

func count(t *testing.T, pool *pgxpool.Pool, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// enqueue commits msgs in one transaction and returns how many messages
// were enqueued.
func enqueue(t *testing.T, pool *pgxpool.Pool, rc *river.Client[pgx.Tx], msgs ...riversend.SendArgs) int {
	t.Helper()
	return enqueueChunks(t, pool, rc, 0, msgs...)
}

// enqueueChunks is enqueue in jobs of chunk messages (0: the default).
func enqueueChunks(t *testing.T, pool *pgxpool.Pool, rc *river.Client[pgx.Tx], chunk int, msgs ...riversend.SendArgs) int {
	t.Helper()
	ctx := context.Background()
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	n, err := riversend.EnqueueWith(ctx, rc, tx, riversend.EnqueueOptions{ChunkSize: chunk}, msgs...)
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	return n
}
