package riversend_test

// The reproductions of issue 22's riversend holes: a job interrupted by a
// stop comes back as attempt 1 and was sent again without a look-up; a
// retried job looked its message up before the settle time and sent it
// again. Each "process" here has a telco.Client of its own, as after a
// restart or on another machine: only what the database keeps is shared.

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/telcotest"

	"github.com/telcosdk/telco/contrib/riversend"
)

// The service shows a message in searches reproVisible after storing it;
// the clients settle for reproSettle, longer, as they should.
const (
	reproVisible = 1200 * time.Millisecond
	reproSettle  = 1500 * time.Millisecond
)

// processClient is the telco.Client of one worker process.
func processClient(srv *telcotest.Server, pool *pgxpool.Pool) *telco.Client {
	return srv.Client(telco.WithReconcilePolicy(telco.ReconcilePolicy{SettleTime: reproSettle, MaxRounds: 3}),
		telco.WithLedger(riversend.NewLedger(pool)))
}

// reproWorker is the worker of a process whose Client is c; sends go
// through sender (c.Messages when nil); each attempt of a job lasts at
// most timeout (0: the default).
func reproWorker(t *testing.T, c *telco.Client, sender riversend.Sender, timeout time.Duration) *riversend.Worker {
	t.Helper()
	w, err := riversend.NewWorker(riversend.WorkerConfig{Client: c, Sender: sender, RateLimitWait: 50 * time.Millisecond,
		JobTimeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// reproNode is a River client working the queue with w, configured by
// cfg on top of short retries.
func reproNode(t *testing.T, pool *pgxpool.Pool, w *riversend.Worker, cfg river.Config) *river.Client[pgx.Tx] {
	t.Helper()
	workers := river.NewWorkers()
	river.AddWorker(workers, w)
	cfg.Queues = map[string]river.QueueConfig{riversend.Queue: {MaxWorkers: 4}}
	cfg.Workers = workers
	cfg.FetchCooldown = 5 * time.Millisecond
	cfg.FetchPollInterval = 20 * time.Millisecond
	cfg.RetryPolicy = fastRetry{}
	cfg.MaxAttempts = 25
	cfg.TestOnly = true
	cfg.Logger = quietLogger()
	rc, err := river.NewClient(riverpgxv5.New(pool), &cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = rc.StopAndCancel(ctx)
	})
	return rc
}

// waitFor polls cond until it holds or limit passes.
func waitFor(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(limit); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("after %v: %s", limit, what)
		}
	}
}

// storedOnce checks that the fake holds exactly one message with id and
// that telco_sends names it as sent.
func storedOnce(t *testing.T, srv *telcotest.Server, pool *pgxpool.Pool, id string) {
	t.Helper()
	srv.WaitIdle()
	var sids []string
	for _, m := range srv.Messages(srv.PropertySid) {
		if m.ExternalID == id {
			sids = append(sids, m.MessageSid)
		}
	}
	if len(sids) != 1 {
		t.Fatalf("ExternalId %s stored %d times (%v), want once", id, len(sids), sids)
	}
	o, err := riversend.Lookup(context.Background(), pool, srv.PropertySid, id)
	if err != nil {
		t.Fatal(err)
	}
	if o.State != riversend.StateSent || o.MessageSid != sids[0] {
		t.Fatalf("outcome %+v, want sent as %s", o, sids[0])
	}
}

// jobState is the state and attempt of the chunk job holding id.
func jobState(t *testing.T, pool *pgxpool.Pool, id string) (state string, attempt int) {
	t.Helper()
	err := pool.QueryRow(context.Background(), `SELECT state, attempt FROM river_job
		WHERE kind = $1 AND args->'messages' @> jsonb_build_array(jsonb_build_object('external_id', $2::text))`,
		riversend.ChunkKind, id).
		Scan(&state, &attempt)
	if err != nil {
		t.Fatal(err)
	}
	return state, attempt
}

// TestInterruptedJobIsLookedUpNotResent: a job whose send is in flight
// when its River client stops comes back as attempt 1 (River gives the
// attempt back), to another process. That process must look the message
// up, after the settle time, rather than send it again.
func TestInterruptedJobIsLookedUpNotResent(t *testing.T) {
	pool := newDB(t)
	interruptions := []struct {
		name string
		cfg  river.Config
		stop func(rc *river.Client[pgx.Tx], cancelStart context.CancelFunc)
	}{
		{"StopAndCancel", river.Config{}, func(rc *river.Client[pgx.Tx], _ context.CancelFunc) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_ = rc.StopAndCancel(ctx)
		}},
		{"Start context cancelled", river.Config{}, func(rc *river.Client[pgx.Tx], cancelStart context.CancelFunc) {
			cancelStart()
			<-rc.Stopped()
		}},
		{"SoftStopTimeout", river.Config{SoftStopTimeout: 100 * time.Millisecond}, func(rc *river.Client[pgx.Tx], _ context.CancelFunc) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_ = rc.Stop(ctx)
		}},
	}
	for _, tc := range interruptions {
		t.Run(tc.name, func(t *testing.T) {
			reset(t, pool)
			srv := telcotest.NewServer()
			t.Cleanup(srv.Close)
			// The send hangs until the client hangs up; the service then
			// stores the message all the same, and shows it in searches a
			// little later.
			srv.Inject(1, telcotest.Fault{Kind: telcotest.FaultLatency, Delay: time.Minute,
				VisibleAfter: reproVisible, Op: "Messages.SendBatch"})
			const id = "interrupted-1"
			a := msg(id)
			a.PropertySid = srv.PropertySid
			enqueue(t, pool, insertOnly(t, pool), a)

			clientA := processClient(srv, pool)
			first := reproNode(t, pool, reproWorker(t, clientA, nil, 0), tc.cfg)
			startCtx, cancelStart := context.WithCancel(context.Background())
			defer cancelStart()
			if err := first.Start(startCtx); err != nil {
				t.Fatal(err)
			}
			waitFor(t, 20*time.Second, "the first process never sent", func() bool { return srv.Requests() > 0 })
			time.Sleep(100 * time.Millisecond) // the request's body is read: the service will act on it
			tc.stop(first, cancelStart)
			state, attempt := jobState(t, pool, id)
			t.Logf("after the interruption the job is %s, attempt %d", state, attempt)
			if state != "available" && state != "retryable" {
				t.Fatalf("job %s after the interruption, want it back in the queue", state)
			}

			// Another process picks it up.
			clientB := processClient(srv, pool)
			second := reproNode(t, pool, reproWorker(t, clientB, nil, 0), river.Config{})
			if err := second.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			waitFor(t, 30*time.Second, "the job did not complete", func() bool {
				s, _ := jobState(t, pool, id)
				return s == "completed"
			})
			storedOnce(t, srv, pool, id)
		})
	}
}

// switching makes its first send through first and every later one
// through then: a job's retry worked by another process.
type switching struct {
	first, then riversend.Sender
	calls       atomic.Int32
}

func (s *switching) pick() riversend.Sender {
	if s.calls.Add(1) == 1 {
		return s.first
	}
	return s.then
}

func (s *switching) SendOnce(ctx context.Context, prop string, p *telco.SendMessageParams) (*telco.Message, error) {
	return s.pick().SendOnce(ctx, prop, p)
}

func (s *switching) SendBatchOnce(ctx context.Context, prop string, msgs []telco.SendMessageParams) ([]telco.BatchResult, error) {
	return s.pick().SendBatchOnce(ctx, prop, msgs)
}

// TestRetryWaitsTheSettleTime: an attempt whose send may have reached the
// service ends (here by the worker's JobTimeout) before its settle time; River
// retries it soon, in another process. The retry must not look the
// message up before the settle time has passed since that attempt, nor
// send it when the service only shows it after a while.
func TestRetryWaitsTheSettleTime(t *testing.T) {
	pool := newDB(t)
	srv := telcotest.NewServer()
	t.Cleanup(srv.Close)
	// Stored, then the connection drops: the send may have been made.
	srv.Inject(1, telcotest.Fault{Kind: telcotest.FaultDropAfterRead, VisibleAfter: reproVisible, Op: "Messages.SendBatch"})
	const id = "retried-1"
	a := msg(id)
	a.PropertySid = srv.PropertySid
	enqueue(t, pool, insertOnly(t, pool), a)

	clientA, clientB := processClient(srv, pool), processClient(srv, pool)
	sender := &switching{first: clientA.Messages, then: clientB.Messages}
	// The attempt's bound is the worker's (it takes the place of River's
	// JobTimeout).
	rc := reproNode(t, pool, reproWorker(t, clientA, sender, 300*time.Millisecond), river.Config{})
	start := time.Now()
	if err := rc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "the job did not complete", func() bool {
		s, _ := jobState(t, pool, id)
		return s == "completed"
	})
	_, attempt := jobState(t, pool, id)
	t.Logf("completed on attempt %d after %v", attempt, time.Since(start))
	if attempt < 2 {
		t.Fatalf("completed on attempt %d: the first attempt should have timed out while settling", attempt)
	}
	storedOnce(t, srv, pool, id)
}
