package pgtest

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

func TestStartServesQueriesOnLoopback(t *testing.T) {
	dsn := Start(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var addr string
	if err := conn.QueryRow(ctx, "SELECT host(inet_server_addr())").Scan(&addr); err != nil {
		t.Fatal(err)
	}
	if addr != "127.0.0.1" {
		t.Fatalf("server address %q, want 127.0.0.1", addr)
	}
}

func TestRestartKeepsCommittedRows(t *testing.T) {
	srv := New(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, srv.DSN)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "CREATE TABLE kept (n int); INSERT INTO kept VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	if err := srv.Restart(0); err != nil {
		t.Fatal(err)
	}
	// The old connection was cut by the crash.
	if _, err := conn.Exec(ctx, "SELECT 1"); err == nil {
		t.Fatal("a connection survived the restart")
	}
	conn2, err := pgx.Connect(ctx, srv.DSN)
	if err != nil {
		t.Fatal(err)
	}
	defer conn2.Close(ctx)
	var n int
	if err := conn2.QueryRow(ctx, "SELECT count(*) FROM kept").Scan(&n); err != nil || n != 1 {
		t.Fatalf("after the restart: %d rows, %v; want the committed row", n, err)
	}
}
