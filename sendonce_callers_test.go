package telco_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/telcotest"
)

// dyingLedger wraps a shared ledger for one "process" that dies after its
// requests: it loses the outcome writes (a record leaving LedgerSending),
// as a process killed between its request and its record would, so the
// claims it made stay until they run out.
type dyingLedger struct {
	telco.Ledger
	lost *atomic.Int64
}

var errDied = errors.New("the process died before recording")

func (d dyingLedger) Update(ctx context.Context, prop string, ids []string, fn func([]telco.LedgerRecord) error) error {
	return d.Ledger.Update(ctx, prop, ids, func(recs []telco.LedgerRecord) error {
		before := make([]telco.LedgerState, len(recs))
		for i := range recs {
			before[i] = recs[i].State
		}
		if err := fn(recs); err != nil {
			return err
		}
		for i := range recs {
			if before[i] == telco.LedgerSending && recs[i].State != telco.LedgerSending {
				d.lost.Add(1)
				return errDied
			}
		}
		return nil
	})
}

// TestSendOnceAcrossCallersUnderFaults: each ExternalId is sent by one to
// three callers through Clients sharing one ledger (as processes share a
// store): at the same time or one after another, some of them "dying"
// after their request (their outcome never recorded, their claim left to
// run out), against a service that fails at random, keeps processing a
// request after the client hung up, and shows messages in searches up
// to half the settle time late (the other half is slack for a loaded
// machine, whose scheduling delays the fake's own processing after the
// hang-up: the settle time must cover processing and lag together, as
// RELIABILITY.md says). Every ExternalId ends stored exactly once,
// and every success names the message stored.
func TestSendOnceAcrossCallersUnderFaults(t *testing.T) {
	t.Parallel()
	seed := faultSeed(t)
	rng := rand.New(rand.NewPCG(seed, seed^0x5851f42d4c957f2d))
	ids, workers := 400, 48
	if raceBuild || testing.Short() {
		ids, workers = 120, 24
	}
	const (
		attemptTimeout = 150 * time.Millisecond
		settle         = 500 * time.Millisecond
		// A send the service never stored costs two look-ups before it is
		// sent again, and about one send in eight here fails that way
		// (drop-before-read, 502, 504: 3 kinds of 7, on 30% of sends).
		// With 6 rounds, three such failures in a row left a healthy
		// caller unresolved, which one run in about fifteen met among its
		// 400 ExternalIds; 12 rounds need six in a row.
		maxRounds = 12
	)
	var mu sync.Mutex // guards rng, used by the fault policy and the plan
	sends := map[string]int{}
	kinds := []telcotest.Fault{
		{Kind: telcotest.FaultDropBeforeRead},
		{Kind: telcotest.FaultDropAfterRead},
		{Kind: telcotest.FaultTruncateBody},
		{Kind: telcotest.FaultStatus, Status: http.StatusBadGateway},
		{Kind: telcotest.FaultStatus, Status: http.StatusGatewayTimeout},
		{Kind: telcotest.FaultStatus, Status: http.StatusTooManyRequests},
		// Processing outlasts the attempt: the client hangs up, the
		// service stores the message all the same.
		{Kind: telcotest.FaultLatency, Delay: 2 * attemptTimeout},
	}
	srv := telcotest.NewServer()
	t.Cleanup(srv.Close)
	srv.SetFaultPolicy(func(method, path string) *telcotest.Fault {
		mu.Lock()
		defer mu.Unlock()
		if method != http.MethodPost && rng.Float64() >= 0.05 {
			return nil
		}
		if method == http.MethodPost && rng.Float64() >= 0.3 {
			// Even a clean send shows late in searches.
			return &telcotest.Fault{VisibleAfter: time.Duration(rng.Int64N(int64(settle / 2)))}
		}
		f := kinds[rng.IntN(len(kinds))]
		if method == http.MethodPost {
			f.VisibleAfter = time.Duration(rng.Int64N(int64(settle / 2)))
			sends[faultName(f)]++
		}
		return &f
	})
	shared := telco.NewMemoryLedger()
	var lost atomic.Int64
	client := func(dying bool) *telco.Client {
		l := shared
		if dying {
			l = dyingLedger{shared, &lost}
		}
		return srv.Client(telco.WithLedger(l), telco.WithAttemptTimeout(attemptTimeout),
			telco.WithRetryPolicy(telco.RetryPolicy{MaxRetries: 3, MinWait: time.Millisecond, MaxWait: 2 * time.Millisecond}),
			telco.WithReconcilePolicy(telco.ReconcilePolicy{SettleTime: settle, MaxRounds: maxRounds, ClockSkew: 2 * time.Second}))
	}
	healthy := []*telco.Client{client(false), client(false), client(false)}
	dying := client(true)

	type call struct {
		id    string
		dying bool
		delay time.Duration // before the call: the dying go first
	}
	// Each ExternalId: one to three calls; a group of calls runs at once.
	var groups [][]call
	for i := range ids {
		id := fmt.Sprintf("m-%d", i)
		n := 1 + rng.IntN(3)
		g := make([]call, n)
		for k := range g {
			g[k] = call{id: id, dying: k < n-1 && rng.IntN(3) == 0}
			if !g[k].dying {
				g[k].delay = time.Duration(rng.Int64N(int64(3 * attemptTimeout)))
			}
		}
		groups = append(groups, g)
	}
	params := func(id string) *telco.SendMessageParams {
		return &telco.SendMessageParams{From: "Acme", To: "+61400000001", Text: "hello " + id, ExternalID: id}
	}
	var (
		rmu   sync.Mutex
		sids  = map[string]map[string]bool{} // ExternalId -> MessageSids returned
		fails []string
	)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	start := time.Now()
	jobs := make(chan []call)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for g := range jobs {
				var gw sync.WaitGroup
				for k, c := range g {
					gw.Add(1)
					go func() {
						defer gw.Done()
						time.Sleep(c.delay)
						cl := healthy[(w+k)%len(healthy)]
						cctx := ctx
						if c.dying {
							cl = dying
							var ccancel context.CancelFunc
							cctx, ccancel = context.WithTimeout(ctx, 2*attemptTimeout)
							defer ccancel()
						}
						m, err := cl.Messages.SendOnce(cctx, srv.PropertySid, params(c.id))
						rmu.Lock()
						defer rmu.Unlock()
						switch {
						case err == nil:
							if sids[c.id] == nil {
								sids[c.id] = map[string]bool{}
							}
							sids[c.id][m.MessageSid] = true
						case c.dying:
							// A dying caller may give up any way: in doubt,
							// or on a failure its short life left it (a 429
							// retried until its deadline).
						default:
							fails = append(fails, fmt.Sprintf("%s (dying %v): %v", c.id, c.dying, err))
						}
					}()
				}
				gw.Wait()
			}
		}()
	}
	for _, g := range groups {
		jobs <- g
	}
	close(jobs)
	wg.Wait()
	elapsed := time.Since(start)
	srv.ClearFaults()
	srv.WaitIdle()
	require.NoError(t, ctx.Err(), "seed %d: the run took too long", seed)
	assert.Empty(t, fails, "seed %d: every healthy call succeeds", seed)

	// Afterwards one more SendOnce of every ExternalId sends nothing.
	before := srv.Counts()
	for _, g := range groups {
		m, err := healthy[0].Messages.SendOnce(ctx, srv.PropertySid, params(g[0].id))
		require.NoError(t, err, "seed %d: %s", seed, g[0].id)
		if sids[g[0].id] == nil { // every call of it failed, reported above
			sids[g[0].id] = map[string]bool{}
		}
		sids[g[0].id][m.MessageSid] = true
	}
	assert.Equal(t, before.Messages, srv.Counts().Messages, "seed %d: the last round sent nothing", seed)

	stored := countStored(srv)
	dups := 0
	for _, g := range groups {
		id := g[0].id
		ms := stored[id]
		if len(ms) != 1 {
			dups++
			t.Errorf("seed %d: %s stored %d times", seed, id, len(ms))
			continue
		}
		assert.Equal(t, map[string]bool{ms[0].MessageSid: true}, sids[id], "seed %d: %s: every caller got the stored message", seed, id)
	}
	assert.Len(t, stored, ids, "seed %d: nothing else stored", seed)
	assert.NotZero(t, lost.Load(), "seed %d: no caller died after its request", seed)
	var hit []string
	for _, f := range kinds {
		if sends[faultName(f)] == 0 {
			hit = append(hit, faultName(f))
		}
	}
	assert.Empty(t, hit, "seed %d: faults that never hit a send", seed)
	t.Logf("seed %d: %d ExternalIds, %d calls in %v, %d outcomes lost to dying callers, faults on sends %v, %d requests: %d duplicates",
		seed, ids, countCalls(groups), elapsed.Round(time.Millisecond), lost.Load(), sends, srv.Requests(), dups)
}

func countCalls[T any](groups [][]T) int {
	n := 0
	for _, g := range groups {
		n += len(g)
	}
	return n
}
