// River-campaign sends a campaign of SMS from a CSV through a River job
// queue on Postgres: it enqueues every message in one transaction, runs
// worker nodes until the queue is drained, and reports messages per
// second.
//
//	go run ./examples/river-campaign -csv examples/river-campaign/testdata/campaign.csv
//	go run ./examples/river-campaign -generate 5000 -workers 4
//
// (from contrib/riversend). The CSV has a header and the columns
// external_id, to, text, and optionally from; -generate N makes N
// messages instead.
//
// Postgres: DATABASE_URL, or, when it is unset, a throwaway server started
// in a temporary directory from Debian's postgresql package (initdb and
// pg_ctl under /usr/lib/postgresql/<version>/bin) and removed at exit.
//
// The service: TELCO_BASE_URL, TELCO_ACCOUNT_SID, TELCO_TOKEN and
// TELCO_PROPERTY_SID (`telco mock` prints them), or, without credentials,
// an embedded telcotest server, so that nothing leaves the machine.
//
// -workers is the number of River clients (one per process in a real
// deployment), each working -concurrency jobs at a time, each with a
// telco.Client of its own whose send ledger is the shared one in Postgres
// (telco.WithLedger(riversend.NewLedger(pool))), as every process of a
// fleet must have.
package main

import (
	"context"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/telcotest"

	"github.com/telcosdk/telco/contrib/riversend"
	"github.com/telcosdk/telco/contrib/riversend/internal/pgtest"
)

// config is what a run needs.
type config struct {
	sid, token, base, propertySid string // empty sid: an embedded fake
	dsn                           string // empty: a throwaway Postgres
	csvPath                       string
	generate                      int
	from                          string // sender when the CSV has none
	workers, concurrency          int
	timeout                       time.Duration
}

func main() {
	cfg := config{sid: os.Getenv("TELCO_ACCOUNT_SID"), token: os.Getenv("TELCO_TOKEN"),
		base: os.Getenv("TELCO_BASE_URL"), propertySid: os.Getenv("TELCO_PROPERTY_SID"),
		dsn: os.Getenv("DATABASE_URL")}
	flag.StringVar(&cfg.csvPath, "csv", "", "CSV of messages: external_id,to,text[,from] with a header")
	flag.IntVar(&cfg.generate, "generate", 0, "make this many messages instead of reading a CSV")
	flag.StringVar(&cfg.from, "from", "Campaign", "sender for messages without one")
	flag.IntVar(&cfg.workers, "workers", 2, "River clients working the queue")
	flag.IntVar(&cfg.concurrency, "concurrency", 20, "jobs each client works at once")
	flag.DurationVar(&cfg.timeout, "timeout", 10*time.Minute, "give up after this long")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), cfg.timeout)
	defer cancel()
	if err := run(ctx, os.Stdout, cfg); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, out io.Writer, cfg config) error {
	newClient, propertySid, closeSvc, err := service(out, cfg)
	if err != nil {
		return err
	}
	defer closeSvc()
	msgs, err := messages(cfg, propertySid)
	if err != nil {
		return err
	}
	if cfg.dsn == "" {
		pg, err := pgtest.StartServer()
		if err != nil {
			return fmt.Errorf("no DATABASE_URL, and a throwaway Postgres did not start: %w", err)
		}
		defer pg.Stop()
		cfg.dsn = pg.DSN
		fmt.Fprintln(out, "No DATABASE_URL: using a throwaway Postgres on 127.0.0.1")
	}
	pool, err := pgxpool.New(ctx, cfg.dsn)
	if err != nil {
		return err
	}
	defer pool.Close()
	if err := riversend.Migrate(ctx, pool); err != nil {
		return err
	}

	// The campaign is one transaction: all of it is queued, or none.
	start := time.Now()
	n, err := enqueue(ctx, pool, msgs)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "enqueued %d of %d messages in one transaction in %v\n", n, len(msgs), time.Since(start).Round(time.Millisecond))

	start = time.Now()
	var nodes []*river.Client[pgx.Tx]
	for i := range cfg.workers {
		// Each node as its own process would: its own Client, on the
		// ledger every node shares.
		client, err := newClient(telco.WithLedger(riversend.NewLedger(pool)))
		if err != nil {
			return err
		}
		rc, err := startNode(ctx, pool, fmt.Sprintf("worker-%d", i), client, cfg.concurrency)
		if err != nil {
			return err
		}
		nodes = append(nodes, rc)
	}
	defer func() {
		stopCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		for _, rc := range nodes {
			_ = rc.Stop(stopCtx)
		}
	}()
	states, err := drain(ctx, pool)
	el := time.Since(start)
	if err != nil {
		return err
	}
	done := states[riversend.StateSent] + states[riversend.StateRefused] + states[riversend.StateFailed]
	fmt.Fprintf(out, "%d workers x %d: %d sent, %d refused, %d failed in %v: %.0f messages/s\n",
		cfg.workers, cfg.concurrency, states[riversend.StateSent], states[riversend.StateRefused],
		states[riversend.StateFailed], el.Round(time.Millisecond), float64(done)/el.Seconds())
	return nil
}

// service returns how to make a client of the service (with extra
// options), the project to send from and how to close an embedded fake.
func service(out io.Writer, cfg config) (func(...telco.Option) (*telco.Client, error), string, func(), error) {
	if cfg.sid == "" || cfg.token == "" {
		srv := telcotest.NewServer()
		fmt.Fprintf(out, "No credentials: sending on an embedded fake service at %s\n", srv.URL)
		return func(opts ...telco.Option) (*telco.Client, error) { return srv.Client(opts...), nil },
			srv.PropertySid, srv.Close, nil
	}
	if cfg.propertySid == "" {
		return nil, "", nil, errors.New("with credentials, set TELCO_PROPERTY_SID")
	}
	var base []telco.Option
	if cfg.base != "" {
		base = append(base, telco.WithBaseURL(cfg.base))
	}
	c, err := telco.NewClient(cfg.sid, cfg.token, base...)
	if err != nil {
		return nil, "", nil, err
	}
	fmt.Fprintf(out, "Using the service at %s\n", c.BaseURL())
	return func(opts ...telco.Option) (*telco.Client, error) {
		return telco.NewClient(cfg.sid, cfg.token, append(append([]telco.Option{}, base...), opts...)...)
	}, cfg.propertySid, func() {}, nil
}

// messages reads the CSV, or makes cfg.generate messages with ExternalIds
// unique to this run.
func messages(cfg config, propertySid string) ([]riversend.SendArgs, error) {
	if cfg.generate > 0 {
		run := time.Now().UnixNano()
		out := make([]riversend.SendArgs, cfg.generate)
		for i := range out {
			out[i] = riversend.SendArgs{PropertySid: propertySid, ExternalID: fmt.Sprintf("gen-%d-%d", run, i),
				From: cfg.from, To: fmt.Sprintf("+614%08d", i), Text: fmt.Sprintf("Campaign message %d", i)}
		}
		return out, nil
	}
	if cfg.csvPath == "" {
		return nil, errors.New("give -csv FILE or -generate N")
	}
	f, err := os.Open(cfg.csvPath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readCSV(f, propertySid, cfg.from)
}

// readCSV reads external_id,to,text[,from] rows after a header, in any
// column order the header gives.
func readCSV(r io.Reader, propertySid, from string) ([]riversend.SendArgs, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("reading the CSV header: %w", err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[strings.ToLower(strings.TrimSpace(h))] = i
	}
	for _, need := range []string{"external_id", "to", "text"} {
		if _, ok := col[need]; !ok {
			return nil, fmt.Errorf("the CSV header has no %q column", need)
		}
	}
	get := func(rec []string, name string) string {
		if i, ok := col[name]; ok && i < len(rec) {
			return strings.TrimSpace(rec[i])
		}
		return ""
	}
	var out []riversend.SendArgs
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		a := riversend.SendArgs{PropertySid: propertySid, ExternalID: get(rec, "external_id"),
			To: get(rec, "to"), Text: get(rec, "text"), From: get(rec, "from")}
		if a.From == "" {
			a.From = from
		}
		if a.ExternalID == "" {
			return nil, fmt.Errorf("CSV line %d: no external_id", line)
		}
		out = append(out, a)
	}
}

func enqueue(ctx context.Context, pool *pgxpool.Pool, msgs []riversend.SendArgs) (int, error) {
	rc, err := river.NewClient(riverpgxv5.New(pool), &river.Config{}) // insert-only
	if err != nil {
		return 0, err
	}
	tx, err := pool.Begin(ctx)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback(ctx)
	n, err := riversend.Enqueue(ctx, rc, tx, msgs...)
	if err != nil {
		return 0, err
	}
	return n, tx.Commit(ctx)
}

// startNode starts one River client working the riversend queue, as one
// process of a fleet would; client's ledger must be a riversend.Ledger.
func startNode(ctx context.Context, pool *pgxpool.Pool, id string, client *telco.Client, concurrency int) (*river.Client[pgx.Tx], error) {
	w, err := riversend.NewWorker(riversend.WorkerConfig{Client: client})
	if err != nil {
		return nil, err
	}
	workers := river.NewWorkers()
	river.AddWorker(workers, w)
	rc, err := river.NewClient(riverpgxv5.New(pool), &river.Config{
		ID:            id,
		Queues:        map[string]river.QueueConfig{riversend.Queue: {MaxWorkers: concurrency}},
		Workers:       workers,
		FetchCooldown: 10 * time.Millisecond,
	})
	if err != nil {
		return nil, err
	}
	return rc, rc.Start(ctx)
}

// drain waits until no message is left enqueued and returns the counts.
func drain(ctx context.Context, pool *pgxpool.Pool) (map[riversend.State]int, error) {
	for {
		st, err := riversend.CountStates(ctx, pool)
		if err != nil {
			return nil, err
		}
		if st[riversend.StateEnqueued] == 0 {
			return st, nil
		}
		select {
		case <-ctx.Done():
			return st, fmt.Errorf("%d messages still queued: %w", st[riversend.StateEnqueued], ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}
