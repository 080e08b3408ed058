package telco_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/telcotest"
)

// countStored maps each ExternalId to the messages the fake stored for it.
func countStored(srv *telcotest.Server) map[string][]telco.Message {
	out := map[string][]telco.Message{}
	for _, m := range srv.Messages(srv.PropertySid) {
		out[m.ExternalID] = append(out[m.ExternalID], m)
	}
	return out
}

func TestSendOnceFoundAfterSettle(t *testing.T) {
	t.Parallel()
	srv := telcotest.NewServer()
	t.Cleanup(srv.Close)
	// The send is stored, its answer lost, and Find shows it only 300 ms
	// later: a settle time longer than that finds it at the first look.
	srv.Inject(1, telcotest.Fault{Kind: telcotest.FaultDropAfterRead, Op: "Messages.Send", VisibleAfter: 300 * time.Millisecond})
	c := srv.Client(telco.WithReconcilePolicy(telco.ReconcilePolicy{SettleTime: 600 * time.Millisecond, ClockSkew: time.Nanosecond}))
	m, err := c.Messages.SendOnce(context.Background(), srv.PropertySid,
		&telco.SendMessageParams{From: "Acme", To: "+61400000001", Text: "code 4821", ExternalID: "order-1"})
	require.NoError(t, err)
	stored := countStored(srv)["order-1"]
	require.Len(t, stored, 1, "sent exactly once")
	assert.Equal(t, stored[0].MessageSid, m.MessageSid, "the stored message is returned")
	assert.Equal(t, 3, srv.Requests(), "the send, a one-message Find that reads the clock (no answer came), one page")
}

// TestSendOnceSettleTimeBoundsTheResidualRisk shows the risk the settle time
// bounds: a message the service makes visible only after the look-up is not
// found, and is sent a second time. This is the documented limit of
// SendOnce, not a behaviour to rely on.
func TestSendOnceSettleTimeBoundsTheResidualRisk(t *testing.T) {
	t.Parallel()
	srv := telcotest.NewServer()
	t.Cleanup(srv.Close)
	srv.Inject(1, telcotest.Fault{Kind: telcotest.FaultDropAfterRead, Op: "Messages.Send", VisibleAfter: time.Minute})
	c := srv.Client(telco.WithReconcilePolicy(telco.ReconcilePolicy{SettleTime: 10 * time.Millisecond, ClockSkew: time.Nanosecond}))
	_, err := c.Messages.SendOnce(context.Background(), srv.PropertySid,
		&telco.SendMessageParams{From: "Acme", To: "+61400000001", Text: "code 4821", ExternalID: "order-2"})
	require.NoError(t, err)
	assert.Len(t, countStored(srv)["order-2"], 2, "still processing when looked up: sent twice")
}

func TestSendBatchOnceOnTheFake(t *testing.T) {
	t.Parallel()
	srv := telcotest.NewServer()
	t.Cleanup(srv.Close)
	srv.Inject(1, telcotest.Fault{Kind: telcotest.FaultTruncateBody, Op: "Messages.SendBatch"})
	c := srv.Client(telco.WithReconcilePolicy(telco.ReconcilePolicy{SettleTime: time.Millisecond, ClockSkew: time.Nanosecond}))
	msgs := make([]telco.SendMessageParams, 5)
	for i := range msgs {
		msgs[i] = telco.SendMessageParams{From: "Acme", To: fmt.Sprintf("+6140000001%d", i), Text: "hi", ExternalID: fmt.Sprint("b-", i)}
	}
	msgs[3].To = "0400" // rejected by validation, never sent
	res, err := c.Messages.SendBatchOnce(context.Background(), srv.PropertySid, msgs)
	require.NoError(t, err)
	stored := countStored(srv)
	for i, r := range res {
		if i == 3 {
			require.NotNil(t, r.Err)
			assert.Equal(t, telco.CodeInvalidPhoneNumberFormat, r.Err.Code)
			assert.Empty(t, stored["b-3"])
			continue
		}
		require.NotNil(t, r.Message, "element %d", i)
		require.Len(t, stored[msgs[i].ExternalID], 1, "element %d stored once", i)
		assert.Equal(t, stored[msgs[i].ExternalID][0].MessageSid, r.Message.MessageSid)
	}
}

func TestFindByExternalIDOnTheFake(t *testing.T) {
	t.Parallel()
	srv := telcotest.NewServer()
	t.Cleanup(srv.Close)
	c := srv.Client()
	ctx := context.Background()
	since := time.Now()
	sids := map[string]string{}
	for _, id := range []string{"a", "b", "c"} {
		m, err := c.Messages.Send(ctx, srv.PropertySid, &telco.SendMessageParams{From: "Acme", To: "+61400000001", Text: "x", ExternalID: id})
		require.NoError(t, err)
		sids[id] = m.MessageSid
	}
	srv.Receive(srv.PropertySid, "+61400000009", "+61400000001", "inbound, not a send") // no ExternalId, other direction

	found, err := c.Messages.FindByExternalID(ctx, srv.PropertySid, since, "a", "c", "missing")
	require.NoError(t, err)
	require.Len(t, found, 2)
	assert.Equal(t, sids["a"], found["a"].MessageSid)
	assert.Equal(t, sids["c"], found["c"].MessageSid)
	_, ok := found["missing"]
	assert.False(t, ok)
}

// sendOnceFaults is a fault policy that fails rate of the requests with a
// kind drawn from every failure a send can meet, counting per kind how
// often it hit a send. It is called under the fake's lock.
type sendOnceFaults struct {
	rng   *rand.Rand
	rate  float64
	kinds []telcotest.Fault
	sends map[string]int // fault name -> sends it hit
	finds int            // Find requests seen
}

func faultName(f telcotest.Fault) string {
	if f.Kind == telcotest.FaultStatus {
		return strconv.Itoa(f.Status)
	}
	return f.Kind.String()
}

func (p *sendOnceFaults) policy(method, path string) *telcotest.Fault {
	isFind := method == http.MethodGet && strings.HasSuffix(strings.ToLower(path), "/messages")
	if isFind {
		p.finds++
	}
	if p.rng.Float64() >= p.rate {
		return nil
	}
	f := p.kinds[p.rng.IntN(len(p.kinds))]
	if method == http.MethodPost {
		p.sends[faultName(f)]++
	}
	return &f
}

// TestSendOnceUnderRandomFaults: many concurrent workers send 10,000
// distinct ExternalIds through SendOnce and SendBatchOnce while every
// kind of fault is injected at random. Every call succeeds and every
// ExternalId is stored exactly once: no duplicate, no loss.
//
// The seed is logged; TELCO_FAULT_SEED=<seed> replays the same sequence
// of faults (the interleaving of the workers may still differ).
func TestSendOnceUnderRandomFaults(t *testing.T) {
	t.Parallel()
	seed := faultSeed(t)

	singles, batches, batchSize, workers := 5000, 500, 10, 64
	if raceBuild || testing.Short() {
		singles, batches = 500, 50
	}
	total := singles + batches*batchSize

	// Latency outlasts the attempt timeout, so that the client hangs up
	// and the fake then handles the request at once; the settle time
	// leaves it ample time to do so.
	attemptTimeout := 200 * time.Millisecond
	faults := &sendOnceFaults{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), rate: 0.15,
		sends: map[string]int{}, kinds: []telcotest.Fault{
			{Kind: telcotest.FaultDropBeforeRead},
			{Kind: telcotest.FaultDropAfterRead},
			{Kind: telcotest.FaultTruncateBody},
			{Kind: telcotest.FaultStatus, Status: http.StatusInternalServerError},
			{Kind: telcotest.FaultStatus, Status: http.StatusBadGateway},
			{Kind: telcotest.FaultStatus, Status: http.StatusServiceUnavailable},
			{Kind: telcotest.FaultStatus, Status: http.StatusGatewayTimeout},
			{Kind: telcotest.FaultStatus, Status: http.StatusTooManyRequests},
			{Kind: telcotest.FaultLatency, Delay: 2 * attemptTimeout},
		}}
	srv := telcotest.NewServer()
	t.Cleanup(srv.Close)
	srv.SetFaultPolicy(faults.policy)
	c := srv.Client(telco.WithAttemptTimeout(attemptTimeout),
		telco.WithRetryPolicy(telco.RetryPolicy{MaxRetries: 4, MinWait: time.Millisecond, MaxWait: 2 * time.Millisecond}),
		telco.WithReconcilePolicy(telco.ReconcilePolicy{SettleTime: 300 * time.Millisecond, MaxRounds: 8, ClockSkew: time.Nanosecond}))

	var mu sync.Mutex
	sids := make(map[string]string, total) // ExternalId -> MessageSid returned
	var failures []string
	record := func(id, sid string, err error) {
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			failures = append(failures, fmt.Sprintf("%s: %v", id, err))
			return
		}
		sids[id] = sid
	}

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	start := time.Now()
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				if j < singles {
					id := fmt.Sprintf("s-%d", j)
					m, err := c.Messages.SendOnce(ctx, srv.PropertySid, &telco.SendMessageParams{
						From: "Acme", To: fmt.Sprintf("+614%08d", j), Text: "hi " + id, ExternalID: id})
					sid := ""
					if err == nil {
						sid = m.MessageSid
						if m.ExternalID != id {
							err = fmt.Errorf("answered ExternalId %q", m.ExternalID)
						}
					}
					record(id, sid, err)
					continue
				}
				b := j - singles
				msgs := make([]telco.SendMessageParams, batchSize)
				for k := range msgs {
					msgs[k] = telco.SendMessageParams{From: "Acme", To: fmt.Sprintf("+615%08d", b*batchSize+k), Text: "batch",
						ExternalID: fmt.Sprintf("b-%d-%d", b, k)}
				}
				res, err := c.Messages.SendBatchOnce(ctx, srv.PropertySid, msgs)
				for k := range msgs {
					id := msgs[k].ExternalID
					switch {
					case err != nil:
						record(id, "", err)
					case res[k].Err != nil:
						record(id, "", res[k].Err)
					case res[k].Message.ExternalID != id:
						record(id, "", fmt.Errorf("result %d answered ExternalId %q", k, res[k].Message.ExternalID))
					default:
						record(id, res[k].Message.MessageSid, nil)
					}
				}
			}
		}()
	}
	for j := range singles + batches {
		jobs <- j
	}
	close(jobs)
	wg.Wait()
	elapsed := time.Since(start)
	srv.ClearFaults()
	srv.WaitIdle()
	require.NoError(t, ctx.Err(), "seed %d: the run took too long", seed)

	assert.Empty(t, failures, "seed %d: every call succeeds", seed)
	stored := countStored(srv)
	dups, lost := 0, 0
	for id, ms := range stored {
		if len(ms) != 1 {
			dups++
			t.Errorf("seed %d: %s stored %d times", seed, id, len(ms))
		}
	}
	for id, sid := range sids {
		ms := stored[id]
		if len(ms) == 0 {
			lost++
			t.Errorf("seed %d: %s reported sent but not stored", seed, id)
			continue
		}
		assert.Equal(t, ms[0].MessageSid, sid, "seed %d: %s: the message returned is the one stored", seed, id)
	}
	assert.Len(t, stored, total, "seed %d: every ExternalId stored", seed)
	assert.Len(t, sids, total, "seed %d: every ExternalId succeeded", seed)

	for _, f := range faults.kinds {
		assert.NotZero(t, faults.sends[faultName(f)], "seed %d: fault %s never hit a send", seed, faultName(f))
	}
	assert.NotZero(t, faults.finds, "seed %d: nothing was reconciled", seed)
	t.Logf("seed %d: %d ExternalIds in %v by %d workers, %d requests (%d Find), faults on sends %v: %d duplicates, %d lost",
		seed, total, elapsed.Round(time.Millisecond), workers, srv.Requests(), faults.finds, faults.sends, dups, lost)
}
