package telco_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/telcotest"
)

// randomFaults returns a fault policy that fails about rate of the requests
// with a kind drawn from every failure the client must survive. It is
// called under the fake's lock, so the seeded source needs no lock of its
// own.
func randomFaults(rng *rand.Rand, rate float64, delay time.Duration) func(method, path string) *telcotest.Fault {
	kinds := []telcotest.Fault{
		{Kind: telcotest.FaultStatus, Status: http.StatusRequestTimeout},
		{Kind: telcotest.FaultStatus, Status: http.StatusTooManyRequests},
		{Kind: telcotest.FaultStatus, Status: http.StatusTooManyRequests, RetryAfter: "0"},
		{Kind: telcotest.FaultStatus, Status: http.StatusInternalServerError},
		{Kind: telcotest.FaultStatus, Status: http.StatusBadGateway},
		{Kind: telcotest.FaultStatus, Status: http.StatusServiceUnavailable, RetryAfter: "0"},
		{Kind: telcotest.FaultStatus, Status: http.StatusGatewayTimeout},
		{Kind: telcotest.FaultDropBeforeRead},
		{Kind: telcotest.FaultDropAfterRead},
		{Kind: telcotest.FaultTruncateBody},
		{Kind: telcotest.FaultLatency, Delay: delay},
	}
	return func(string, string) *telcotest.Fault {
		if rng.Float64() >= rate {
			return nil
		}
		f := kinds[rng.IntN(len(kinds))]
		return &f
	}
}

// faultSeed is the seed of a test's random faults: TELCO_FAULT_SEED when
// set, to replay a failing run's faults (not its interleaving), else the
// clock. It is logged so that a failure can be replayed.
func faultSeed(t *testing.T) uint64 {
	t.Helper()
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("TELCO_FAULT_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		require.NoError(t, err, "TELCO_FAULT_SEED")
		seed = v
	}
	t.Logf("seed %d (rerun with TELCO_FAULT_SEED=%d)", seed, seed)
	return seed
}

// TestSendsUnderRandomFaults: thousands of sends and batch sends under
// random faults. Afterwards every message the fake stored is accounted for
// by a success or an ErrMaybeSent error, none is stored twice, no success
// is missing, and no call that failed without ErrMaybeSent left a message.
//
// The seed is logged; TELCO_FAULT_SEED=<seed> replays the same sequence of
// faults (the interleaving of the concurrent workers may still differ).
func TestSendsUnderRandomFaults(t *testing.T) {
	t.Parallel()
	seed := faultSeed(t)
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))

	sends, batches, batchSize, workers := 2000, 200, 5, 8
	if testing.Short() {
		sends, batches = 500, 50
	}

	srv := telcotest.NewServer()
	t.Cleanup(srv.Close)
	attemptTimeout := 250 * time.Millisecond
	srv.SetFaultPolicy(randomFaults(rng, 0.3, 2*attemptTimeout))
	c := srv.Client(telco.WithAttemptTimeout(attemptTimeout),
		telco.WithRetryPolicy(telco.RetryPolicy{MaxRetries: 4, MinWait: time.Millisecond, MaxWait: 2 * time.Millisecond}))

	var mu sync.Mutex
	succeeded := map[string]string{} // ExternalID -> MessageSid
	maybe := map[string]bool{}       // ErrMaybeSent: stored or not
	failed := map[string]error{}     // any other error: must not be stored
	record := func(id string, sid string, err error) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case err == nil:
			succeeded[id] = sid
		case errors.Is(err, telco.ErrMaybeSent):
			maybe[id] = true
		default:
			failed[id] = err
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	jobs := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				if j < sends {
					id := fmt.Sprintf("s-%d", j)
					m, err := c.Messages.Send(ctx, srv.PropertySid, &telco.SendMessageParams{
						To: "+614000" + fmt.Sprintf("%05d", j%100000), Text: "hi " + id, ExternalID: id})
					sid := ""
					if err == nil {
						sid = m.MessageSid
					}
					record(id, sid, err)
					continue
				}
				b := j - sends
				msgs := make([]telco.SendMessageParams, batchSize)
				for k := range msgs {
					msgs[k] = telco.SendMessageParams{To: fmt.Sprintf("+6141%07d", b*batchSize+k), Text: "batch",
						ExternalID: fmt.Sprintf("b-%d-%d", b, k)}
				}
				res, err := c.Messages.SendBatch(ctx, srv.PropertySid, msgs)
				for k := range msgs {
					switch {
					case err != nil:
						record(msgs[k].ExternalID, "", err)
					case res[k].Err != nil:
						record(msgs[k].ExternalID, "", res[k].Err)
					default:
						record(msgs[k].ExternalID, res[k].Message.MessageSid, nil)
					}
				}
			}
		}()
	}
	for j := 0; j < sends+batches; j++ {
		jobs <- j
	}
	close(jobs)
	wg.Wait()
	srv.ClearFaults()
	srv.WaitIdle()
	require.NoError(t, ctx.Err(), "seed %d: the run took too long", seed)

	total := sends + batches*batchSize
	require.Equal(t, total, len(succeeded)+len(maybe)+len(failed), "seed %d: every message has one outcome", seed)
	stored := map[string][]telco.Message{}
	for _, m := range srv.Messages(srv.PropertySid) {
		stored[m.ExternalID] = append(stored[m.ExternalID], m)
	}
	for id, ms := range stored {
		assert.Len(t, ms, 1, "seed %d: %s stored %d times", seed, id, len(ms))
		_, ok := succeeded[id]
		assert.True(t, ok || maybe[id], "seed %d: %s stored but reported as failed: %v", seed, id, failed[id])
	}
	for id, sid := range succeeded {
		ms := stored[id]
		if assert.Len(t, ms, 1, "seed %d: success %s missing from the fake", seed, id) {
			assert.Equal(t, sid, ms[0].MessageSid, "seed %d: %s", seed, id)
		}
	}
	for id, err := range failed {
		assert.Empty(t, stored[id], "seed %d: %s failed without ErrMaybeSent (%v) but was stored", seed, id, err)
	}
	inDoubt := 0
	for id := range maybe {
		if len(stored[id]) == 1 {
			inDoubt++
		}
	}
	t.Logf("seed %d: %d messages, %d requests: %d succeeded, %d ErrMaybeSent (%d of them stored), %d failed",
		seed, total, srv.Requests(), len(succeeded), len(maybe), inDoubt, len(failed))
	// The faults must have bitten, or the test proves nothing.
	assert.NotEmpty(t, maybe, "seed %d: no ErrMaybeSent at all", seed)
	assert.NotZero(t, inDoubt, "seed %d: no ambiguous failure took effect", seed)
	assert.NotEmpty(t, succeeded, "seed %d: nothing succeeded", seed)
}
