package telco

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const inboundJSON = `{"MessageSid":"MGIIIIIIIIIIIIIIIIIIIIIIIIIIIIII","Direction":"Receive","Status":"Received",
 "From":"+61411111111","To":"+61400000001","Text":"STOP","Received":1763780100}`

// post delivers one callback over a real connection and returns the status.
func post(t *testing.T, url, body string) int {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if !assert.NoError(t, err) {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestWebhookRedeliveryRunsOnce is the reproduction: an auto-reply
// sent from an inbound-message function went out twice when the service
// delivered the same callback twice.
func TestWebhookRedeliveryRunsOnce(t *testing.T) {
	t.Parallel()
	var replies atomic.Int64
	srv := httptest.NewServer(InboundMessageHandler(func(context.Context, *MessageEvent) error {
		replies.Add(1) // stands for Messages.Send of an auto-reply
		return nil
	}))
	defer srv.Close()

	assert.Equal(t, http.StatusNoContent, post(t, srv.URL, inboundJSON))
	assert.Equal(t, http.StatusNoContent, post(t, srv.URL, inboundJSON), "a redelivery is answered 2xx, so the sender stops")
	assert.Equal(t, int64(1), replies.Load(), "the auto-reply is sent once")
}

// claimSpy is a CallbackOnce that reports every Claim on a channel before
// passing it on, so that a test can wait until deliveries have arrived.
type claimSpy struct {
	CallbackOnce
	claims chan string
}

func (s *claimSpy) Claim(ctx context.Context, key string) (bool, error) {
	s.claims <- key
	return s.CallbackOnce.Claim(ctx, key)
}

// deliverConcurrently posts body n times at once and returns the statuses.
func deliverConcurrently(t *testing.T, url, body string, n int) map[int]int {
	t.Helper()
	var mu sync.Mutex
	statuses := map[int]int{}
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code := post(t, url, body)
			mu.Lock()
			statuses[code]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	return statuses
}

// waitClaims receives n claims, failing the function (and so the test)
// if they do not come: the deadline is a guard, not what is tested.
func waitClaims(spy *claimSpy, n int) error {
	for range n {
		select {
		case <-spy.claims:
		case <-time.After(10 * time.Second):
			return errors.New("not every delivery arrived")
		}
	}
	return nil
}

func TestWebhookConcurrentRedeliveriesRunOnce(t *testing.T) {
	t.Parallel()
	const n = 16
	spy := &claimSpy{NewMemoryCallbackOnce(0, 0), make(chan string, n)}
	var runs atomic.Int64
	h := InboundMessageHandler(func(context.Context, *MessageEvent) error {
		runs.Add(1)
		// Every delivery is in flight while the function runs.
		return waitClaims(spy, n)
	})
	h.Once = spy
	srv := httptest.NewServer(h)
	defer srv.Close()

	statuses := deliverConcurrently(t, srv.URL, inboundJSON, n)
	assert.Equal(t, map[int]int{http.StatusNoContent: n}, statuses, "every delivery is answered 2xx")
	assert.Equal(t, int64(1), runs.Load())
}

func TestWebhookConcurrentRedeliveriesAfterAFailure(t *testing.T) {
	t.Parallel()
	const n = 16
	spy := &claimSpy{NewMemoryCallbackOnce(0, 0), make(chan string, n)}
	var runs atomic.Int64
	h := InboundMessageHandler(func(context.Context, *MessageEvent) error {
		if runs.Add(1) == 1 {
			if err := waitClaims(spy, n); err != nil {
				return err
			}
			return errors.New("first run fails")
		}
		return nil
	})
	h.Once = spy
	srv := httptest.NewServer(h)
	defer srv.Close()

	statuses := deliverConcurrently(t, srv.URL, inboundJSON, n)
	assert.Equal(t, map[int]int{http.StatusInternalServerError: 1, http.StatusNoContent: n - 1}, statuses)
	assert.Equal(t, int64(2), runs.Load(), "a waiting delivery takes over the failed one's claim, and one is enough")
}

func TestWebhookFailedCallbackRunsAgain(t *testing.T) {
	t.Parallel()
	for name, fail := range map[string]func() error{
		"error": func() error { return errors.New("database down") },
		"panic": func() error { panic("bug") },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			runs := 0
			h := InboundMessageHandler(func(context.Context, *MessageEvent) error {
				runs++
				if runs == 1 {
					return fail()
				}
				return nil
			})
			assert.Equal(t, http.StatusInternalServerError, serveWebhook(h, "POST", "/in", "", inboundJSON).Code)
			assert.Equal(t, http.StatusNoContent, serveWebhook(h, "POST", "/in", "", inboundJSON).Code)
			assert.Equal(t, 2, runs, "the redelivery of a failed callback runs it again")
			assert.Equal(t, http.StatusNoContent, serveWebhook(h, "POST", "/in", "", inboundJSON).Code)
			assert.Equal(t, 2, runs, "a success is remembered")
		})
	}
}

func TestWebhookDistinctCallbacks(t *testing.T) {
	t.Parallel()
	receipt := func(status string, at int, more string) string {
		return fmt.Sprintf(`{"MessageSid":"MGR","Direction":"Transmit","Status":%q,%q:%d%s}`, status, status, at, more)
	}
	porting := func(status, numbers string) string {
		return fmt.Sprintf(`{"PortingNo":"PN-42","Status":%q,"PortingNumbers":[%s]}`, status, numbers)
	}
	const (
		n1        = `{"Number":"+61299999991","Status":"Pending"}`
		n2        = `{"Number":"+61299999992","Status":"Pending","StatusHistory":[{"FdxStatusTo":"Pending","Created":100}]}`
		n2Ported  = `{"Number":"+61299999992","Status":"Ported","StatusHistory":[{"FdxStatusTo":"Pending","Created":100}]}`
		n2History = `{"Number":"+61299999992","Status":"Pending","StatusHistory":[{"FdxStatusTo":"Pending","Created":100},{"FdxStatusTo":"Pending","CarrierPortingStatusTo":"Accepted","Created":200}]}`
	)
	cases := []struct {
		name       string
		first      string
		again      string
		contentTyp string // of again: a form when set
		runs       int
	}{
		{"receipt redelivered", receipt("Delivered", 2, ""), receipt("Delivered", 2, ""), "", 1},
		{"Submitted, then Delivered", receipt("Submitted", 1, ""), receipt("Delivered", 2, ""), "", 2},
		{"submitted again later", receipt("Submitted", 1, ""), receipt("Submitted", 5, ""), "", 2},
		{"failed with another code", receipt("Failed", 0, `,"ErrorCode":"1"`), receipt("Failed", 0, `,"ErrorCode":"2"`), "", 2},
		{"another message", receipt("Delivered", 2, ""), strings.Replace(receipt("Delivered", 2, ""), "MGR", "MGS", 1), "", 2},
		{"fields that say nothing new", receipt("Delivered", 2, ""), receipt("Delivered", 2, `,"Text":"other","NumSegments":3`), "", 1},
		{"status in another case", receipt("Delivered", 2, ""), strings.Replace(receipt("Delivered", 2, ""), `"Status":"Delivered"`, `"Status":"delivered"`, 1), "", 1},
		{"a GET query, then a form", receipt("Delivered", 2, ""),
			"MessageSid=MGR&Direction=Transmit&Status=Delivered&Delivered=2", "application/x-www-form-urlencoded", 1},
		{"porting redelivered", porting("Pending", n1+","+n2), porting("Pending", n1+","+n2), "", 1},
		{"porting numbers in another order", porting("Pending", n1+","+n2), porting("Pending", n2+","+n1), "", 1},
		{"porting status", porting("Pending", n1+","+n2), porting("Completed", n1+","+n2), "", 2},
		{"a number's status", porting("Pending", n1+","+n2), porting("Pending", n1+","+n2Ported), "", 2},
		{"a number's new history entry", porting("Pending", n1+","+n2), porting("Pending", n1+","+n2History), "", 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var rc recorder
			h := rc.all()
			assert.Equal(t, http.StatusNoContent, serveWebhook(h, "POST", "/h", "", tc.first).Code)
			assert.Equal(t, http.StatusNoContent, serveWebhook(h, "POST", "/h", tc.contentTyp, tc.again).Code)
			assert.Equal(t, tc.runs, len(rc.messages)+len(rc.porting))
		})
	}

	t.Run("kinds sharing a store", func(t *testing.T) {
		t.Parallel()
		shared := NewMemoryCallbackOnce(0, 0)
		var rc recorder
		in, lease := InboundMessageHandler(rc.msg), LeaseResponseHandler(rc.msg)
		in.Once, lease.Once = shared, shared
		assert.Equal(t, http.StatusNoContent, serveWebhook(in, "POST", "/in", "", inboundJSON).Code)
		assert.Equal(t, http.StatusNoContent, serveWebhook(lease, "POST", "/lease", "", inboundJSON).Code)
		assert.Equal(t, http.StatusNoContent, serveWebhook(lease, "POST", "/lease", "", inboundJSON).Code)
		assert.Len(t, rc.messages, 2, "an inbound message and a lease response are distinct, each runs once")
	})
}

func TestWebhookWithoutIdentifierRunsEveryTime(t *testing.T) {
	t.Parallel()
	store := newFakeOnce()
	var rc recorder
	in, port := InboundMessageHandler(rc.msg), PortingUpdateHandler(rc.port)
	in.Once, port.Once = store, store
	for range 2 {
		assert.Equal(t, http.StatusNoContent, serveWebhook(in, "POST", "/in", "", `{"MessageSid":"  ","Text":"hi"}`).Code)
		assert.Equal(t, http.StatusNoContent, serveWebhook(port, "POST", "/port", "", `{"PortingNo":" ","Status":"Completed"}`).Code)
	}
	assert.Len(t, rc.messages, 2)
	assert.Len(t, rc.porting, 2)
	assert.Empty(t, store.calls(), "nothing to dedupe by: the store is not asked")
}

func TestWebhookEveryDelivery(t *testing.T) {
	t.Parallel()
	var rc recorder
	h := rc.all()
	h.Once = EveryDelivery
	for range 3 {
		assert.Equal(t, http.StatusNoContent, serveWebhook(h, "POST", "/h", "", inboundJSON).Code)
	}
	assert.Len(t, rc.messages, 3)
}

// fakeOnce is a CallbackOnce of the test's own, as a shared store would
// be, which records its calls and fails when told to.
type fakeOnce struct {
	mu       sync.Mutex
	state    map[string]string // "held" or "done"
	log      []string
	claimErr error
	doneErr  error
	allDone  bool // every key counts as done
}

func newFakeOnce() *fakeOnce { return &fakeOnce{state: map[string]string{}} }

func (f *fakeOnce) Claim(_ context.Context, key string) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.log = append(f.log, "claim "+key)
	switch {
	case f.claimErr != nil:
		return false, f.claimErr
	case f.allDone || f.state[key] == "done":
		return false, nil
	case f.state[key] == "held":
		return false, errors.New("held")
	}
	f.state[key] = "held"
	return true, nil
}

func (f *fakeOnce) Done(_ context.Context, key string, ok bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.log = append(f.log, fmt.Sprintf("done %s %t", key, ok))
	if f.doneErr != nil {
		return f.doneErr
	}
	if ok {
		f.state[key] = "done"
	} else {
		delete(f.state, key)
	}
	return nil
}

func (f *fakeOnce) calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.log...)
}

func TestWebhookCustomCallbackOnce(t *testing.T) {
	t.Parallel()
	t.Run("used instead of the memory", func(t *testing.T) {
		t.Parallel()
		store := newFakeOnce()
		var rc recorder
		h := rc.all()
		h.Once = store
		for range 2 {
			assert.Equal(t, http.StatusNoContent, serveWebhook(h, "POST", "/h", "", receiptJSON).Code)
		}
		assert.Len(t, rc.messages, 1)
		calls := store.calls()
		require.Len(t, calls, 3)
		key := strings.TrimPrefix(calls[0], "claim ")
		assert.Regexp(t, `^receipt:[0-9a-f]{32}$`, key)
		assert.Equal(t, []string{"claim " + key, "done " + key + " true", "claim " + key}, calls)

		store.allDone = true // a store that knows the callback from another replica
		assert.Equal(t, http.StatusNoContent, serveWebhook(h, "POST", "/h", "", inboundJSON).Code)
		assert.Len(t, rc.messages, 1, "the function does not run")
	})

	t.Run("bounded keys", func(t *testing.T) {
		t.Parallel()
		store := newFakeOnce()
		var rc recorder
		h := rc.all()
		h.Once = store
		long := `{"MessageSid":"` + strings.Repeat("M", 60<<10) + `","Direction":"Receive"}`
		assert.Equal(t, http.StatusNoContent, serveWebhook(h, "POST", "/h", "", long).Code)
		calls := store.calls()
		require.NotEmpty(t, calls)
		assert.LessOrEqual(t, len(strings.TrimPrefix(calls[0], "claim ")), 40)
	})

	t.Run("a claim that fails", func(t *testing.T) {
		t.Parallel()
		store := newFakeOnce()
		store.claimErr = errors.New("redis: dial 10.0.0.7:6379: password=hunter2 refused")
		var rc recorder
		h := rc.all()
		h.Once = store
		var status int
		var got error
		h.OnError = func(_ *http.Request, s int, err error) { status, got = s, err }
		w := serveWebhook(h, "POST", "/h", "", receiptJSON)
		assert.Equal(t, http.StatusServiceUnavailable, w.Code, "not 2xx: the sender delivers again later")
		assert.NotContains(t, w.Body.String(), "redis")
		assert.NotContains(t, w.Body.String(), "hunter2")
		assert.Empty(t, rc.messages, "not run without a claim")
		assert.Equal(t, http.StatusServiceUnavailable, status)
		assert.ErrorIs(t, got, store.claimErr)
	})

	t.Run("a record that fails after a success", func(t *testing.T) {
		t.Parallel()
		store := newFakeOnce()
		store.doneErr = errors.New("sql: connection reset")
		var rc recorder
		h := rc.all()
		h.Once = store
		var status int
		var got error
		h.OnError = func(_ *http.Request, s int, err error) { status, got = s, err }
		w := serveWebhook(h, "POST", "/h", "", receiptJSON)
		assert.Equal(t, http.StatusNoContent, w.Code, "the work is done: the sender need not deliver again")
		assert.Len(t, rc.messages, 1)
		assert.Equal(t, http.StatusNoContent, status, "OnError hears of it")
		assert.ErrorIs(t, got, store.doneErr)
	})

	t.Run("a release that fails after a failure", func(t *testing.T) {
		t.Parallel()
		store := newFakeOnce()
		store.doneErr = errors.New("sql: connection reset")
		rc := recorder{err: errors.New("function failed")}
		h := rc.all()
		h.Once = store
		var got error
		h.OnError = func(_ *http.Request, _ int, err error) { got = err }
		w := serveWebhook(h, "POST", "/h", "", receiptJSON)
		assert.Equal(t, http.StatusInternalServerError, w.Code)
		assert.ErrorIs(t, got, rc.err)
		assert.ErrorIs(t, got, store.doneErr)
	})
}

// testClock is a clock the test moves.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func newTestMemory(maxEntries int, maxAge time.Duration) (*memoryCallbackOnce, *testClock) {
	m := NewMemoryCallbackOnce(maxEntries, maxAge).(*memoryCallbackOnce)
	clock := &testClock{now: time.Unix(1763780000, 0)}
	m.now = clock.Now
	return m, clock
}

// record claims key and ends the claim with ok.
func record(t *testing.T, m CallbackOnce, key string, ok bool) {
	t.Helper()
	claimed, err := m.Claim(context.Background(), key)
	require.NoError(t, err)
	require.True(t, claimed, key)
	require.NoError(t, m.Done(context.Background(), key, ok))
}

func claimed(t *testing.T, m CallbackOnce, key string) bool {
	t.Helper()
	c, err := m.Claim(context.Background(), key)
	require.NoError(t, err)
	if c {
		require.NoError(t, m.Done(context.Background(), key, false))
	}
	return c
}

func TestMemoryCallbackOnceBounds(t *testing.T) {
	t.Parallel()
	t.Run("entries", func(t *testing.T) {
		t.Parallel()
		m, _ := newTestMemory(2, time.Hour)
		record(t, m, "a", true)
		record(t, m, "b", true)
		record(t, m, "failed", false)
		record(t, m, "c", true)
		assert.True(t, claimed(t, m, "a"), "the oldest is forgotten")
		assert.False(t, claimed(t, m, "b"))
		assert.False(t, claimed(t, m, "c"))
		assert.True(t, claimed(t, m, "failed"), "a failure is not remembered")
		assert.Len(t, m.done, 2)
	})
	t.Run("age", func(t *testing.T) {
		t.Parallel()
		m, clock := newTestMemory(10, time.Minute)
		record(t, m, "a", true)
		clock.Add(30 * time.Second)
		record(t, m, "b", true)
		clock.Add(29 * time.Second)
		assert.False(t, claimed(t, m, "a"))
		clock.Add(time.Second)
		assert.True(t, claimed(t, m, "a"), "forgotten at maxAge")
		assert.False(t, claimed(t, m, "b"))
		clock.Add(30 * time.Second)
		assert.True(t, claimed(t, m, "b"))
		assert.Empty(t, m.done)
		assert.Empty(t, m.order)
	})
	t.Run("recorded twice", func(t *testing.T) {
		t.Parallel()
		m, clock := newTestMemory(2, time.Minute)
		require.NoError(t, m.Done(context.Background(), "a", true))
		clock.Add(50 * time.Second)
		require.NoError(t, m.Done(context.Background(), "a", true))
		clock.Add(20 * time.Second)
		assert.False(t, claimed(t, m, "a"), "kept from its latest record")
		record(t, m, "b", true)
		record(t, m, "c", true)
		assert.False(t, claimed(t, m, "b"))
		assert.False(t, claimed(t, m, "c"))
		assert.True(t, claimed(t, m, "a"))
	})
	t.Run("defaults", func(t *testing.T) {
		t.Parallel()
		m := NewMemoryCallbackOnce(0, -1).(*memoryCallbackOnce)
		assert.Equal(t, DefaultCallbackOnceEntries, m.max)
		assert.Equal(t, DefaultCallbackOnceAge, m.age)
	})
	t.Run("through the handler", func(t *testing.T) {
		t.Parallel()
		m, _ := newTestMemory(1, time.Hour)
		var rc recorder
		h := rc.all()
		h.Once = m
		for _, body := range []string{inboundJSON, receiptJSON, inboundJSON} {
			assert.Equal(t, http.StatusNoContent, serveWebhook(h, "POST", "/h", "", body).Code)
		}
		assert.Len(t, rc.messages, 3, "with room for one, the first was forgotten by the time it came again")
	})
}

func TestMemoryCallbackOnceWait(t *testing.T) {
	t.Parallel()
	m := NewMemoryCallbackOnce(0, 0)
	ctx := context.Background()
	ok, err := m.Claim(ctx, "k")
	require.NoError(t, err)
	require.True(t, ok)

	canceled, cancel := context.WithCancel(ctx)
	cancel()
	ok, err = m.Claim(canceled, "k")
	assert.False(t, ok)
	assert.ErrorIs(t, err, context.Canceled, "a held key is waited for until the context ends")

	got := make(chan bool)
	go func() {
		ok, err := m.Claim(ctx, "k")
		assert.NoError(t, err)
		got <- ok
	}()
	require.NoError(t, m.Done(ctx, "k", false))
	assert.True(t, <-got, "released: the waiter claims it")
	require.NoError(t, m.Done(ctx, "k", true))
	assert.False(t, claimed(t, m, "k"))
}
