package riversend_test

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertype"
	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/telcotest"

	"github.com/telcosdk/telco/contrib/riversend"
)

type sendFinder interface {
	riversend.Sender
	riversend.Finder
}

// scaleCount is how many distinct messages the scale tests send;
// RIVERSEND_SCALE overrides it (for a quicker local run).
func scaleCount(t *testing.T) int {
	if v := os.Getenv("RIVERSEND_SCALE"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 100 {
			t.Fatalf("RIVERSEND_SCALE=%q: want a number of at least 100", v)
		}
		return n
	}
	return 10000
}

// faultPolicy fails about one request in rate with every kind of fault,
// from a seeded source so that a failure can be replayed.
func faultPolicy(seed uint64, rate int) func(method, path string) *telcotest.Fault {
	r := rand.New(rand.NewPCG(seed, seed))
	kinds := []telcotest.Fault{
		{Kind: telcotest.FaultStatus, Status: http.StatusTooManyRequests, RetryAfter: "0"},
		{Kind: telcotest.FaultStatus, Status: http.StatusInternalServerError},
		{Kind: telcotest.FaultStatus, Status: http.StatusServiceUnavailable},
		{Kind: telcotest.FaultDropBeforeRead},
		{Kind: telcotest.FaultDropAfterRead},
		{Kind: telcotest.FaultTruncateBody},
		{Kind: telcotest.FaultLatency, Delay: 30 * time.Millisecond},
	}
	return func(string, string) *telcotest.Fault {
		if r.IntN(rate) != 0 {
			return nil
		}
		f := kinds[r.IntN(len(kinds))]
		return &f
	}
}

// fastRetry retries a failed job soon: the test is about correctness, not
// about River's production backoff.
type fastRetry struct{}

func (fastRetry) NextRetry(job *rivertype.JobRow) time.Time {
	return time.Now().Add(time.Duration(job.Attempt) * 100 * time.Millisecond)
}

// node is one River client with its own pool, as one process would have.
type node struct {
	id     string
	pool   *pgxpool.Pool
	client *river.Client[pgx.Tx]
}

func startNode(t *testing.T, dsn, id string, sender riversend.Sender, finder riversend.Finder, dead *atomic.Bool) *node {
	t.Helper()
	logger := quietLogger()
	ctx := context.Background()
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = 12
	cfg.ConnConfig.RuntimeParams["application_name"] = id
	if dead != nil {
		// Its errors after the kill are expected: keep them out of the log.
		logger = slog.New(slog.DiscardHandler)
		// A dead process makes no new connection.
		cfg.BeforeConnect = func(context.Context, *pgx.ConnConfig) error {
			if dead.Load() {
				return fmt.Errorf("%s is dead", id)
			}
			return nil
		}
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	w, err := riversend.NewWorker(riversend.WorkerConfig{Sender: sender, Finder: finder, DB: pool,
		RateLimitWait: 50 * time.Millisecond, ClockSkew: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	workers := river.NewWorkers()
	river.AddWorker(workers, w)
	rc, err := river.NewClient(riverpgxv5.New(pool), &river.Config{
		ID:                   id,
		Queues:               map[string]river.QueueConfig{riversend.Queue: {MaxWorkers: 25}},
		Workers:              workers,
		FetchCooldown:        5 * time.Millisecond,
		FetchPollInterval:    50 * time.Millisecond,
		JobTimeout:           4 * time.Second,
		RescueStuckJobsAfter: 5 * time.Second,
		RetryPolicy:          fastRetry{},
		MaxAttempts:          50,
		TestOnly:             true,
		Logger:               logger,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := rc.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = rc.StopAndCancel(ctx) // a node killed in the test fails to stop cleanly
	})
	return &node{id: id, pool: pool, client: rc}
}

// campaign enqueues n messages, plus every 200th a second time, in
// transactions of 1,000, and returns the ExternalIds.
func campaign(t *testing.T, pool *pgxpool.Pool, prop string, n int) []string {
	t.Helper()
	rc := insertOnly(t, pool)
	ids := make([]string, n)
	var batch []riversend.SendArgs
	inserted := 0
	flush := func() {
		inserted += enqueue(t, pool, rc, batch...)
		batch = batch[:0]
	}
	for i := range n {
		ids[i] = fmt.Sprintf("camp-%06d", i)
		a := riversend.SendArgs{PropertySid: prop, ExternalID: ids[i], From: "Telco", To: fmt.Sprintf("+614%08d", i), Text: "hello " + ids[i]}
		batch = append(batch, a)
		if i%200 == 0 && i > 0 {
			batch = append(batch, riversend.SendArgs{PropertySid: prop, ExternalID: ids[i-1], To: "+61400000000", Text: "duplicate"})
		}
		if len(batch) >= 1000 {
			flush()
		}
	}
	flush()
	// The duplicates of the previous batch's last message land in the
	// next transaction; both kinds are skipped.
	again := []riversend.SendArgs{{PropertySid: prop, ExternalID: ids[0], To: "+61400000000", Text: "again"}}
	inserted += enqueue(t, pool, rc, again...)
	if inserted != n {
		t.Fatalf("enqueued %d jobs for %d distinct messages", inserted, n)
	}
	return ids
}

// waitSent waits until telco_sends has n messages sent, failing on any
// other final state.
func waitSent(t *testing.T, pool *pgxpool.Pool, n int, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		st, err := riversend.CountStates(context.Background(), pool)
		if err != nil {
			t.Fatal(err)
		}
		if st[riversend.StateRefused]+st[riversend.StateFailed] > 0 {
			t.Fatalf("messages refused or failed: %v", st)
		}
		if st[riversend.StateSent] == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %v: %v, want %d sent", limit, st, n)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// checkOnce asserts that the fake stores exactly one message per
// ExternalId and that telco_sends names that message.
func checkOnce(t *testing.T, srv *telcotest.Server, pool *pgxpool.Pool, ids []string) {
	t.Helper()
	srv.WaitIdle()
	stored := map[string][]string{}
	for _, m := range srv.Messages(srv.PropertySid) {
		stored[m.ExternalID] = append(stored[m.ExternalID], m.MessageSid)
	}
	dups, lost := 0, 0
	for _, id := range ids {
		switch len(stored[id]) {
		case 0:
			lost++
		case 1:
		default:
			dups++
			if dups <= 5 {
				t.Errorf("ExternalId %s stored %d times", id, len(stored[id]))
			}
		}
	}
	if dups+lost > 0 || len(stored) != len(ids) {
		t.Fatalf("%d ExternalIds stored more than once, %d lost, %d distinct stored (want %d)", dups, lost, len(stored), len(ids))
	}
	if c := srv.Counts().Messages; c != len(ids) {
		t.Fatalf("fake stores %d messages, want %d", c, len(ids))
	}
	rows, err := pool.Query(context.Background(), "SELECT external_id, message_sid FROM telco_sends")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, sid string
		if err := rows.Scan(&id, &sid); err != nil {
			t.Fatal(err)
		}
		if s := stored[id]; len(s) != 1 || s[0] != sid {
			t.Fatalf("telco_sends says %s was sent as %s; the fake has %v", id, sid, s)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
}

func newFakeService(t *testing.T, seed uint64) (*telcotest.Server, *telco.Client) {
	t.Helper()
	srv := telcotest.NewServer()
	t.Cleanup(srv.Close)
	srv.SetFaultPolicy(faultPolicy(seed, 20))
	t.Logf("fault seed %d", seed)
	// The fake stores a message before it answers, so a short settle time
	// loses nothing and keeps the test quick.
	return srv, srv.Client(telco.WithReconcilePolicy(telco.ReconcilePolicy{SettleTime: 50 * time.Millisecond, MaxRounds: 3}))
}

func TestScaleOutExactlyOnce(t *testing.T) {
	n := scaleCount(t)
	dsn := pgtestStart(t)
	pool := migrated(t, dsn)
	srv, client := newFakeService(t, uint64(time.Now().UnixNano()))
	msgs := client.Messages

	start := time.Now()
	ids := campaign(t, pool, srv.PropertySid, n)
	t.Logf("enqueued %d messages in %v", n, time.Since(start))
	start = time.Now()
	for i := range 4 {
		startNode(t, dsn, fmt.Sprintf("node-%d", i), msgs, msgs, nil)
	}
	waitSent(t, pool, n, 4*time.Minute)
	el := time.Since(start)
	t.Logf("4 nodes sent %d messages in %v (%.0f/s), %d requests", n, el, float64(n)/el.Seconds(), srv.Requests())
	checkOnce(t, srv, pool, ids)
}

// dying wraps the doomed node's sender: once kill starts, the next few
// sends reach the service and then hang, as if the process died before it
// recorded them; any later send fails without a request.
type dying struct {
	sendFinder
	dying    atomic.Bool
	orphans  atomic.Int32
	orphaned chan struct{}
	once     sync.Once
	dead     *atomic.Bool
}

const orphanTarget = 5

func (d *dying) SendOnce(ctx context.Context, prop string, p *telco.SendMessageParams) (*telco.Message, error) {
	if d.dead.Load() {
		return nil, fmt.Errorf("process is dead")
	}
	m, err := d.sendFinder.SendOnce(ctx, prop, p)
	if err == nil && d.dying.Load() {
		if d.orphans.Add(1) >= orphanTarget {
			d.once.Do(func() { close(d.orphaned) })
		}
		<-ctx.Done() // never records: the job stays running until rescued
		return nil, ctx.Err()
	}
	return m, err
}

func TestScaleOutSurvivesAWorkerDying(t *testing.T) {
	n := scaleCount(t)
	dsn := pgtestStart(t)
	pool := migrated(t, dsn)
	srv, client := newFakeService(t, uint64(time.Now().UnixNano()))
	msgs := client.Messages

	ids := campaign(t, pool, srv.PropertySid, n)
	start := time.Now()
	dead := &atomic.Bool{}
	doomed := &dying{sendFinder: msgs, orphaned: make(chan struct{}), dead: dead}
	victim := startNode(t, dsn, "doomed", doomed, doomed, dead)
	for i := range 3 {
		startNode(t, dsn, fmt.Sprintf("node-%d", i), msgs, msgs, nil)
	}

	// Let a quarter go, then kill the doomed node in the middle of sends.
	waitSentAtLeast(t, pool, n/4)
	doomed.dying.Store(true)
	select {
	case <-doomed.orphaned:
	case <-time.After(30 * time.Second):
		t.Fatal("the doomed node sent nothing more after it started dying")
	}
	dead.Store(true)
	if _, err := pool.Exec(context.Background(),
		"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1", victim.id); err != nil {
		t.Fatal(err)
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = victim.client.StopAndCancel(ctx)
	}()
	t.Logf("killed %s after %v with %d sends it never recorded", victim.id, time.Since(start), doomed.orphans.Load())

	waitSent(t, pool, n, 4*time.Minute)
	t.Logf("all %d sent in %v", n, time.Since(start))
	checkOnce(t, srv, pool, ids)

	// The doomed node's unfinished jobs were rescued and finished by the
	// others: completed, attempted by it and by another node.
	// telco_sends is written before River completes a job (in batches):
	// wait for River to catch up.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		left := count(t, pool, "SELECT count(*) FROM river_job WHERE state NOT IN ('completed', 'cancelled', 'discarded')")
		if left == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d jobs still unfinished in River 30s after every message was recorded", left)
		}
	}
	rescued := count(t, pool, `SELECT count(*) FROM river_job WHERE state = 'completed'
		AND 'doomed' = ANY(attempted_by) AND cardinality(attempted_by) > 1`)
	if rescued < int(doomed.orphans.Load()) {
		t.Fatalf("%d jobs of the dead node were finished by others, want at least its %d unrecorded sends", rescued, doomed.orphans.Load())
	}
	t.Logf("%d jobs rescued from the dead node", rescued)
}

func waitSentAtLeast(t *testing.T, pool *pgxpool.Pool, n int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		st, err := riversend.CountStates(context.Background(), pool)
		if err != nil {
			t.Fatal(err)
		}
		if st[riversend.StateSent] >= n {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("fewer than %d sent after 2 minutes", n)
}
