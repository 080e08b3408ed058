package telco

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// onceRequest is what a recording server saw of one request.
type onceRequest struct {
	Method string
	Query  url.Values
	Body   string
}

// onceServer is a recording httptest server for SendOnce: handle answers
// each request, given its 0-based number among requests of its method.
type onceServer struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []onceRequest
	n    map[string]int
}

func newOnceServer(t *testing.T, handle func(w http.ResponseWriter, r *http.Request, n int)) *onceServer {
	t.Helper()
	s := &onceServer{n: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.reqs = append(s.reqs, onceRequest{Method: r.Method, Query: r.URL.Query(), Body: string(body)})
		n := s.n[r.Method]
		s.n[r.Method]++
		s.mu.Unlock()
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		if r.Method == http.MethodGet && r.URL.Query().Get("Results_Skip") != "" {
			// Past the first page: the handlers answer one page, and a
			// scan reads on until an empty one.
			writeMessages(w)
			return
		}
		handle(w, r, n)
	}))
	t.Cleanup(s.Close)
	return s
}

// methods lists the methods of the sends and look-ups seen, in order: a
// look-up is the first page of a scan. Clock probes (one-message Finds)
// and the later pages of a scan are left out; requests has them all.
func (s *onceServer) methods() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, r := range s.reqs {
		if r.Method == http.MethodGet && (r.Query.Get("Results_Count") == "1" || r.Query.Get("Results_Skip") != "") {
			continue
		}
		out = append(out, r.Method)
	}
	return out
}

// scans lists the first pages of the scans seen, in order.
func (s *onceServer) scans() []onceRequest {
	var out []onceRequest
	for _, r := range s.requests(http.MethodGet) {
		if r.Query.Get("Results_Count") != "1" && r.Query.Get("Results_Skip") == "" {
			out = append(out, r)
		}
	}
	return out
}

func (s *onceServer) requests(method string) []onceRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []onceRequest
	for _, r := range s.reqs {
		if r.Method == method {
			out = append(out, r)
		}
	}
	return out
}

// fastReconcile settles at once and needs no clock margin beyond the Date
// header's own second.
var fastReconcile = ReconcilePolicy{SettleTime: time.Millisecond, MaxRounds: 3, ClockSkew: time.Nanosecond}

// newOnceClient is a Client of srv with a ledger of its own (opts may give
// another): a test server's address may be another's, closed earlier in
// the run, whose records the process's ledger would still hold.
func newOnceClient(t *testing.T, srv *onceServer, pol ReconcilePolicy, opts ...Option) *Client {
	t.Helper()
	all := append([]Option{WithBaseURL(srv.URL), WithRetryPolicy(RetryPolicy{MaxRetries: 0}),
		WithReconcilePolicy(pol), WithLedger(NewMemoryLedger())}, opts...)
	c, err := NewClient(testSid, testToken, all...)
	require.NoError(t, err)
	return c
}

func writeMessages(w http.ResponseWriter, ms ...Message) {
	w.Header().Set("Content-Type", "application/json")
	if ms == nil {
		ms = []Message{}
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"Messages": ms})
}

func writeMessage(w http.ResponseWriter, m Message) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"Message": m})
}

func sentMessage(sid, externalID string) Message {
	return Message{MessageSid: sid, ExternalID: externalID, Direction: DirectionTransmit, Status: MessageProcessing,
		To: "+61499999999", Text: "hi", Created: TimestampOf(time.Now())}
}

func onceParams(id string) *SendMessageParams {
	return &SendMessageParams{To: "+61499999999", Text: "hi", ExternalID: id}
}

func TestSendOnceSucceedsWithoutLooking(t *testing.T) {
	t.Parallel()
	srv := newOnceServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		writeMessage(w, sentMessage("MG1", "order-1"))
	})
	c := newOnceClient(t, srv, fastReconcile)
	m, err := c.Messages.SendOnce(context.Background(), testProp, onceParams("order-1"))
	require.NoError(t, err)
	assert.Equal(t, "MG1", m.MessageSid)
	assert.Equal(t, []string{"POST"}, srv.methods(), "a clear success needs no look-up")
}

func TestSendOnceFoundOnFirstLook(t *testing.T) {
	t.Parallel()
	srv := newOnceServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if r.Method == http.MethodPost {
			http.Error(w, "upstream failed", http.StatusBadGateway) // the service may have acted
			return
		}
		writeMessages(w, sentMessage("MGother", "order-0"), sentMessage("MG1", "order-1"))
	})
	c := newOnceClient(t, srv, fastReconcile)
	before := time.Now()
	m, err := c.Messages.SendOnce(context.Background(), testProp, onceParams("order-1"))
	require.NoError(t, err)
	assert.Equal(t, "MG1", m.MessageSid)
	assert.Equal(t, []string{"POST", "GET"}, srv.methods(), "found: not sent again")

	q := srv.scans()[0].Query
	assert.Equal(t, "Transmit", q.Get("Direction"))
	from, _ := strconv.ParseInt(q.Get("Date_From"), 10, 64)
	to, _ := strconv.ParseInt(q.Get("Date_To"), 10, 64)
	assert.LessOrEqual(t, from, before.Unix(), "the window starts no later than the send")
	assert.Greater(t, to, time.Now().Unix()-1, "Date_To is exclusive: past the second of the look-up")
	assert.LessOrEqual(t, to-from, int64(5), "a window seconds wide, not hours")
}

func TestSendOnceNotFoundThenResent(t *testing.T) {
	t.Parallel()
	srv := newOnceServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		switch {
		case r.Method == http.MethodPost && n == 0:
			http.Error(w, "unavailable", http.StatusServiceUnavailable)
		case r.Method == http.MethodPost:
			writeMessage(w, sentMessage("MG2", "order-1"))
		default:
			writeMessages(w, sentMessage("MGother", "order-9"))
		}
	})
	c := newOnceClient(t, srv, fastReconcile)
	m, err := c.Messages.SendOnce(context.Background(), testProp, onceParams("order-1"))
	require.NoError(t, err)
	assert.Equal(t, "MG2", m.MessageSid, "the resend's message")
	assert.Equal(t, []string{"POST", "GET", "GET", "POST"}, srv.methods(),
		"two look-ups a settle time apart missed it before it was sent again")
	posts := srv.requests("POST")
	assert.Equal(t, posts[0].Body, posts[1].Body, "the same message, ExternalId included")
	assert.Contains(t, posts[1].Body, `"ExternalId":"order-1"`)
}

func TestSendOnceRoundsExhausted(t *testing.T) {
	t.Parallel()
	srv := newOnceServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if r.Method == http.MethodPost {
			http.Error(w, "boom", http.StatusInternalServerError)
			return
		}
		writeMessages(w)
	})
	pol := fastReconcile
	pol.MaxRounds = 3
	c := newOnceClient(t, srv, pol)
	m, err := c.Messages.SendOnce(context.Background(), testProp, onceParams("order-7"))
	require.Error(t, err)
	assert.Nil(t, m)
	assert.ErrorIs(t, err, ErrMaybeSent)
	var ue *UnresolvedError
	require.ErrorAs(t, err, &ue)
	assert.Equal(t, []string{"order-7"}, ue.ExternalIDs)
	assert.Equal(t, 3, ue.Rounds)
	assert.Contains(t, err.Error(), `"order-7"`, "the error names the ExternalId")
	var ae *APIError
	assert.ErrorAs(t, err, &ae, "the last send's failure is kept")
	assert.Equal(t, []string{"POST", "GET", "GET", "POST", "GET"}, srv.methods(),
		"two look-ups missed it, so it was sent again; no send after the last look-up, which no look-up would check")
}

func TestSendOnceLookupFailuresUseRoundsWithoutSending(t *testing.T) {
	t.Parallel()
	srv := newOnceServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if r.Method == http.MethodPost {
			http.Error(w, "boom", http.StatusInternalServerError)
			return
		}
		http.Error(w, "find is down", http.StatusBadGateway)
	})
	c := newOnceClient(t, srv, fastReconcile)
	_, err := c.Messages.SendOnce(context.Background(), testProp, onceParams("order-8"))
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrMaybeSent)
	var ue *UnresolvedError
	require.ErrorAs(t, err, &ue)
	assert.Equal(t, 3, ue.Rounds)
	assert.Len(t, srv.requests("POST"), 1, "a failed look-up says nothing: never send again on it")
	assert.Len(t, srv.requests("GET"), 3, "one failed look-up a round")
}

func TestSendOnceContextCancelledWhileSettling(t *testing.T) {
	t.Parallel()
	srv := newOnceServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		http.Error(w, "boom", http.StatusInternalServerError)
	})
	c := newOnceClient(t, srv, ReconcilePolicy{SettleTime: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	_, err := c.Messages.SendOnce(ctx, testProp, onceParams("order-3"))
	require.Error(t, err)
	assert.Less(t, time.Since(start), 10*time.Second, "the settle wait ends with the context")
	assert.ErrorIs(t, err, context.Canceled)
	assert.ErrorIs(t, err, ErrMaybeSent, "still in doubt")
	assert.Contains(t, err.Error(), `"order-3"`)
	assert.Equal(t, []string{"POST"}, srv.methods())
}

func TestSendOnceContextCancelledWhileLooking(t *testing.T) {
	t.Parallel()
	looking := make(chan struct{})
	srv := newOnceServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if r.Method == http.MethodPost {
			http.Error(w, "boom", http.StatusInternalServerError)
			return
		}
		close(looking)
		<-r.Context().Done() // a look-up that never answers
	})
	c := newOnceClient(t, srv, fastReconcile)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-looking
		cancel()
	}()
	_, err := c.Messages.SendOnce(ctx, testProp, onceParams("order-4"))
	require.Error(t, err)
	assert.ErrorIs(t, err, context.Canceled)
	assert.ErrorIs(t, err, ErrMaybeSent)
	assert.Len(t, srv.requests("POST"), 1)
	assert.Len(t, srv.requests("GET"), 1)
}

func TestSendOnceReturnsDefiniteFailures(t *testing.T) {
	t.Parallel()
	srv := newOnceServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"ResponseStatus":{"ErrorCode":"FORBIDDEN","Message":"The project is not enabled for SMS."}}`)
	})
	c := newOnceClient(t, srv, fastReconcile)
	_, err := c.Messages.SendOnce(context.Background(), testProp, onceParams("order-5"))
	require.Error(t, err)
	assert.False(t, errors.Is(err, ErrMaybeSent), "a rejection is not in doubt: %v", err)
	assert.Equal(t, CodeForbidden, ErrorCode(err))
	assert.Equal(t, []string{"POST"}, srv.methods())
}

func TestSendOnceNeverRetriesBlindly(t *testing.T) {
	t.Parallel()
	srv := newOnceServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if r.Method == http.MethodPost {
			http.Error(w, "boom", http.StatusInternalServerError)
			return
		}
		writeMessages(w, sentMessage("MG1", "order-6"))
	})
	c := newOnceClient(t, srv, fastReconcile,
		WithRetryPolicy(RetryPolicy{MaxRetries: 3, MinWait: time.Millisecond, MaxWait: time.Millisecond, RetryUnsafe: true}))
	m, err := c.Messages.SendOnce(context.Background(), testProp, onceParams("order-6"))
	require.NoError(t, err)
	assert.Equal(t, "MG1", m.MessageSid)
	assert.Equal(t, []string{"POST", "GET"}, srv.methods(), "RetryUnsafe does not apply to SendOnce's sends")
}

func TestSendOnceValidation(t *testing.T) {
	t.Parallel()
	srv := newOnceServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		t.Errorf("no request expected, got %s", r.Method)
	})
	c := newOnceClient(t, srv, fastReconcile)
	ctx := context.Background()
	var ve *ValidationError

	_, err := c.Messages.SendOnce(ctx, testProp, &SendMessageParams{To: "+61499999999", Text: "hi"})
	require.ErrorAs(t, err, &ve, "ExternalId is required")
	assert.Equal(t, "ExternalId", ve.Fields[0].FieldName)
	assert.Equal(t, CodeParameterRequired, ve.Fields[0].Code)

	_, err = c.Messages.SendOnce(ctx, testProp, nil)
	assert.ErrorAs(t, err, &ve)
	_, err = c.Messages.SendOnce(ctx, "", onceParams("x"))
	assert.ErrorAs(t, err, &ve)
	_, err = c.Messages.SendOnce(ctx, testProp, &SendMessageParams{To: "0499", Text: "hi", ExternalID: "x"})
	assert.ErrorAs(t, err, &ve, "Send's own rules still apply")

	batch := []SendMessageParams{*onceParams("a"), {To: "+61499999998", Text: "hi"}, *onceParams("a")}
	_, err = c.Messages.SendBatchOnce(ctx, testProp, batch)
	require.ErrorAs(t, err, &ve, "every ExternalId set and distinct")
	require.Len(t, ve.Fields, 2)
	assert.Equal(t, "Messages[1].ExternalId", ve.Fields[0].FieldName)
	assert.Equal(t, "Messages[2].ExternalId", ve.Fields[1].FieldName)
	assert.Contains(t, ve.Fields[1].Message, "Messages[0]")
	_, err = c.Messages.SendBatchOnce(ctx, testProp, nil)
	assert.ErrorAs(t, err, &ve)

	_, err = c.Messages.FindByExternalID(ctx, testProp, time.Now())
	assert.ErrorAs(t, err, &ve, "at least one ExternalId")
	_, err = c.Messages.FindByExternalID(ctx, testProp, time.Time{}, "a")
	assert.ErrorAs(t, err, &ve, "since is required")
	_, err = c.Messages.FindByExternalID(ctx, testProp, time.Now(), "a", "")
	assert.ErrorAs(t, err, &ve, "no empty ExternalId")

	_, err = NewClient(testSid, testToken, WithReconcilePolicy(ReconcilePolicy{MaxRounds: -1}))
	assert.Error(t, err, "a negative policy value")
}

func TestSendBatchOnceResendsOnlyTheMissing(t *testing.T) {
	t.Parallel()
	srv := newOnceServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		switch {
		case r.Method == http.MethodPost && n == 0:
			http.Error(w, "bad gateway", http.StatusBadGateway)
		case r.Method == http.MethodPost:
			var body struct{ Messages []wireMessage }
			require.NoError(t, json.NewDecoder(r.Body).Decode(&body))
			out := make([]Message, len(body.Messages))
			for i, m := range body.Messages {
				out[i] = sentMessage("MGnew-"+m.ExternalID, m.ExternalID)
			}
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(out)
		default:
			writeMessages(w, sentMessage("MG-b", "b"), sentMessage("MG-x", "unrelated"), sentMessage("MG-d", "d"))
		}
	})
	c := newOnceClient(t, srv, fastReconcile)
	msgs := []SendMessageParams{*onceParams("a"), *onceParams("b"), *onceParams("c"), *onceParams("d")}
	res, err := c.Messages.SendBatchOnce(context.Background(), testProp, msgs)
	require.NoError(t, err)
	require.Len(t, res, 4)
	sids := make([]string, len(res))
	for i, r := range res {
		require.NotNil(t, r.Message, "element %d", i)
		assert.Nil(t, r.Err)
		assert.Equal(t, msgs[i].ExternalID, r.Message.ExternalID, "aligned with the input")
		sids[i] = r.Message.MessageSid
	}
	assert.Equal(t, []string{"MGnew-a", "MG-b", "MGnew-c", "MG-d"}, sids)
	assert.Equal(t, []string{"POST", "GET", "GET", "POST"}, srv.methods(),
		"one scan for the whole batch a round; part of the batch found, so the rest gets another settle round before its resend")
	resend := srv.requests("POST")[1].Body
	assert.Contains(t, resend, `"ExternalId":"a"`)
	assert.Contains(t, resend, `"ExternalId":"c"`)
	assert.NotContains(t, resend, `"ExternalId":"b"`, "found: not sent again")
	assert.NotContains(t, resend, `"ExternalId":"d"`, "found: not sent again")
}

func TestSendBatchOnceUnresolvedNamesTheMissing(t *testing.T) {
	t.Parallel()
	srv := newOnceServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if r.Method == http.MethodPost {
			http.Error(w, "boom", http.StatusInternalServerError)
			return
		}
		writeMessages(w, sentMessage("MG-b", "b"))
	})
	pol := fastReconcile
	pol.MaxRounds = 1
	c := newOnceClient(t, srv, pol)
	msgs := []SendMessageParams{*onceParams("a"), *onceParams("b"), *onceParams("c")}
	res, err := c.Messages.SendBatchOnce(context.Background(), testProp, msgs)
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrMaybeSent)
	var ue *UnresolvedError
	require.ErrorAs(t, err, &ue)
	assert.Equal(t, []string{"a", "c"}, ue.ExternalIDs)
	require.Len(t, res, 3, "results stay aligned on error")
	assert.Nil(t, res[0].Message)
	require.NotNil(t, res[1].Message)
	assert.Equal(t, "MG-b", res[1].Message.MessageSid)
	assert.Nil(t, res[2].Message)
}

func TestSendOnceConcurrentLookupsShareOneScan(t *testing.T) {
	t.Parallel()
	const n = 20
	var finds atomic.Int32
	srv := newOnceServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		if r.Method == http.MethodPost {
			http.Error(w, "boom", http.StatusInternalServerError)
			return
		}
		finds.Add(1)
		time.Sleep(300 * time.Millisecond) // callers pile up behind a slow scan
		ms := make([]Message, n)
		for i := range ms {
			ms[i] = sentMessage(fmt.Sprintf("MG%d", i), fmt.Sprintf("id-%d", i))
		}
		writeMessages(w, ms...)
	})
	pol := fastReconcile
	pol.SettleTime = 20 * time.Millisecond
	c := newOnceClient(t, srv, pol)
	var wg sync.WaitGroup
	errs := make([]error, n)
	sids := make([]string, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m, err := c.Messages.SendOnce(context.Background(), testProp, onceParams(fmt.Sprintf("id-%d", i)))
			errs[i] = err
			if err == nil {
				sids[i] = m.MessageSid
			}
		}()
	}
	wg.Wait()
	for i := range n {
		require.NoError(t, errs[i], "caller %d", i)
		assert.Equal(t, fmt.Sprintf("MG%d", i), sids[i], "caller %d gets its own message", i)
	}
	assert.LessOrEqual(t, finds.Load(), int32(3),
		"%d callers reconciling together share scans: a clock probe (a 5xx page teaches no clock), the first scan, and one for all who joined while it ran", n)
}

// TestSendOnceWindowFollowsServiceClock: the server's Date runs an hour
// ahead of the caller's clock, and the window follows the server.
func TestSendOnceWindowFollowsServiceClock(t *testing.T) {
	t.Parallel()
	const offset = time.Hour
	var postAt, getAt atomic.Int64
	srv := newOnceServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		now := time.Now().Add(offset)
		w.Header().Set("Date", now.UTC().Format(http.TimeFormat))
		if r.Method == http.MethodPost {
			postAt.Store(now.Unix())
			http.Error(w, "boom", http.StatusInternalServerError)
			return
		}
		getAt.Store(now.Unix())
		writeMessages(w, sentMessage("MG1", "order-1"))
	})
	c := newOnceClient(t, srv, fastReconcile)
	_, err := c.Messages.SendOnce(context.Background(), testProp, onceParams("order-1"))
	require.NoError(t, err)
	q := srv.scans()[0].Query
	from, _ := strconv.ParseInt(q.Get("Date_From"), 10, 64)
	to, _ := strconv.ParseInt(q.Get("Date_To"), 10, 64)
	assert.LessOrEqual(t, from, postAt.Load(), "the window starts by the service's time of the send")
	assert.GreaterOrEqual(t, from, postAt.Load()-3, "placed on the service's clock, not the caller's")
	assert.Greater(t, to, getAt.Load(), "and ends after the service's time of the look-up")
	assert.LessOrEqual(t, to, getAt.Load()+3)
}

func TestSendOnceExtendsTheWindowPastItsEnd(t *testing.T) {
	t.Parallel()
	// The service's clock jumps an hour between the send and the look-up:
	// the first page's Date shows the window ended too early.
	jumped := time.Now().Add(time.Hour).Unix()
	var scanned atomic.Bool
	srv := newOnceServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		switch {
		case r.Method == http.MethodPost:
			http.Error(w, "boom", http.StatusInternalServerError)
		case r.URL.Query().Get("Results_Count") == "1":
			writeMessages(w) // the clock probe: before the jump
		case !scanned.Swap(true):
			w.Header().Set("Date", time.Unix(jumped, 0).UTC().Format(http.TimeFormat))
			writeMessages(w)
		default:
			w.Header().Set("Date", time.Unix(jumped, 0).UTC().Format(http.TimeFormat))
			writeMessages(w, sentMessage("MG1", "order-1"))
		}
	})
	c := newOnceClient(t, srv, fastReconcile)
	m, err := c.Messages.SendOnce(context.Background(), testProp, onceParams("order-1"))
	require.NoError(t, err)
	assert.Equal(t, "MG1", m.MessageSid)
	gets := srv.scans()
	require.Len(t, gets, 2)
	assert.Equal(t, gets[0].Query.Get("Date_To"), gets[1].Query.Get("Date_From"), "the tail starts where the window ended")
	to, _ := strconv.ParseInt(gets[1].Query.Get("Date_To"), 10, 64)
	assert.Greater(t, to, jumped, "and covers the service's time")
	assert.Equal(t, []string{"POST", "GET", "GET"}, srv.methods())
}

func TestSendOnceAsksTheClockWhenNoAnswerCame(t *testing.T) {
	t.Parallel()
	srv := newOnceServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if r.Method == http.MethodPost {
			hangUp(w, r) // no answer: no Date header to learn the clock from
			return
		}
		writeMessages(w, sentMessage("MG1", "order-1"))
	})
	c := newOnceClient(t, srv, fastReconcile)
	m, err := c.Messages.SendOnce(context.Background(), testProp, onceParams("order-1"))
	require.NoError(t, err)
	assert.Equal(t, "MG1", m.MessageSid)
	gets := srv.requests("GET")
	require.Len(t, gets, 2)
	assert.Equal(t, "1", gets[0].Query.Get("Results_Count"), "a one-message Find reads the service's clock")
	assert.Empty(t, gets[1].Query.Get("Results_Count"), "the scan pages at the service's default")
}

func TestReconcileWindowEdges(t *testing.T) {
	t.Parallel()
	at := func(sec int64, ms int) time.Time { return time.Unix(sec, int64(ms)*int64(time.Millisecond)) }
	cases := []struct {
		name          string
		since, now    time.Time
		lo, hi, skew  time.Duration
		wantFrom, end int64
	}{
		{"whole seconds: both edge seconds included", at(1000, 0), at(2000, 0), 0, 0, 0, 1000, 2001},
		{"since rounds down, now up", at(1000, 999), at(2000, 1), 0, 0, 0, 1000, 2001},
		{"a late service clock moves the start back a second", at(1000, 200), at(2000, 0), -500 * time.Millisecond, 0, 0, 999, 2001},
		{"an early service clock moves the end on", at(1000, 0), at(2000, 600), 0, 500 * time.Millisecond, 0, 1000, 2002},
		{"skew widens both sides", at(1000, 0), at(2000, 0), 0, 0, 1500 * time.Millisecond, 998, 2002},
	}
	for _, tc := range cases {
		from, to := window(tc.since, tc.now, tc.lo, tc.hi, tc.skew)
		assert.Equal(t, tc.wantFrom, from, "%s: Date_From", tc.name)
		assert.Equal(t, tc.end, to, "%s: Date_To (exclusive)", tc.name)
	}
}

func TestServiceClockIntersectsSamples(t *testing.T) {
	t.Parallel()
	var c serviceClock
	_, _, ok := c.bounds()
	assert.False(t, ok, "nothing known before the first Date")
	local := time.Unix(5000, 0)
	date := func(sec int64) string { return time.Unix(sec, 0).UTC().Format(http.TimeFormat) }

	// Service 1000 s ahead: a Date of 6000 answering a request sent at
	// 5000.0 and received at 5000.2.
	_, ok = c.observe(date(6000), local, local.Add(200*time.Millisecond))
	require.True(t, ok)
	lo, hi, _ := c.bounds()
	assert.Equal(t, 1000*time.Second-200*time.Millisecond, lo)
	assert.Equal(t, 1001*time.Second, hi)

	// A second sample 0.7 s later narrows the interval.
	_, _ = c.observe(date(6001), local.Add(700*time.Millisecond), local.Add(800*time.Millisecond))
	lo, hi, _ = c.bounds()
	assert.Equal(t, 1000*time.Second+200*time.Millisecond, lo)
	assert.Equal(t, 1001*time.Second, hi)
	_, _ = c.observe(date(6001), local.Add(1100*time.Millisecond), local.Add(1150*time.Millisecond))
	lo, hi, _ = c.bounds()
	assert.Equal(t, 1000*time.Second+200*time.Millisecond, lo)
	assert.Equal(t, 1000*time.Second+900*time.Millisecond, hi)

	// A clock step that contradicts the interval starts afresh.
	_, _ = c.observe(date(9000), local.Add(2*time.Second), local.Add(2*time.Second))
	lo, hi, _ = c.bounds()
	assert.Equal(t, 3998*time.Second, lo)
	assert.Equal(t, 3999*time.Second, hi)

	_, ok = c.observe("not a date", local, local)
	assert.False(t, ok)
}
