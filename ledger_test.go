package telco

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLedgerSharedByTwoClientsSendsOnce(t *testing.T) {
	t.Parallel()
	srv := newStoreServer(t, &storeServer{})
	l := NewMemoryLedger()
	a := srv.client(t, fastReconcile, WithLedger(l))
	b := srv.client(t, fastReconcile, WithLedger(l))
	ma, err := a.Messages.SendOnce(context.Background(), testProp, onceParams("x-1"))
	require.NoError(t, err)
	mb, err := b.Messages.SendOnce(context.Background(), testProp, onceParams("x-1"))
	require.NoError(t, err)
	assert.Equal(t, ma.MessageSid, mb.MessageSid)
	assert.Equal(t, 1, srv.stored()["x-1"])

	// Clients with ledgers of their own do not know of each other.
	c := srv.client(t, fastReconcile)
	_, err = c.Messages.SendOnce(context.Background(), testProp, onceParams("x-1"))
	require.NoError(t, err)
	assert.Equal(t, 2, srv.stored()["x-1"], "a ledger is the memory: without sharing it, nothing is shared")
}

func TestLedgerRefusesExternalIDReusedForAnotherMessage(t *testing.T) {
	t.Parallel()
	srv := newStoreServer(t, &storeServer{})
	c := srv.client(t, fastReconcile)
	ctx := context.Background()
	_, err := c.Messages.SendOnce(ctx, testProp, onceParams("x-2"))
	require.NoError(t, err)
	other := []func(p *SendMessageParams){
		func(p *SendMessageParams) { p.Text = "another text" },
		func(p *SendMessageParams) { p.To = "+61499999998" },
		func(p *SendMessageParams) { p.From = "Acme" },
		func(p *SendMessageParams) { p.Schedule = time.Now().Add(time.Hour) },
	}
	for i, change := range other {
		p := onceParams("x-2")
		change(p)
		_, err := c.Messages.SendOnce(ctx, testProp, p)
		require.ErrorIs(t, err, ErrExternalIDReused, "change %d", i)
		assert.Contains(t, err.Error(), `"x-2"`)
		assert.False(t, errors.Is(err, ErrMaybeSent), "nothing was sent")
		_, err = c.Messages.SendBatchOnce(ctx, testProp, []SendMessageParams{*onceParams("x-3"), *p})
		require.ErrorIs(t, err, ErrExternalIDReused, "change %d in a batch", i)
	}
	assert.Equal(t, map[string]int{"x-2": 1}, srv.stored(), "nothing else sent, not even the batch's new element")

	// Fields outside the digest may differ: a retry with another receipt
	// setting is the same message.
	p := onceParams("x-2")
	p.DeliveryReceipt = Ptr(false)
	_, err = c.Messages.SendOnce(ctx, testProp, p)
	assert.NoError(t, err)
}

func TestLedgerSentRecordAnswersWithoutARequest(t *testing.T) {
	t.Parallel()
	srv := newOnceServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		t.Errorf("no request expected, got %s %s", r.Method, r.URL)
	})
	l := NewMemoryLedger()
	sent := Message{MessageSid: "MG9", ExternalID: "x-4", To: "+61499999999", Status: MessageDelivered}
	p := onceParams("x-4")
	require.NoError(t, l.Update(context.Background(), testProp, []string{"x-4"}, func(recs []LedgerRecord) error {
		recs[0] = LedgerRecord{State: LedgerSent, Digest: messageDigest(p), Attempts: 1, Message: &sent}
		return nil
	}))
	c := newOnceClient(t, srv, fastReconcile, WithLedger(l))
	m, err := c.Messages.SendOnce(context.Background(), testProp, p)
	require.NoError(t, err)
	assert.Equal(t, "MG9", m.MessageSid)
	assert.Equal(t, p.Text, m.Text, "the text the ledger does not keep comes from the params")
	res, err := c.Messages.SendBatchOnce(context.Background(), testProp, []SendMessageParams{*p})
	require.NoError(t, err)
	assert.Equal(t, "MG9", res[0].Message.MessageSid)
}

func TestLedgerKeepsNoMessageText(t *testing.T) {
	t.Parallel()
	srv := newStoreServer(t, &storeServer{})
	l := NewMemoryLedger()
	c := srv.client(t, fastReconcile, WithLedger(l))
	p := onceParams("x-5")
	p.Text = "your code is 4821"
	m, err := c.Messages.SendOnce(context.Background(), testProp, p)
	require.NoError(t, err)
	assert.Equal(t, p.Text, m.Text, "the caller gets the whole message")
	rec := ledgerRecord(t, l, testProp, "x-5")
	assert.Equal(t, LedgerSent, rec.State)
	require.NotNil(t, rec.Message)
	assert.Empty(t, rec.Message.Text, "the ledger keeps the digest, not the text")
	assert.Equal(t, m.MessageSid, rec.Message.MessageSid)
	assert.Equal(t, 1, rec.Attempts)
	assert.False(t, rec.First.IsZero())
	assert.Equal(t, rec.First, rec.Last)
}

// ledgerRecord reads one record.
func ledgerRecord(t *testing.T, l Ledger, prop, id string) LedgerRecord {
	t.Helper()
	var out LedgerRecord
	require.NoError(t, l.Update(context.Background(), prop, []string{id}, func(recs []LedgerRecord) error {
		out = recs[0]
		return nil
	}))
	return out
}

// Settle counts from the last attempt that may have reached the service,
// whoever made it: a second Client sharing the ledger waits for it, and
// finds the message the first Client's lost answer left.
func TestLedgerSettleCountsFromAnotherCallersAttempt(t *testing.T) {
	t.Parallel()
	const settle = 300 * time.Millisecond
	srv := newStoreServer(t, &storeServer{send: func(n int) (bool, int, time.Duration) {
		if n == 0 {
			return true, http.StatusBadGateway, settle * 2 / 3 // stored, shown a while later
		}
		return true, 0, 0
	}})
	l := NewMemoryLedger()
	pol := ReconcilePolicy{SettleTime: settle, MaxRounds: 3, ClockSkew: 2 * time.Second}
	a := srv.client(t, pol, WithLedger(l))
	b := srv.client(t, pol, WithLedger(l))
	// a gives up as soon as its send failed: the record is in doubt.
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for ledgerRecord(t, l, testProp, "x-6").State != LedgerInDoubt {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	_, err := a.Messages.SendOnce(ctx, testProp, onceParams("x-6"))
	var ue *UnresolvedError
	require.ErrorAs(t, err, &ue)
	require.ErrorIs(t, err, context.Canceled)
	// b starts at once: it must wait out the settle time of a's attempt.
	m, err := b.Messages.SendOnce(context.Background(), testProp, onceParams("x-6"))
	require.NoError(t, err)
	assert.Equal(t, "MG000000", m.MessageSid, "a's message, found")
	assert.Equal(t, 1, srv.stored()["x-6"])
	rec := ledgerRecord(t, l, testProp, "x-6")
	assert.Equal(t, LedgerSent, rec.State)
	assert.True(t, rec.Found, "learnt by a look-up")
}

// Two callers sending the same ExternalId at the same time against a slow
// service: the second waits for the first's attempt instead of sending.
func TestLedgerConcurrentSendsOfOneExternalID(t *testing.T) {
	t.Parallel()
	var posts atomic.Int32
	srv := newStoreServer(t, &storeServer{})
	inner := srv.Config.Handler
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			posts.Add(1)
			time.Sleep(100 * time.Millisecond)
		}
		inner.ServeHTTP(w, r)
	})
	l := NewMemoryLedger()
	const n = 8
	var wg sync.WaitGroup
	sids := make([]string, n)
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := srv.client(t, fastReconcile, WithLedger(l))
			m, err := c.Messages.SendOnce(context.Background(), testProp, onceParams("x-7"))
			errs[i] = err
			if err == nil {
				sids[i] = m.MessageSid
			}
		}()
	}
	wg.Wait()
	for i := range n {
		require.NoError(t, errs[i], "caller %d", i)
		assert.Equal(t, sids[0], sids[i], "caller %d gets the one message", i)
	}
	assert.Equal(t, int32(1), posts.Load(), "one request")
	assert.Equal(t, 1, srv.stored()["x-7"])
}

// A batch mixing elements sent by an earlier call with new ones sends only
// the new ones.
func TestLedgerBatchSendsOnlyWhatIsNew(t *testing.T) {
	t.Parallel()
	srv := newStoreServer(t, &storeServer{})
	c := srv.client(t, fastReconcile)
	ctx := context.Background()
	_, err := c.Messages.SendBatchOnce(ctx, testProp, []SendMessageParams{*onceParams("y-1"), *onceParams("y-2")})
	require.NoError(t, err)
	res, err := c.Messages.SendBatchOnce(ctx, testProp, []SendMessageParams{*onceParams("y-1"), *onceParams("y-3"), *onceParams("y-2")})
	require.NoError(t, err)
	for i, r := range res {
		require.NotNil(t, r.Message, "element %d", i)
	}
	assert.Equal(t, map[string]int{"y-1": 1, "y-2": 1, "y-3": 1}, srv.stored())
	assert.Equal(t, 2, srv.sendCount(), "two batches; the second carried only y-3")
}

// A refusal leaves nothing at the service: the next call sends again.
func TestLedgerRefusedIsSentAgain(t *testing.T) {
	t.Parallel()
	var refuse atomic.Bool
	refuse.Store(true)
	srv := newOnceServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if refuse.Load() {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusForbidden)
			_, _ = w.Write([]byte(`{"ResponseStatus":{"ErrorCode":"FORBIDDEN","Message":"SMS is off"}}`))
			return
		}
		writeMessage(w, sentMessage("MG1", "x-8"))
	})
	l := NewMemoryLedger()
	c := newOnceClient(t, srv, fastReconcile, WithLedger(l))
	_, err := c.Messages.SendOnce(context.Background(), testProp, onceParams("x-8"))
	require.Error(t, err)
	assert.Equal(t, CodeForbidden, ErrorCode(err))
	assert.Equal(t, LedgerRefused, ledgerRecord(t, l, testProp, "x-8").State)
	refuse.Store(false)
	m, err := c.Messages.SendOnce(context.Background(), testProp, onceParams("x-8"))
	require.NoError(t, err)
	assert.Equal(t, "MG1", m.MessageSid)
	assert.Equal(t, []string{"POST", "POST"}, srv.methods(), "no look-up: a refusal sent nothing")
}

// A ledger that fails to record the claim sends nothing.
func TestLedgerFailureSendsNothing(t *testing.T) {
	t.Parallel()
	srv := newOnceServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		t.Errorf("no request expected, got %s %s", r.Method, r.URL)
	})
	boom := errors.New("disk full")
	c := newOnceClient(t, srv, fastReconcile, WithLedger(failingLedger{boom}))
	_, err := c.Messages.SendOnce(context.Background(), testProp, onceParams("x-9"))
	require.ErrorIs(t, err, boom)
	assert.False(t, errors.Is(err, ErrMaybeSent), "nothing was sent: %v", err)
	assert.Contains(t, err.Error(), "Messages.SendOnce")
}

type failingLedger struct{ err error }

func (f failingLedger) Update(context.Context, string, []string, func([]LedgerRecord) error) error {
	return f.err
}

func TestMemoryLedgerBounds(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_800_000_000, 0)
	l := NewMemoryLedgerSize(3, time.Hour).(*memoryLedger)
	l.now = func() time.Time { return now }
	put := func(id string) {
		require.NoError(t, l.Update(context.Background(), "P", []string{id}, func(recs []LedgerRecord) error {
			recs[0].State, recs[0].Attempts = LedgerSent, 1
			return nil
		}))
	}
	has := func(id string) bool { return ledgerRecord(t, l, "P", id).State == LedgerSent }
	for _, id := range []string{"a", "b", "c"} {
		put(id)
	}
	assert.True(t, has("a"), "a is now the most recently used")
	put("d") // over the size: the least recently used (b) goes
	assert.False(t, has("b"))
	assert.True(t, has("a"))
	assert.True(t, has("c"))
	assert.True(t, has("d"))
	now = now.Add(61 * time.Minute)
	assert.False(t, has("a"), "older than the age bound")
	assert.Equal(t, 0, l.len(), "every record expired; reading one records nothing")

	// A record never written and left unwritten takes no room.
	for i := range 10 {
		ledgerRecord(t, l, "P", fmt.Sprint("read-", i))
	}
	assert.Equal(t, 0, l.len())
	// Keys are per project.
	put("e")
	assert.Equal(t, LedgerNew, ledgerRecord(t, l, "Q", "e").State)
}

func TestMemoryLedgerUpdateIsAtomic(t *testing.T) {
	t.Parallel()
	l := NewMemoryLedger()
	var wg sync.WaitGroup
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = l.Update(context.Background(), "P", []string{"n", "m"}, func(recs []LedgerRecord) error {
				recs[0].Attempts++
				recs[1].Attempts += 2
				return nil
			})
		}()
	}
	wg.Wait()
	assert.Equal(t, 50, ledgerRecord(t, l, "P", "n").Attempts)
	assert.Equal(t, 100, ledgerRecord(t, l, "P", "m").Attempts)
	// An error from fn stores nothing.
	err := l.Update(context.Background(), "P", []string{"n"}, func(recs []LedgerRecord) error {
		recs[0].Attempts = 0
		return errors.New("no")
	})
	require.Error(t, err)
	assert.Equal(t, 50, ledgerRecord(t, l, "P", "n").Attempts)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.ErrorIs(t, l.Update(ctx, "P", []string{"n"}, func([]LedgerRecord) error { return nil }), context.Canceled)
}

func TestMessageDigest(t *testing.T) {
	t.Parallel()
	base := SendMessageParams{To: "+61499999999", From: "Acme", Text: "hi", Schedule: time.Unix(1_800_000_000, 0)}
	d := messageDigest(&base)
	assert.Len(t, d, 32)
	same := base
	same.ExternalID, same.DeliveryReceipt, same.Schedule = "x", Ptr(false), base.Schedule.Add(300*time.Millisecond)
	assert.Equal(t, d, messageDigest(&same), "fields outside the digest, and the Schedule's sub-second, do not count")
	// Field boundaries count: "ab"+"c" is not "a"+"bc".
	a := SendMessageParams{To: "ab", From: "c"}
	b := SendMessageParams{To: "a", From: "bc"}
	assert.NotEqual(t, messageDigest(&a), messageDigest(&b))
	for name, change := range map[string]func(*SendMessageParams){
		"To":          func(p *SendMessageParams) { p.To = "+61499999998" },
		"From":        func(p *SendMessageParams) { p.From = "Acme2" },
		"Text":        func(p *SendMessageParams) { p.Text = "hi!" },
		"Schedule":    func(p *SendMessageParams) { p.Schedule = p.Schedule.Add(time.Second) },
		"no Schedule": func(p *SendMessageParams) { p.Schedule = time.Time{} },
	} {
		other := base
		change(&other)
		assert.NotEqual(t, d, messageDigest(&other), name)
	}
	// One function of the message whatever the ledger, and stable across
	// processes and releases: records the CLI or riversend wrote, and
	// ledgers wrapped or shared, must keep matching.
	assert.Equal(t, "7756e56bde69162ec015ac70c522fed0", messageDigest(&SendMessageParams{To: "+61499999999", From: "Acme", Text: "hi"}))
}

func TestClientLedger(t *testing.T) {
	t.Parallel()
	l := NewMemoryLedger()
	c, err := NewClient(testSid, testToken, WithLedger(l))
	require.NoError(t, err)
	assert.Same(t, l.(*memoryLedger), c.Ledger().(*memoryLedger))
	d, err := NewClient(testSid, testToken)
	require.NoError(t, err)
	e, err := NewClient(testSid, testToken)
	require.NoError(t, err)
	assert.Equal(t, d.Ledger(), e.Ledger(), "the process's ledger, and the same part of it")
	f, err := NewClient(testSid, testToken, WithBaseURL("https://api.example.com"))
	require.NoError(t, err)
	g, err := NewClient("AC2", testToken)
	require.NoError(t, err)
	assert.NotEqual(t, d.Ledger(), f.Ledger(), "another service, another part")
	assert.NotEqual(t, d.Ledger(), g.Ledger(), "another account, another part")
}

// The memory ledger gives back what it was given, times to the nanosecond.
func TestMemoryLedgerKeepsRecords(t *testing.T) {
	t.Parallel()
	l := NewMemoryLedger()
	now := time.Now()
	in := LedgerRecord{State: LedgerSent, Digest: "d1", First: now, Last: now.Add(time.Second), Ended: now.Add(2 * time.Second),
		Claim: now.Add(time.Minute), Attempts: 3, Found: true, Err: &APIError{Code: "X"},
		Message: &Message{MessageSid: "MG1", To: "+61400000001", Status: MessageDelivered, Created: 5}}
	require.NoError(t, l.Update(bg, "P", []string{"e"}, func(recs []LedgerRecord) error { recs[0] = in; return nil }))
	got := ledgerRecord(t, l, "P", "e")
	assert.Equal(t, "P", got.PropertySid)
	assert.Equal(t, "e", got.ExternalID)
	for _, pair := range [][2]time.Time{{in.First, got.First}, {in.Last, got.Last}, {in.Ended, got.Ended}, {in.Claim, got.Claim}} {
		assert.True(t, pair[0].Equal(pair[1]), "%v != %v", pair[0], pair[1])
	}
	assert.Equal(t, *in.Message, *got.Message)
	assert.Equal(t, in.Err, got.Err)
	assert.Equal(t, in.Attempts, got.Attempts)
	assert.True(t, got.Found)
	assert.Equal(t, LedgerSent, got.State)
	assert.Equal(t, "d1", got.Digest)
}

// The memory ledger against a model of it (a map and a list in order of
// use): random updates of a few keys, some refused, with the size and age
// bounds at work. After every update the records and their order must
// agree.
func TestMemoryLedgerMatchesModel(t *testing.T) {
	t.Parallel()
	type key struct{ prop, id string }
	for seed := int64(1); seed <= 20; seed++ {
		rnd := rand.New(rand.NewSource(seed))
		now := time.Unix(1_800_000_000, 0)
		l := NewMemoryLedgerSize(1+rnd.Intn(8), time.Duration(rnd.Intn(3))*time.Minute).(*memoryLedger)
		l.now = func() time.Time { return now }
		var order []key // least recently used first
		recs := map[key]LedgerRecord{}
		used := map[key]time.Time{}
		drop := func(k key) {
			delete(recs, k)
			delete(used, k)
			for i, o := range order {
				if o == k {
					order = append(order[:i], order[i+1:]...)
					break
				}
			}
		}
		ids := []string{"a", "bb", "ccc", "d", strings.Repeat("long", 120), "e e", ""}
		props := []string{"P", "PQ"}
		for step := 0; step < 300; step++ {
			now = now.Add(time.Duration(rnd.Intn(40)) * time.Second)
			if l.age > 0 {
				for len(order) > 0 && now.Sub(used[order[0]]) > l.age {
					drop(order[0])
				}
			}
			prop := props[rnd.Intn(len(props))]
			var batch []string
			for range 1 + rnd.Intn(3) {
				batch = append(batch, ids[rnd.Intn(len(ids))])
			}
			fail := rnd.Intn(10) == 0
			var writes []LedgerRecord
			err := l.Update(bg, prop, batch, func(got []LedgerRecord) error {
				writes = writes[:0]
				read := slices.Clone(got)
				for i, id := range batch {
					want, ok := recs[key{prop, id}]
					if !ok {
						want = LedgerRecord{PropertySid: prop, ExternalID: id}
					}
					if i > 0 && slices.Contains(batch[:i], id) {
						want = read[slices.Index(batch, id)] // read before any store: as the first
					}
					require.Equal(t, want, read[i], "seed %d step %d: %s/%q", seed, step, prop, id)
					r := got[i]
					switch rnd.Intn(4) {
					case 0: // leave it
					case 1:
						r.State, r.Attempts, r.Digest, r.Last = LedgerSending, r.Attempts+1, fmt.Sprint("d", step), now
					case 2:
						m := &Message{MessageSid: fmt.Sprint("MG", step), To: strings.Repeat("9", rnd.Intn(300))}
						if rnd.Intn(2) == 0 { // as the service answers: the key's own
							m.PropertySid, m.ExternalID = prop, id
						} else if rnd.Intn(2) == 0 {
							m.PropertySid, m.ExternalID = "other", id+"x"
						}
						r.State, r.Message, r.Ended = LedgerSent, m, now
					case 3:
						r.State, r.Err = LedgerRefused, &APIError{Code: fmt.Sprint("E", step)}
					}
					got[i] = r
					writes = append(writes, r)
				}
				if fail {
					return errors.New("no")
				}
				return nil
			})
			if fail {
				require.Error(t, err)
			} else {
				require.NoError(t, err)
				for i, id := range batch {
					k, r := key{prop, id}, writes[i]
					_, ok := recs[k]
					if !ok && r.State == LedgerNew && r.Attempts == 0 {
						continue
					}
					if ok {
						drop(k)
					} else if len(order) >= l.max {
						drop(order[0])
					}
					if r.Message != nil {
						m := *r.Message
						r.Message = &m
					}
					recs[k], used[k] = r, now
					order = append(order, k)
				}
			}
			// The ledger's own list, read without touching it.
			gotOrder := []key{}
			for e := l.order.Front(); e != nil; e = e.Next() {
				me := e.Value.(*memoryEntry)
				k := key{me.key.prop, me.key.id}
				gotOrder = append(gotOrder, k)
				require.Equal(t, recs[k], me.rec, "seed %d step %d", seed, step)
			}
			require.Equal(t, append([]key{}, order...), gotOrder, "seed %d step %d: records in order of use", seed, step)
			require.Len(t, l.byKey, len(order))
		}
	}
}

// A Client made per call (a serverless handler, a test) sending once
// reserved 3.4 MB for a ledger of its own at its first SendOnce. Through
// the process's ledger it allocates about what Send does.
func TestReproSendOnceOnAFreshClientAllocatesLittle(t *testing.T) {
	body := fixture(t, "send_message.json")
	perCall := func(once bool) uint64 {
		const calls = 20
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		for i := range calls {
			c, err := NewClient(testSid, testToken, WithBaseURL("https://fresh.telco.test"),
				WithHTTPClient(&http.Client{Transport: cannedTransport{body}}))
			require.NoError(t, err)
			p := SendMessageParams{From: "Acme", To: "+61499999999", Text: "hi", ExternalID: fmt.Sprint("fresh-", once, "-", i)}
			if once {
				_, err = c.Messages.SendOnce(bg, testProp, &p)
			} else {
				_, err = c.Messages.Send(bg, testProp, &p)
			}
			require.NoError(t, err)
		}
		runtime.ReadMemStats(&after)
		return (after.TotalAlloc - before.TotalAlloc) / calls
	}
	send, once := perCall(false), perCall(true)
	t.Logf("per call on a fresh Client: Send %d KB, SendOnce %d KB", send>>10, once>>10)
	assert.LessOrEqual(t, once, uint64(256<<10), "SendOnce on a fresh Client: %d KB a call", once>>10)
}

// Two Clients made in turn in one process, neither with WithLedger, sent
// the same ExternalId twice (20 of 20): each had a ledger of its own.
func TestReproTwoFreshClientsSendAnExternalIDOnce(t *testing.T) {
	t.Parallel()
	srv := newStoreServer(t, &storeServer{})
	for i := range 20 {
		id := fmt.Sprint("fresh-pair-", i)
		for range 2 {
			c := srv.client(t, fastReconcile, WithLedger(nil)) // the process's
			_, err := c.Messages.SendOnce(bg, testProp, onceParams(id))
			require.NoError(t, err)
		}
		assert.Equal(t, 1, srv.stored()[id], "%s: two fresh Clients of one process", id)
	}
}

// The process's ledger is keyed by service and account: the same
// ExternalId sent to two services, or by two accounts, is sent to each.
func TestProcessLedgerKeepsServicesAndAccountsApart(t *testing.T) {
	t.Parallel()
	a, b := newStoreServer(t, &storeServer{}), newStoreServer(t, &storeServer{})
	for _, srv := range []*storeServer{a, b, a} {
		_, err := srv.client(t, fastReconcile, WithLedger(nil)).Messages.SendOnce(bg, testProp, onceParams("two-services"))
		require.NoError(t, err)
	}
	assert.Equal(t, 1, a.stored()["two-services"])
	assert.Equal(t, 1, b.stored()["two-services"])

	other, err := NewClient("AC2", testToken, WithBaseURL(a.URL), WithRetryPolicy(RetryPolicy{MaxRetries: 0}))
	require.NoError(t, err)
	_, err = other.Messages.SendOnce(bg, testProp, onceParams("two-services"))
	require.NoError(t, err)
	assert.Equal(t, 2, a.stored()["two-services"], "another account's records are its own")
}

// A message the service refused (a bad number, say) may be corrected and
// sent again under its ExternalId: nothing of it is at the service.
func TestLedgerRefusedExternalIDTakesACorrectedMessage(t *testing.T) {
	t.Parallel()
	srv := newStoreServer(t, &storeServer{send: func(n int) (bool, int, time.Duration) {
		if n == 0 {
			return false, http.StatusBadRequest, 0
		}
		return true, 0, 0
	}})
	c := srv.client(t, fastReconcile, WithLedger(NewMemoryLedger()))
	bad := onceParams("fix-1")
	bad.To = "+61400000000"
	_, err := c.Messages.SendOnce(bg, testProp, bad)
	require.Error(t, err)
	require.False(t, errors.Is(err, ErrMaybeSent), "refused: %v", err)
	m, err := c.Messages.SendOnce(bg, testProp, onceParams("fix-1"))
	require.NoError(t, err, "the corrected message goes under the same ExternalId")
	assert.Equal(t, onceParams("fix-1").To, m.To)
	assert.Equal(t, 1, srv.stored()["fix-1"])
	other := onceParams("fix-1")
	other.Text = "another text"
	_, err = c.Messages.SendOnce(bg, testProp, other)
	assert.ErrorIs(t, err, ErrExternalIDReused, "once sent, it holds its message")
}

// A default Client's Ledger is a comparable value, as it was: comparing
// two with == must not panic, and two fresh Clients of one account
// share it.
func TestDefaultLedgersCompare(t *testing.T) {
	t.Parallel()
	d, err := NewClient(testSid, testToken)
	require.NoError(t, err)
	e, err := NewClient(testSid, testToken)
	require.NoError(t, err)
	g, err := NewClient("AC2", testToken)
	require.NoError(t, err)
	assert.NotPanics(t, func() {
		assert.True(t, d.Ledger() == e.Ledger(), "one account, one part of the process ledger")
		assert.False(t, d.Ledger() == g.Ledger(), "another account, another part")
	})
}
