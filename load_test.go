package telco_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http/httptest"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/telcotest"
)

// loadSize is how hard TestLoad pushes: goroutines sharing one Client,
// and calls each makes. The CI run takes a few seconds, -race included;
// TELCO_LOAD=long (100,000 calls, minutes) is the run to take numbers
// from: it logs calls per second and how long cancelled calls took to stop.
func loadSize(t *testing.T) (goroutines, calls int, budget time.Duration) {
	switch {
	case os.Getenv("TELCO_LOAD") == "long":
		return 1000, 100, 15 * time.Minute
	case raceBuild || testing.Short():
		return 200, 4, 2 * time.Minute
	}
	return 300, 8, 2 * time.Minute
}

// receiptCounter is a webhook receiver that counts the delivery receipts
// it gets per MessageSid, and the most it held at once.
type receiptCounter struct {
	*httptest.Server
	mu             sync.Mutex
	got            map[string]int
	inFlight, most atomic.Int32
}

func newReceiptCounter() *receiptCounter {
	rc := &receiptCounter{got: map[string]int{}}
	rc.Server = httptest.NewServer(telco.DeliveryReceiptHandler(func(_ context.Context, ev *telco.MessageEvent) error {
		n := rc.inFlight.Add(1)
		defer rc.inFlight.Add(-1)
		for most := rc.most.Load(); n > most && !rc.most.CompareAndSwap(most, n); most = rc.most.Load() {
		}
		rc.mu.Lock()
		defer rc.mu.Unlock()
		rc.got[ev.Message.MessageSid]++
		return nil
	}))
	return rc
}

// loadLedger is what the callers of TestLoad saw, by ExternalId.
type loadLedger struct {
	mu        sync.Mutex
	succeeded map[string]string // ExternalId -> MessageSid
	maybe     map[string]bool   // ErrMaybeSent: stored or not
	failed    map[string]error  // any other error: must not be stored
	once      map[string]bool   // sent with SendOnce
	receipt   map[string]bool   // asked for a delivery receipt
	sids      []string          // successes, for reads

	onceErrs    []error // SendOnce failures left ambiguous without saying so
	reads       int     // reads
	readErrs    int     // that failed
	wrong       []error // that succeeded with a wrong answer
	cancelled   int     // calls whose context was cancelled
	slowestStop time.Duration
}

func (l *loadLedger) send(id string, once, receipt bool, m *telco.Message, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.once[id], l.receipt[id] = once, receipt
	switch {
	case err == nil:
		l.succeeded[id] = m.MessageSid
		l.sids = append(l.sids, m.MessageSid)
	case errors.Is(err, telco.ErrMaybeSent):
		l.maybe[id] = true
	default:
		l.failed[id] = err
	}
	// SendOnce settles every ambiguous failure of Send: when it still
	// cannot tell, it says so with an *UnresolvedError; any other error
	// (a cancellation before the request left) is one that did not send.
	var unresolved *telco.UnresolvedError
	if once && errors.Is(err, telco.ErrMaybeSent) && !errors.As(err, &unresolved) {
		l.onceErrs = append(l.onceErrs, fmt.Errorf("%s: %w", id, err))
	}
}

// read records a read: err is its failure, wrong a success with a wrong
// answer.
func (l *loadLedger) read(err, wrong error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.reads++
	if err != nil {
		l.readErrs++
	}
	if wrong != nil {
		l.wrong = append(l.wrong, wrong)
	}
}

func (l *loadLedger) anySid(rng *rand.Rand) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.sids) == 0 {
		return ""
	}
	return l.sids[rng.IntN(len(l.sids))]
}

// TestLoad runs hundreds of goroutines on one Client against telcotest,
// with random faults (statuses, dropped connections, truncated bodies,
// latency past the attempt timeout) and cancellations, mixing sends,
// effectively-once sends, reads and delivery receipts. Afterwards no
// ExternalId is stored twice, every success is in the store, no call that
// failed without ErrMaybeSent left a message, every effectively-once send
// that was not cancelled succeeded, cancelled calls returned promptly,
// every delivered message's receipt arrived once, and nothing leaks.
//
// Not parallel: it checks for leaked goroutines on its own. The seed is
// logged; TELCO_FAULT_SEED=<seed> replays the faults (not the
// interleaving). TELCO_LOAD=long runs 1,000 goroutines of 100 calls.
func TestLoad(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	goroutines, calls, budget := loadSize(t)
	seed := faultSeed(t)
	t.Logf("%d goroutines x %d calls", goroutines, calls)

	hooks := newReceiptCounter()
	defer hooks.Close()
	srv := telcotest.NewServer()
	defer srv.Close()
	// Generous: hundreds of goroutines share a loaded machine, and an
	// attempt that times out is a fault of its own.
	const attemptTimeout = time.Second
	srv.SetFaultPolicy(randomFaults(rand.New(rand.NewPCG(seed, 1)), 0.2, 2*attemptTimeout))
	c := srv.Client(telco.WithAttemptTimeout(attemptTimeout),
		telco.WithRetryPolicy(telco.RetryPolicy{MaxRetries: 4, MinWait: time.Millisecond, MaxWait: 5 * time.Millisecond}),
		// Latency faults are handled as soon as the client hangs up; the
		// settle time leaves the loaded fake ample time to store them.
		telco.WithReconcilePolicy(telco.ReconcilePolicy{SettleTime: 500 * time.Millisecond, MaxRounds: 8, ClockSkew: time.Second}))

	l := &loadLedger{succeeded: map[string]string{}, maybe: map[string]bool{}, failed: map[string]error{},
		once: map[string]bool{}, receipt: map[string]bool{}}
	ctx, cancelAll := context.WithTimeout(context.Background(), budget)
	defer cancelAll()
	start := time.Now()
	window := &telco.FindMessagesParams{DateFrom: start.Add(-time.Minute), DateTo: start.Add(time.Hour),
		ListParams: telco.ListParams{Count: 50}}

	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, uint64(g)+2))
			for i := range calls {
				// 15 % of calls are cancelled a little after they start,
				// 3 % before.
				callCtx, cancel := context.WithCancel(ctx)
				var cancelledAt atomic.Int64
				cancelNow := func() { cancelledAt.Store(time.Now().UnixNano()); cancel() }
				switch p := rng.Float64(); {
				case p < 0.03:
					cancelNow()
				case p < 0.18:
					time.AfterFunc(time.Duration(rng.IntN(20_000))*time.Microsecond, cancelNow)
				}

				id := fmt.Sprintf("g%d-%d", g, i)
				var err error
				switch op := rng.IntN(100); {
				case op < 50:
					p := &telco.SendMessageParams{To: fmt.Sprintf("+614%04d%04d", g, i), Text: "load " + id, ExternalID: id}
					receipt := rng.IntN(3) == 0
					if receipt {
						p.DeliveryReceiptWebhookURI = hooks.URL + "/receipts"
					}
					once := op < 15
					var m *telco.Message
					if once {
						m, err = c.Messages.SendOnce(callCtx, srv.PropertySid, p)
					} else {
						m, err = c.Messages.Send(callCtx, srv.PropertySid, p)
					}
					l.send(id, once, receipt, m, err)
				case op < 65:
					var wrong error
					if sid := l.anySid(rng); sid != "" {
						var m *telco.Message
						if m, err = c.Messages.Get(callCtx, sid); err == nil && m.MessageSid != sid {
							wrong = fmt.Errorf("Messages.Get(%s) answered %s", sid, m.MessageSid)
						}
					} else {
						_, err = c.Properties.Get(callCtx, srv.PropertySid)
					}
					l.read(err, wrong)
				case op < 80:
					var wrong error
					page, err := c.Messages.Find(callCtx, srv.PropertySid, window)
					for _, m := range pageItems(page) {
						if m.PropertySid != srv.PropertySid || m.MessageSid == "" {
							wrong = fmt.Errorf("Messages.Find answered %+v", m)
						}
					}
					l.read(err, wrong)
				case op < 90:
					var wrong error
					p, err := c.Properties.Get(callCtx, srv.PropertySid)
					if err == nil && p.PropertySid != srv.PropertySid {
						wrong = fmt.Errorf("Properties.Get answered %s", p.PropertySid)
					}
					l.read(err, wrong)
				default:
					_, err = c.Properties.List(callCtx, nil)
					l.read(err, nil)
				}
				if at := cancelledAt.Load(); at != 0 {
					stop := time.Since(time.Unix(0, at))
					l.mu.Lock()
					l.cancelled++
					l.slowestStop = max(l.slowestStop, stop)
					l.mu.Unlock()
				}
				cancel()
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	require.NoError(t, ctx.Err(), "seed %d: the run outlasted its budget", seed)
	srv.ClearFaults()
	srv.WaitIdle() // requests a latency fault delayed are stored

	// What the callers saw against what the fake stored.
	stored := map[string][]telco.Message{}
	for _, m := range srv.Messages(srv.PropertySid) {
		stored[m.ExternalID] = append(stored[m.ExternalID], m)
	}
	total := len(l.succeeded) + len(l.maybe) + len(l.failed)
	dups := 0
	for id, ms := range stored {
		if len(ms) > 1 {
			dups++
			t.Errorf("seed %d: %s stored %d times (SendOnce %v)", seed, id, len(ms), l.once[id])
		}
		_, ok := l.succeeded[id]
		assert.True(t, ok || l.maybe[id], "seed %d: %s stored but reported as failed: %v", seed, id, l.failed[id])
	}
	assert.Zero(t, dups, "seed %d: duplicates", seed)
	for id, sid := range l.succeeded {
		if ms := stored[id]; assert.Len(t, ms, 1, "seed %d: success %s missing from the fake", seed, id) {
			assert.Equal(t, sid, ms[0].MessageSid, "seed %d: %s", seed, id)
		}
	}
	for id, err := range l.failed {
		assert.Empty(t, stored[id], "seed %d: %s failed without ErrMaybeSent (%v) but was stored", seed, id, err)
	}
	assert.Empty(t, l.onceErrs, "seed %d: SendOnce passed on an ambiguous failure", seed)
	assert.Empty(t, l.wrong, "seed %d: reads answered wrongly", seed)
	// How many reads fail depends on the machine: on a starved one
	// attempts time out, which is a fair failure. Correct answers are
	// what must hold, and some reads must have got through.
	assert.Less(t, l.readErrs, l.reads, "seed %d: every read failed", seed)
	// A call that ignored its cancellation would run through its attempts
	// and retries (about 5 s each time a latency fault hits); one that
	// honours it stops within scheduling delay, even on a starved machine.
	assert.Less(t, l.slowestStop, 10*time.Second, "seed %d: a cancelled call kept running", seed)

	// Delivery receipts: every message that asked for one and was stored
	// is delivered a moment later, and its receipt arrives exactly once,
	// through the fake's bounded pool of callback workers.
	want := map[string]bool{}
	for id, ms := range stored {
		if l.receipt[id] {
			want[ms[0].MessageSid] = true
		}
	}
	require.Eventually(t, func() bool {
		for _, m := range srv.Messages(srv.PropertySid) {
			if want[m.MessageSid] && m.Status != telco.MessageDelivered {
				return false
			}
		}
		return true
	}, 30*time.Second, 50*time.Millisecond, "seed %d: receipted messages delivered", seed)
	srv.Flush()
	hooks.mu.Lock()
	for sid := range want {
		assert.Equal(t, 1, hooks.got[sid], "seed %d: receipts for %s", seed, sid)
	}
	assert.Len(t, hooks.got, len(want), "seed %d: receipts for messages not asked for", seed)
	hooks.mu.Unlock()
	assert.LessOrEqual(t, hooks.most.Load(), int32(telcotest.DefaultCallbackWorkers), "callbacks in flight at once")
	for _, cb := range srv.Callbacks() {
		assert.True(t, cb.OK(), "seed %d: callback %s: %s", seed, cb.Kind, cb.Err)
	}

	inDoubt := 0
	for id := range l.maybe {
		inDoubt += len(stored[id])
	}
	t.Logf("seed %d: %d sends and %d reads in %v (%.0f calls/s, %d requests): %d succeeded, %d ErrMaybeSent (%d stored), "+
		"%d failed; %d of %d reads failed; %d calls cancelled, slowest to stop %v; %d receipts",
		seed, total, l.reads, elapsed.Round(time.Millisecond), float64(goroutines*calls)/elapsed.Seconds(), srv.Requests(),
		len(l.succeeded), len(l.maybe), inDoubt, len(l.failed), l.readErrs, l.reads, l.cancelled, l.slowestStop.Round(time.Millisecond), len(want))
	// The faults and cancellations must have bitten, or this proves little.
	assert.NotEmpty(t, l.maybe, "seed %d: no ErrMaybeSent at all", seed)
	assert.NotZero(t, l.cancelled, "seed %d: nothing cancelled", seed)
	assert.NotEmpty(t, want, "seed %d: no receipts", seed)
}

// pageItems is the page's messages, none when the call failed.
func pageItems(p *telco.Page[telco.Message]) []telco.Message {
	if p == nil {
		return nil
	}
	return p.Items
}
