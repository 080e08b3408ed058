package telcotest_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/telcotest"
)

// stuckReceiver answers no callback until release is closed, and counts
// how many it holds at once.
type stuckReceiver struct {
	*httptest.Server
	release        chan struct{}
	inFlight, most atomic.Int32
	arrived        atomic.Int32
	mu             sync.Mutex
	texts          []string
	releaseOnce    sync.Once
}

func newStuckReceiver(t *testing.T) *stuckReceiver {
	t.Helper()
	sr := &stuckReceiver{release: make(chan struct{})}
	sr.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m telco.Message
		_ = json.NewDecoder(r.Body).Decode(&m)
		n := sr.inFlight.Add(1)
		defer sr.inFlight.Add(-1)
		for {
			most := sr.most.Load()
			if n <= most || sr.most.CompareAndSwap(most, n) {
				break
			}
		}
		sr.arrived.Add(1)
		select {
		case <-sr.release:
		case <-r.Context().Done():
			return
		}
		sr.mu.Lock()
		sr.texts = append(sr.texts, m.Text)
		sr.mu.Unlock()
	}))
	t.Cleanup(func() {
		sr.unblock()
		sr.Close()
	})
	return sr
}

func (sr *stuckReceiver) unblock() { sr.releaseOnce.Do(func() { close(sr.release) }) }

// inboundTo configures a number of srv to call url on every SMS it
// receives, and returns a function that makes it receive one.
func inboundTo(t *testing.T, srv *telcotest.Server, url string) func(text string) {
	t.Helper()
	const number = "+61255550042"
	srv.AddNumber(srv.PropertySid, number)
	_, err := srv.Client().Numbers.Configure(testCtx(t), number, &telco.NumberConfigParams{WebhookURL: url, WebhookMethod: "POST"})
	require.NoError(t, err)
	return func(text string) { srv.Receive(srv.PropertySid, "+61400000001", number, text) }
}

// A receiver that does not answer holds at most Workers callbacks (and so
// goroutines and connections) of the fake, however many are due; before,
// each callback had a goroutine of its own (9,000 descriptors against a
// receiver that never answered).
func TestWebhooks_InFlightBounded(t *testing.T) {
	t.Parallel()
	sr := newStuckReceiver(t)
	srv := newServer(t)
	receive := inboundTo(t, srv, sr.URL)
	const n = 200
	for i := range n {
		receive(strconv.Itoa(i))
	}
	require.Eventually(t, func() bool { return sr.inFlight.Load() == telcotest.DefaultCallbackWorkers },
		10*time.Second, 5*time.Millisecond)
	time.Sleep(100 * time.Millisecond) // room for any more to arrive
	assert.Equal(t, int32(telcotest.DefaultCallbackWorkers), sr.most.Load(), "callbacks in flight at once")

	sr.unblock()
	srv.Flush()
	assert.Equal(t, int32(n), sr.arrived.Load(), "every queued callback is sent")
	cbs := srv.Callbacks()
	require.Len(t, cbs, n)
	for _, cb := range cbs {
		assert.True(t, cb.OK(), cb.Err)
	}
}

// Past the queue, a callback is dropped and recorded as failed; the fake
// never blocks on it.
func TestWebhooks_QueueFullIsRecorded(t *testing.T) {
	t.Parallel()
	sr := newStuckReceiver(t)
	srv := newServer(t, telcotest.WithCallbackLimits(telcotest.CallbackLimits{Workers: 1, Queue: 3}))
	receive := inboundTo(t, srv, sr.URL)
	receive("0")
	require.Eventually(t, func() bool { return sr.inFlight.Load() == 1 }, 10*time.Second, time.Millisecond)
	for i := 1; i < 10; i++ {
		receive(strconv.Itoa(i))
	}
	// Six found the queue full (one in flight, three waiting), and are
	// already recorded.
	dropped := srv.Callbacks()
	require.Len(t, dropped, 6)
	for _, cb := range dropped {
		assert.False(t, cb.OK())
		assert.Zero(t, cb.Status)
		assert.Contains(t, cb.Err, "queue full")
	}

	sr.unblock()
	srv.Flush()
	sr.mu.Lock()
	assert.Equal(t, []string{"0", "1", "2", "3"}, sr.texts, "sent in order, one at a time")
	sr.mu.Unlock()
	ok := 0
	for _, cb := range srv.Callbacks() {
		if cb.OK() {
			ok++
		}
	}
	assert.Equal(t, 4, ok)
}

// Callbacks keeps the most recent History callbacks, not every one ever
// made.
func TestWebhooks_HistoryBounded(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t, http.StatusOK)
	for _, tc := range []struct {
		history int
		want    []string
	}{
		{5, []string{"35", "36", "37", "38", "39"}},
		{-1, nil},
	} {
		srv := newServer(t, telcotest.WithCallbackLimits(telcotest.CallbackLimits{Workers: 1, History: tc.history}))
		receive := inboundTo(t, srv, rc.URL)
		for i := range 40 {
			receive(strconv.Itoa(i))
		}
		srv.Flush()
		var texts []string
		for _, cb := range srv.Callbacks() {
			var m telco.Message
			require.NoError(t, json.Unmarshal(cb.Body, &m))
			texts = append(texts, m.Text)
		}
		assert.Equal(t, tc.want, texts, "history %d", tc.history)
	}
	assert.Len(t, rc.got(), 80, "every callback was sent")

	// The default keeps DefaultCallbackHistory.
	srv := newServer(t)
	receive := inboundTo(t, srv, rc.URL)
	for i := range telcotest.DefaultCallbackHistory + 50 {
		receive(strconv.Itoa(i))
	}
	srv.Flush()
	assert.Len(t, srv.Callbacks(), telcotest.DefaultCallbackHistory)
}

// Each callback has its own time limit, and Close gives those still
// queued and in flight one such limit in all, not one each.
func TestWebhooks_TimeoutAndCloseAgainstSilentReceiver(t *testing.T) {
	t.Parallel()
	sr := newStuckReceiver(t)
	srv := telcotest.NewServer(telcotest.WithCallbackLimits(telcotest.CallbackLimits{Workers: 2, Timeout: 200 * time.Millisecond}))
	receive := inboundTo(t, srv, sr.URL)
	receive("alone")
	start := time.Now()
	srv.Flush()
	assert.Less(t, time.Since(start), 3*time.Second)
	cbs := srv.Callbacks()
	require.Len(t, cbs, 1)
	assert.False(t, cbs[0].OK())
	assert.True(t, strings.Contains(cbs[0].Err, "Timeout") || strings.Contains(cbs[0].Err, "deadline"), cbs[0].Err)

	for i := range 100 { // 50 rounds of 200 ms, one after the other
		receive(strconv.Itoa(i))
	}
	start = time.Now()
	srv.Close()
	assert.Less(t, time.Since(start), 3*time.Second, "Close waits one time limit, not one per callback")
	assert.Len(t, srv.Callbacks(), 101)
	for _, cb := range srv.Callbacks() {
		assert.False(t, cb.OK())
	}
}
