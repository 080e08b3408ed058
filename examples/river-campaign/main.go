// River-campaign sends an SMS campaign through a River job queue on
// Postgres with contrib/riversend, on 1, 2 and 4 worker nodes in turn, and
// prints how fast each sent it:
//
//	cd examples/river-campaign && go run .                # 5,000 generated messages, 1, 2 and 4 nodes
//	go run . -latency 40ms                                # the embedded fake takes 40 ms per send
//	go run . -csv testdata/campaign.csv -nodes 2          # a campaign of your own
//
// For each number of nodes it enqueues the whole campaign with one
// riversend.Enqueue in one transaction (what a program does when a
// campaign is approved: with its own data, or not at all), then starts
// the nodes and waits until every message is sent or refused. A node is
// what each process of a fleet runs: its own pool, its own telco.Client
// on the send ledger they all share (riversend.NewLedger), and a River
// client with River's defaults, working the riversend queue with
// MaxWorkers jobs at a time, each job a chunk of up to 100 messages.
//
// A generated campaign gets new ExternalIds for each run. A CSV's are its
// own (columns external_id, to, text and optionally from, after a
// header): each is enqueued and sent once, so a second run, or the second
// number of nodes, finds every message enqueued already and sends
// nothing.
//
// Postgres: DATABASE_URL, or, when it is unset, a throwaway server started
// in a temporary directory from Debian's postgresql package (initdb and
// pg_ctl under /usr/lib/postgresql/<version>/bin) and removed at exit.
//
// The service: with TELCO_ACCOUNT_SID and TELCO_TOKEN set, the client is
// built with telco.NewClientFromEnv (TELCO_BASE_URL too: `telco mock
// --env` prints them) and sends from TELCO_PROPERTY_SID; without them, an
// embedded telcotest server, so that nothing leaves the machine.
//
// It lives in a module of its own, as contrib/riversend does, so that the
// SDK's module graph gains nothing from River or pgx.
package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/contrib/riversend"
	"github.com/telcosdk/telco/contrib/riversend/pgtest"
	"github.com/telcosdk/telco/telcotest"
)

// config is what a run needs.
type config struct {
	dsn        string        // Postgres; empty: a throwaway server
	csvPath    string        // the campaign; empty: generate
	generate   int           // messages to generate without a CSV
	from       string        // sender when the CSV gives none
	nodes      []int         // the numbers of nodes to run, in turn
	maxWorkers int           // jobs each node works at once
	latency    time.Duration // added to every send of the embedded fake
	jsonOut    bool          // one JSON object per figure, not a sentence
}

func main() {
	cfg := config{dsn: os.Getenv("DATABASE_URL")}
	nodes := flag.String("nodes", "1,2,4", "numbers of worker nodes to run, in turn, comma-separated")
	flag.StringVar(&cfg.csvPath, "csv", "", "CSV of messages: external_id,to,text[,from] with a header")
	flag.IntVar(&cfg.generate, "generate", 5000, "messages to generate without -csv")
	flag.StringVar(&cfg.from, "from", "Campaign", "sender of messages that name none")
	flag.IntVar(&cfg.maxWorkers, "max-workers", 10, "jobs each node works at once (the queue's MaxWorkers)")
	flag.DurationVar(&cfg.latency, "latency", 0, "time the embedded fake adds to every send (a network's round trip)")
	flag.BoolVar(&cfg.jsonOut, "json", false, "print one JSON object per figure")
	timeout := flag.Duration("timeout", 10*time.Minute, "give up after this long")
	flag.Parse()
	var err error
	if cfg.nodes, err = parseNodes(*nodes); err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	if err := run(ctx, os.Stdout, os.Getenv, cfg); err != nil {
		log.Fatal(err)
	}
}

// parseNodes reads "1,2,4".
func parseNodes(s string) ([]int, error) {
	var out []int
	for f := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("-nodes %q: want numbers of at least 1, comma-separated", s)
		}
		out = append(out, n)
	}
	return out, nil
}

// figure is how one run went.
type figure struct {
	Nodes       int     `json:"nodes"`
	Messages    int     `json:"messages"`  // in the campaign
	Enqueued    int     `json:"enqueued"`  // new to the ledger: enqueued by this run
	Sent        int     `json:"sent"`      // of the campaign, by this run or an earlier one
	Refused     int     `json:"refused"`   // of the campaign
	Failed      int     `json:"failed"`    // of the campaign
	EnqueueSecs float64 `json:"enqueue_s"` // the one transaction of Enqueue
	SendSecs    float64 `json:"send_s"`    // from starting the nodes to the last message settled
	PerSecond   float64 `json:"msg_per_s"` // Enqueued / SendSecs: what this run sent (or refused) a second
	Latency     string  `json:"latency,omitempty"`
}

func run(ctx context.Context, out io.Writer, getenv func(string) string, cfg config) error {
	svc, err := openService(getenv, cfg.latency)
	if err != nil {
		return err
	}
	defer svc.close()
	if !cfg.jsonOut {
		fmt.Fprintln(out, svc.about)
	}
	if cfg.dsn == "" {
		pg, err := pgtest.StartServer()
		if err != nil {
			return fmt.Errorf("no DATABASE_URL, and a throwaway Postgres did not start: %w", err)
		}
		defer pg.Stop()
		cfg.dsn = pg.DSN
		if !cfg.jsonOut {
			fmt.Fprintln(out, "No DATABASE_URL: using a throwaway Postgres on 127.0.0.1")
		}
	}
	admin, err := pgxpool.New(ctx, cfg.dsn)
	if err != nil {
		return err
	}
	defer admin.Close()
	if err := riversend.Migrate(ctx, admin); err != nil {
		return err
	}
	for k, n := range cfg.nodes {
		msgs, err := campaign(cfg, svc.propertySid, k)
		if err != nil {
			return err
		}
		f, err := send(ctx, cfg, svc, admin, n, msgs)
		if err != nil {
			return err
		}
		if cfg.latency > 0 {
			f.Latency = cfg.latency.String()
		}
		if err := report(out, cfg.jsonOut, f); err != nil {
			return err
		}
	}
	return nil
}

func report(out io.Writer, asJSON bool, f figure) error {
	if asJSON {
		return json.NewEncoder(out).Encode(f)
	}
	_, err := fmt.Fprintf(out, "%d node(s): %d of %d messages enqueued in one transaction in %.3f s; "+
		"the campaign %d sent, %d refused, %d failed after %.3f s: %.0f messages/s\n",
		f.Nodes, f.Enqueued, f.Messages, f.EnqueueSecs, f.Sent, f.Refused, f.Failed, f.SendSecs, f.PerSecond)
	return err
}

// service is where the messages go.
type service struct {
	about       string
	propertySid string
	// newClient makes a Client of the service with extra options.
	newClient func(...telco.Option) (*telco.Client, error)
	close     func()
}

func openService(getenv func(string) string, latency time.Duration) (*service, error) {
	if getenv(telco.EnvAccountSid) == "" || getenv(telco.EnvToken) == "" {
		srv := telcotest.NewServer()
		if latency > 0 {
			// Every send waits, as a service tens of milliseconds away
			// makes its caller wait.
			for _, op := range []string{"Messages.Send", "Messages.SendBatch"} {
				srv.Inject(1<<30, telcotest.Fault{Kind: telcotest.FaultLatency, Delay: latency, Op: op})
			}
		}
		return &service{
			about:       "No credentials: sending to an embedded fake service at " + srv.URL,
			propertySid: srv.PropertySid,
			newClient:   func(opts ...telco.Option) (*telco.Client, error) { return srv.Client(opts...), nil },
			close:       srv.Close,
		}, nil
	}
	prop := getenv("TELCO_PROPERTY_SID")
	if prop == "" {
		return nil, errors.New("with credentials, set TELCO_PROPERTY_SID: the project to send from")
	}
	c, err := telco.NewClientFromEnv()
	if err != nil {
		return nil, err
	}
	return &service{
		about:       "Sending to the service at " + c.BaseURL(),
		propertySid: prop,
		newClient:   telco.NewClientFromEnv,
		close:       func() {},
	}, nil
}

// campaign reads the CSV, or generates cfg.generate messages with
// ExternalIds of run k's own.
func campaign(cfg config, propertySid string, k int) ([]riversend.SendArgs, error) {
	if cfg.csvPath == "" {
		tag := strconv.FormatInt(time.Now().UnixNano(), 36)
		out := make([]riversend.SendArgs, cfg.generate)
		for i := range out {
			out[i] = riversend.SendArgs{PropertySid: propertySid, ExternalID: fmt.Sprintf("campaign-%s-%d-%d", tag, k, i),
				From: cfg.from, To: fmt.Sprintf("+614%08d", i), Text: fmt.Sprintf("Campaign message %d", i)}
		}
		return out, nil
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

// send enqueues msgs in one transaction, then runs nodeCount nodes until
// every message of the campaign is settled.
func send(ctx context.Context, cfg config, svc *service, admin *pgxpool.Pool, nodeCount int, msgs []riversend.SendArgs) (figure, error) {
	f := figure{Nodes: nodeCount, Messages: len(msgs)}
	start := time.Now()
	n, err := enqueue(ctx, admin, msgs)
	if err != nil {
		return f, err
	}
	f.Enqueued, f.EnqueueSecs = n, time.Since(start).Seconds()
	ids := make([]string, len(msgs))
	for i := range msgs {
		ids[i] = msgs[i].ExternalID
	}

	start = time.Now()
	var nodes []*river.Client[pgx.Tx]
	defer func() {
		stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		for _, rc := range nodes {
			_ = rc.Stop(stopCtx)
		}
	}()
	for i := range nodeCount {
		rc, err := startNode(ctx, cfg, svc, fmt.Sprintf("node-%d", i+1))
		if err != nil {
			return f, err
		}
		nodes = append(nodes, rc)
	}
	states, err := wait(ctx, admin, svc.propertySid, ids)
	if err != nil {
		return f, err
	}
	f.SendSecs = time.Since(start).Seconds()
	f.Sent, f.Refused, f.Failed = states[riversend.StateSent], states[riversend.StateRefused], states[riversend.StateFailed]
	if f.SendSecs > 0 {
		f.PerSecond = float64(f.Enqueued) / f.SendSecs
	}
	return f, nil
}

// enqueue enqueues msgs in one transaction, as a program does with its own
// writes, and returns how many were new.
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

// startNode starts what one process of a fleet runs: its own pool, its
// own Client on the shared ledger, and a River client with River's
// defaults working the riversend queue.
func startNode(ctx context.Context, cfg config, svc *service, id string) (*river.Client[pgx.Tx], error) {
	pc, err := pgxpool.ParseConfig(cfg.dsn)
	if err != nil {
		return nil, err
	}
	// A connection for each job at work, and a few for River itself
	// (fetching, completing, listening): pgx's default, 4 on a small
	// machine, would make the jobs queue for connections.
	pc.MaxConns = int32(cfg.maxWorkers + 6)
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, err
	}
	client, err := svc.newClient(telco.WithLedger(riversend.NewLedger(pool)))
	if err != nil {
		pool.Close()
		return nil, err
	}
	w, err := riversend.NewWorker(riversend.WorkerConfig{Client: client})
	if err != nil {
		pool.Close()
		return nil, err
	}
	workers := river.NewWorkers()
	river.AddWorker(workers, w)
	river.AddWorker(workers, w.MessageWorker()) // jobs of one message, from earlier versions
	rc, err := river.NewClient(riverpgxv5.New(pool), &river.Config{
		ID:      id,
		Queues:  map[string]river.QueueConfig{riversend.Queue: {MaxWorkers: cfg.maxWorkers}},
		Workers: workers,
		Logger:  slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	if err != nil {
		pool.Close()
		return nil, err
	}
	if err := rc.Start(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	go func() { <-rc.Stopped(); pool.Close() }()
	return rc, nil
}

// wait polls telco_sends until none of ids is enqueued any more, and
// returns their states.
func wait(ctx context.Context, pool *pgxpool.Pool, propertySid string, ids []string) (map[riversend.State]int, error) {
	for {
		rows, err := pool.Query(ctx, `SELECT state, count(*) FROM telco_sends
			WHERE property_sid = $1 AND external_id = ANY($2) GROUP BY state`, propertySid, ids)
		if err != nil {
			return nil, err
		}
		states := map[riversend.State]int{}
		for rows.Next() {
			var s string
			var n int
			if err := rows.Scan(&s, &n); err != nil {
				rows.Close()
				return nil, err
			}
			states[riversend.State(s)] = n
		}
		if err := rows.Err(); err != nil {
			return nil, err
		}
		if states[riversend.StateEnqueued] == 0 {
			return states, nil
		}
		select {
		case <-ctx.Done():
			return states, fmt.Errorf("%d messages still enqueued: %w", states[riversend.StateEnqueued], ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
}
