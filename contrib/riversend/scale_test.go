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
	return 5000
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

// node is one River client with its own pool and telco.Client, as one
// process would have; they share the service and the database.
type node struct {
	id     string
	pool   *pgxpool.Pool
	client *river.Client[pgx.Tx]
}

// nodeOpts are a node's particulars.
type nodeOpts struct {
	// dead, once set, makes the node's pool refuse new connections: the
	// process is gone.
	dead *atomic.Bool
	// telco are options of the node's telco.Client, after the test's.
	telco []telco.Option
}

func startNode(t *testing.T, dsn, id string, svc *service, o nodeOpts) *node {
	t.Helper()
	logger := quietLogger()
	ctx := context.Background()
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = 12
	cfg.ConnConfig.RuntimeParams["application_name"] = id
	if dead := o.dead; dead != nil {
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
	opts := append(append([]telco.Option{}, svc.opts...), telco.WithLedger(riversend.NewLedger(pool)))
	w, err := riversend.NewWorker(riversend.WorkerConfig{Client: svc.srv.Client(append(opts, o.telco...)...),
		RateLimitWait: 50 * time.Millisecond, JobTimeout: 4 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	workers := river.NewWorkers()
	river.AddWorker(workers, w)
	rc, err := river.NewClient(riverpgxv5.New(pool), &river.Config{
		ID:                id,
		Queues:            map[string]river.QueueConfig{riversend.Queue: {MaxWorkers: 25}},
		Workers:           workers,
		FetchCooldown:     5 * time.Millisecond,
		FetchPollInterval: 50 * time.Millisecond,
		// The worker's JobTimeout (4s) bounds its jobs; River's must not
		// exceed RescueStuckJobsAfter, which rescues a dead node's jobs
		// soon after their attempts' 4s.
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
// transactions of 1,000 and jobs of chunk messages, and returns the
// ExternalIds.
func campaign(t *testing.T, pool *pgxpool.Pool, prop string, n, chunk int) []string {
	t.Helper()
	rc := insertOnly(t, pool)
	ids := make([]string, n)
	var batch []riversend.SendArgs
	inserted := 0
	flush := func() {
		inserted += enqueueChunks(t, pool, rc, chunk, batch...)
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
	inserted += enqueueChunks(t, pool, rc, chunk, again...)
	if inserted != n {
		t.Fatalf("enqueued %d messages for %d distinct messages", inserted, n)
	}
	return ids
}

// waitSent waits until telco_sends has n messages sent, failing on any
// other final state. A failed query is tried again: the database may be
// restarting.
func waitSent(t *testing.T, pool *pgxpool.Pool, n int, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	var last map[riversend.State]int
	for {
		st, err := riversend.CountStates(context.Background(), pool)
		if err == nil {
			last = st
			if st[riversend.StateRefused]+st[riversend.StateFailed] > 0 {
				t.Fatalf("messages refused or failed: %v", st)
			}
			if st[riversend.StateSent] == n {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %v: %v (last error %v), want %d sent", limit, last, err, n)
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
	rows, err := pool.Query(context.Background(), "SELECT external_id, message_sid FROM telco_sends WHERE state = 'sent'")
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

// service is the fake service and the options of every node's Client.
type service struct {
	srv  *telcotest.Server
	opts []telco.Option
	// killer is a pool that outlives the doomed node, to cut its
	// connections with.
	killer *pgxpool.Pool
}

func newFakeService(t *testing.T, seed uint64) *service {
	t.Helper()
	srv := telcotest.NewServer()
	t.Cleanup(srv.Close)
	srv.SetFaultPolicy(faultPolicy(seed, 20))
	t.Logf("fault seed %d", seed)
	// The fake stores a message before it answers, so a short settle time
	// loses nothing and keeps the test quick.
	return &service{srv: srv, opts: []telco.Option{telco.WithReconcilePolicy(telco.ReconcilePolicy{SettleTime: 50 * time.Millisecond, MaxRounds: 3})}}
}

// killChunk is the chunk of the tests that kill a node or restart the
// database: small enough that the campaign is hundreds of jobs, so that
// the node killed in the middle of sends still has jobs when it is
// killed, and the faults, one request in 20, hit many requests.
const killChunk = 10

func TestScaleOutExactlyOnce(t *testing.T) {
	// Enqueue's default chunk, and chunks of killChunk: more jobs, more
	// requests, more faults.
	for _, chunk := range []int{riversend.DefaultChunkSize, killChunk} {
		t.Run(fmt.Sprintf("chunks of %d", chunk), func(t *testing.T) {
			n := scaleCount(t)
			dsn := pgtestStart(t)
			pool := migrated(t, dsn)
			svc := newFakeService(t, uint64(time.Now().UnixNano()))
			srv := svc.srv

			start := time.Now()
			ids := campaign(t, pool, srv.PropertySid, n, chunk)
			t.Logf("enqueued %d messages in %v", n, time.Since(start))
			start = time.Now()
			for i := range 4 {
				startNode(t, dsn, fmt.Sprintf("node-%d", i), svc, nodeOpts{})
			}
			waitSent(t, pool, n, 4*time.Minute)
			el := time.Since(start)
			t.Logf("4 nodes sent %d messages in %v (%.0f/s), %d requests", n, el, float64(n)/el.Seconds(), srv.Requests())
			checkOnce(t, srv, pool, ids)
		})
	}
}

// stormPolicy answers three requests in four of the first storm with 429
// (Retry-After 0), then fails one in 20 as faultPolicy does.
func stormPolicy(seed uint64, storm int) func(method, path string) *telcotest.Fault {
	r := rand.New(rand.NewPCG(seed, seed+1))
	calm := faultPolicy(seed, 20)
	var mu sync.Mutex
	seen := 0
	return func(method, path string) *telcotest.Fault {
		mu.Lock()
		seen++
		inStorm := seen <= storm && r.IntN(4) != 0
		mu.Unlock()
		if inStorm {
			return &telcotest.Fault{Kind: telcotest.FaultStatus, Status: http.StatusTooManyRequests, RetryAfter: "0"}
		}
		return calm(method, path)
	}
}

// TestScaleOutSurvivesA429Storm: the service rate-limits three requests
// in four while the four nodes start on the campaign; jobs are snoozed
// and come back, and every message is stored once.
func TestScaleOutSurvivesA429Storm(t *testing.T) {
	n := scaleCount(t)
	dsn := pgtestStart(t)
	pool := migrated(t, dsn)
	seed := uint64(time.Now().UnixNano())
	svc := newFakeService(t, seed)
	srv := svc.srv
	// Four requests per job of the campaign, most of them refused.
	srv.SetFaultPolicy(stormPolicy(seed, 4*n/riversend.DefaultChunkSize))

	ids := campaign(t, pool, srv.PropertySid, n, riversend.DefaultChunkSize)
	start := time.Now()
	for i := range 4 {
		startNode(t, dsn, fmt.Sprintf("node-%d", i), svc, nodeOpts{})
	}
	waitSent(t, pool, n, 4*time.Minute)
	t.Logf("4 nodes sent %d messages in %v, %d requests", n, time.Since(start), srv.Requests())
	checkOnce(t, srv, pool, ids)
	snoozed := count(t, pool, "SELECT count(*) FROM river_job WHERE (metadata->>'snoozes')::int > 0")
	if snoozed == 0 {
		t.Fatal("no job was snoozed: the storm did not reach the workers")
	}
	t.Logf("%d jobs snoozed", snoozed)
}

// dying is the doomed node's HTTP transport: once kill starts, the next
// few sends reach the service and are stored, and then their answers
// never come back, as if the process died before it read and recorded
// them; any later request fails without reaching the service.
type dying struct {
	base     http.RoundTripper
	dying    atomic.Bool
	orphans  atomic.Int32
	orphaned chan struct{}
	once     sync.Once
	dead     *atomic.Bool
}

const orphanTarget = 5

func (d *dying) RoundTrip(req *http.Request) (*http.Response, error) {
	if d.dead.Load() {
		return nil, fmt.Errorf("process is dead")
	}
	resp, err := d.base.RoundTrip(req)
	if err == nil && req.Method == http.MethodPost && d.dying.Load() && resp.StatusCode < 300 {
		resp.Body.Close()
		if d.orphans.Add(1) >= orphanTarget {
			d.once.Do(func() { close(d.orphaned) })
		}
		<-req.Context().Done() // the job stays running until rescued
		return nil, req.Context().Err()
	}
	return resp, err
}

// kill starts a doomed node, and returns the function that kills it in
// the middle of sends: its last sends stored at the service and never
// recorded, its database connections cut, its River client stopped.
func doomedNode(t *testing.T, dsn string, svc *service) (*node, *dying, func()) {
	t.Helper()
	dead := &atomic.Bool{}
	d := &dying{base: http.DefaultTransport, orphaned: make(chan struct{}), dead: dead}
	victim := startNode(t, dsn, "doomed", svc, nodeOpts{dead: dead,
		telco: []telco.Option{telco.WithHTTPClient(&http.Client{Transport: d})}})
	return victim, d, func() {
		t.Helper()
		d.dying.Store(true)
		select {
		case <-d.orphaned:
		case <-time.After(30 * time.Second):
			st, err := riversend.CountStates(context.Background(), svc.killer)
			t.Fatalf("the doomed node sent %d more after it started dying, want %d (states now %v, %v)",
				d.orphans.Load(), orphanTarget, st, err)
		}
		dead.Store(true)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		for {
			// Through another node's pool: the victim's makes no connection.
			_, err := svc.killer.Exec(ctx,
				"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1", victim.id)
			if err == nil {
				break
			}
			if ctx.Err() != nil {
				t.Fatal(err)
			}
			time.Sleep(100 * time.Millisecond)
		}
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			_ = victim.client.StopAndCancel(ctx)
		}()
	}
}

func TestScaleOutSurvivesAWorkerDying(t *testing.T) {
	n := scaleCount(t)
	dsn := pgtestStart(t)
	pool := migrated(t, dsn)
	svc := newFakeService(t, uint64(time.Now().UnixNano()))
	svc.killer = pool
	srv := svc.srv

	ids := campaign(t, pool, srv.PropertySid, n, killChunk)
	start := time.Now()
	victim, doomed, kill := doomedNode(t, dsn, svc)
	for i := range 3 {
		startNode(t, dsn, fmt.Sprintf("node-%d", i), svc, nodeOpts{})
	}

	// Let a quarter go, then kill the doomed node in the middle of sends.
	waitSentAtLeast(t, pool, n/4)
	kill()
	t.Logf("killed %s after %v with %d sends it never recorded", victim.id, time.Since(start), doomed.orphans.Load())

	waitSent(t, pool, n, 4*time.Minute)
	t.Logf("all %d sent in %v", n, time.Since(start))
	checkOnce(t, srv, pool, ids)
	checkRescued(t, pool, victim, int(doomed.orphans.Load()))
}

// checkRescued: the dead node's unfinished jobs were rescued and finished
// by the others: completed, attempted by it and by another node.
func checkRescued(t *testing.T, pool *pgxpool.Pool, victim *node, atLeast int) {
	t.Helper()
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
		AND $1 = ANY(attempted_by) AND cardinality(attempted_by) > 1`, victim.id)
	if rescued < atLeast {
		t.Fatalf("%d jobs of the dead node were finished by others, want at least its %d unrecorded sends", rescued, atLeast)
	}
	t.Logf("%d jobs rescued from the dead node", rescued)
}

func waitSentAtLeast(t *testing.T, pool *pgxpool.Pool, n int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		st, err := riversend.CountStates(context.Background(), pool)
		if err == nil && st[riversend.StateSent] >= n {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("fewer than %d sent after 2 minutes", n)
}

// slowFaultPolicy is faultPolicy with a slow service whose searches lag:
// one request in rate fails, as faultPolicy's do, except that latency
// outlasts the client's attempt timeout (the client hangs up, the service
// stores the message all the same); and every request that stores a
// message, failed or not, keeps it out of searches for a random time of
// up to lag.
func slowFaultPolicy(seed uint64, rate int, latency, lag time.Duration) func(method, path string) *telcotest.Fault {
	r := rand.New(rand.NewPCG(seed, seed))
	kinds := []telcotest.Fault{
		{Kind: telcotest.FaultStatus, Status: http.StatusTooManyRequests, RetryAfter: "0"},
		{Kind: telcotest.FaultStatus, Status: http.StatusInternalServerError},
		{Kind: telcotest.FaultStatus, Status: http.StatusServiceUnavailable},
		{Kind: telcotest.FaultDropBeforeRead},
		{Kind: telcotest.FaultDropAfterRead},
		{Kind: telcotest.FaultTruncateBody},
		{Kind: telcotest.FaultLatency, Delay: latency},
	}
	return func(method, _ string) *telcotest.Fault {
		var f telcotest.Fault // handled normally
		if r.IntN(rate) == 0 {
			f = kinds[r.IntN(len(kinds))]
		}
		if method == http.MethodPost {
			f.VisibleAfter = time.Duration(r.Int64N(int64(lag) + 1))
		}
		return &f
	}
}

// TestScaleOutSurvivesKillsRestartsAndASlowService: four nodes, one
// killed in the middle of sends, while the database crashes and restarts
// twice, against a service that keeps storing after the client hung up
// and whose searches lag by up to the settle time. Every message is
// stored once.
func TestScaleOutSurvivesKillsRestartsAndASlowService(t *testing.T) {
	n := scaleCount(t)
	pg := newServer(t)
	pool := migrated(t, pg.DSN)
	seed := uint64(time.Now().UnixNano())
	const settle = 400 * time.Millisecond
	srv := telcotest.NewServer()
	t.Cleanup(srv.Close)
	// Lag up to 90% of the settle time: the rest covers the service's
	// noticing the hang-up after the client saw its attempt end.
	srv.SetFaultPolicy(slowFaultPolicy(seed, 20, time.Second, settle*9/10))
	t.Logf("fault seed %d", seed)
	svc := &service{srv: srv, killer: pool, opts: []telco.Option{
		telco.WithReconcilePolicy(telco.ReconcilePolicy{SettleTime: settle, MaxRounds: 3}),
		telco.WithAttemptTimeout(300 * time.Millisecond),
	}}

	ids := campaign(t, pool, srv.PropertySid, n, killChunk)
	start := time.Now()
	victim, doomed, kill := doomedNode(t, pg.DSN, svc)
	for i := range 3 {
		startNode(t, pg.DSN, fmt.Sprintf("node-%d", i), svc, nodeOpts{})
	}
	restart := func() {
		t.Helper()
		if err := pg.Restart(500 * time.Millisecond); err != nil {
			t.Fatal(err)
		}
		t.Logf("database restarted after %v", time.Since(start))
	}
	// The kill comes early enough that the doomed node still has jobs.
	waitSentAtLeast(t, pool, n/5)
	restart()
	waitSentAtLeast(t, pool, n/3)
	kill()
	t.Logf("killed %s after %v with %d sends it never recorded", victim.id, time.Since(start), doomed.orphans.Load())
	waitSentAtLeast(t, pool, n/2)
	restart()

	waitSent(t, pool, n, 4*time.Minute)
	t.Logf("all %d sent in %v, %d requests", n, time.Since(start), srv.Requests())
	checkOnce(t, srv, pool, ids)
	checkRescued(t, pool, victim, int(doomed.orphans.Load()))
}
