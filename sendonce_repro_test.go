package telco

// Reproductions of the ways to send twice that the send ledger closes
// (issue "Exactly once across calls"), each on a recording server.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// storeServer is a small stateful service for SendOnce: it stores what it
// is sent (a send may store and then fail as told), and answers Find with
// pages of at most pageCap messages, honouring Date_From, Date_To and
// Results_Skip. Created is stamped by its clock less createdLag.
type storeServer struct {
	*httptest.Server
	mu         sync.Mutex
	msgs       []Message
	visible    []time.Time // when each message shows in Find
	sends      int
	pageCap    int
	createdLag time.Duration
	dateAhead  time.Duration // added to the Date header
	// send decides each send's fate, given its 0-based number: stored
	// says the messages are stored (visible after visibleAfter), fail is
	// the status to answer instead of the message (0 for none).
	send func(n int) (stored bool, fail int, visibleAfter time.Duration)
	// partial, when set, says how many of a batch's messages are visible
	// at once; the rest become visible after lateBy.
	partial int
	lateBy  time.Duration
	// delay, when set, holds the answer to the nth send (from 0, counted
	// apart from sends) before the server handles it.
	delay  func(n int) time.Duration
	posted atomic.Int32
}

func newStoreServer(t *testing.T, s *storeServer) *storeServer {
	t.Helper()
	if s.pageCap == 0 {
		s.pageCap = 200
	}
	if s.send == nil {
		s.send = func(int) (bool, int, time.Duration) { return true, 0, 0 }
	}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *storeServer) serve(w http.ResponseWriter, r *http.Request) {
	if s.delay != nil && r.Method == http.MethodPost {
		time.Sleep(s.delay(int(s.posted.Add(1) - 1)))
	}
	now := time.Now()
	w.Header().Set("Date", now.Add(s.dateAhead).UTC().Format(http.TimeFormat))
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.Method == http.MethodGet {
		q := r.URL.Query()
		from, _ := strconv.ParseInt(q.Get("Date_From"), 10, 64)
		to, _ := strconv.ParseInt(q.Get("Date_To"), 10, 64)
		skip, _ := strconv.Atoi(q.Get("Results_Skip"))
		count, _ := strconv.Atoi(q.Get("Results_Count"))
		if count == 0 {
			count = 200
		}
		count = min(count, s.pageCap)
		var match []Message
		for i, m := range s.msgs {
			if int64(m.Created) >= from && int64(m.Created) < to && !now.Before(s.visible[i]) {
				match = append(match, m)
			}
		}
		page := []Message{}
		if skip < len(match) {
			page = match[skip:min(skip+count, len(match))]
		}
		writeMessages(w, page...)
		return
	}
	n := s.sends
	s.sends++
	stored, fail, after := s.send(n)
	var batch []wireMessage
	if r.URL.Path == "/v2/Properties/"+testProp+"/BatchMessages" {
		var body struct{ Messages []wireMessage }
		_ = json.NewDecoder(r.Body).Decode(&body)
		batch = body.Messages
	} else {
		var m wireMessage
		_ = json.NewDecoder(r.Body).Decode(&m)
		batch = []wireMessage{m}
	}
	var out []Message
	if stored {
		for i, m := range batch {
			msg := Message{MessageSid: fmt.Sprintf("MG%06d", len(s.msgs)), ExternalID: m.ExternalID, To: m.To, Text: m.Text,
				Direction: DirectionTransmit, Status: MessageProcessing, Created: TimestampOf(now.Add(-s.createdLag))}
			vis := now.Add(after)
			if s.partial > 0 && i >= s.partial {
				vis = now.Add(s.lateBy)
			}
			s.msgs = append(s.msgs, msg)
			s.visible = append(s.visible, vis)
			out = append(out, msg)
		}
	}
	if fail != 0 {
		http.Error(w, "<html>gateway</html>", fail)
		return
	}
	if len(batch) == 1 && r.URL.Path != "/v2/Properties/"+testProp+"/BatchMessages" {
		writeMessage(w, out[0])
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

// sendCount is the number of send requests seen.
func (s *storeServer) sendCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sends
}

// stored counts the messages stored for each ExternalId.
func (s *storeServer) stored() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]int{}
	for _, m := range s.msgs {
		out[m.ExternalID]++
	}
	return out
}

func (s *storeServer) client(t *testing.T, pol ReconcilePolicy, opts ...Option) *Client {
	t.Helper()
	c, err := NewClient(testSid, testToken, append([]Option{WithBaseURL(s.URL),
		WithRetryPolicy(RetryPolicy{MaxRetries: 0}), WithReconcilePolicy(pol)}, opts...)...)
	require.NoError(t, err)
	return c
}

// A caller's own retry of SendOnce (or a redelivered job calling it again)
// stored two messages: the second call knew nothing of the first.
func TestReproSendOnceTwiceSendsOnce(t *testing.T) {
	t.Parallel()
	srv := newStoreServer(t, &storeServer{})
	c := srv.client(t, fastReconcile)
	p := onceParams("order-1")
	first, err := c.Messages.SendOnce(context.Background(), testProp, p)
	require.NoError(t, err)
	second, err := c.Messages.SendOnce(context.Background(), testProp, p)
	require.NoError(t, err)
	assert.Equal(t, 1, srv.stored()["order-1"], "the second SendOnce of one ExternalId sends nothing")
	assert.Equal(t, first.MessageSid, second.MessageSid, "and returns the message sent")
	assert.Equal(t, p.Text, second.Text)
}

// A caller retrying after an unresolved SendOnce: the second call must look
// the first attempt up before sending, even though the look-ups of the
// first call all failed.
func TestReproSendOnceAfterUnresolvedLooksUpFirst(t *testing.T) {
	t.Parallel()
	var findDown sync.Mutex
	down := true
	srv := newStoreServer(t, &storeServer{send: func(n int) (bool, int, time.Duration) {
		if n == 0 {
			return true, http.StatusBadGateway, 0 // stored, answer lost
		}
		return true, 0, 0
	}})
	inner := srv.Config.Handler
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		findDown.Lock()
		d := down
		findDown.Unlock()
		if r.Method == http.MethodGet && d {
			http.Error(w, "search is down", http.StatusServiceUnavailable)
			return
		}
		inner.ServeHTTP(w, r)
	})
	c := srv.client(t, fastReconcile)
	_, err := c.Messages.SendOnce(context.Background(), testProp, onceParams("order-2"))
	var ue *UnresolvedError
	require.ErrorAs(t, err, &ue, "every look-up failed")
	findDown.Lock()
	down = false
	findDown.Unlock()
	m, err := c.Messages.SendOnce(context.Background(), testProp, onceParams("order-2"))
	require.NoError(t, err)
	assert.Equal(t, 1, srv.stored()["order-2"], "looked up before sending: found, not sent again")
	assert.Equal(t, "MG000000", m.MessageSid)
}

// The look-up stopped at the first page shorter than the 200 asked for: a
// service capping its pages at 50 hid the message on page 3.
func TestReproLookupPagesPastShortPages(t *testing.T) {
	t.Parallel()
	srv := newStoreServer(t, &storeServer{pageCap: 50, send: func(n int) (bool, int, time.Duration) {
		if n == 120 {
			return true, http.StatusGatewayTimeout, 0
		}
		return true, 0, 0
	}})
	c := srv.client(t, fastReconcile)
	for i := range 120 {
		_, err := c.Messages.Send(context.Background(), testProp, onceParams(fmt.Sprint("filler-", i)))
		require.NoError(t, err)
	}
	m, err := c.Messages.SendOnce(context.Background(), testProp, onceParams("order-3"))
	require.NoError(t, err)
	assert.Equal(t, 1, srv.stored()["order-3"], "found on the third page of 50: not sent again")
	assert.Equal(t, "MG000120", m.MessageSid)
}

// A 100-message batch still being stored when a gateway answers 504: the
// look-up finds the part stored so far; resending the rest at once sent
// it twice.
func TestReproBatchPartlyStoredWaitsAnotherRound(t *testing.T) {
	t.Parallel()
	const settle = 150 * time.Millisecond
	srv := newStoreServer(t, &storeServer{partial: 30, lateBy: settle * 3 / 2, send: func(n int) (bool, int, time.Duration) {
		if n == 0 {
			return true, http.StatusGatewayTimeout, 0
		}
		return true, 0, 0
	}})
	c := srv.client(t, ReconcilePolicy{SettleTime: settle, MaxRounds: 3, ClockSkew: 2 * time.Second})
	msgs := make([]SendMessageParams, 100)
	for i := range msgs {
		msgs[i] = *onceParams(fmt.Sprint("b-", i))
	}
	res, err := c.Messages.SendBatchOnce(context.Background(), testProp, msgs)
	require.NoError(t, err)
	stored := srv.stored()
	for i, r := range res {
		require.NotNil(t, r.Message, "element %d", i)
		assert.Equal(t, 1, stored[msgs[i].ExternalID], "element %d stored once", i)
	}
}

// The default ClockSkew of 1s missed a message whose Created clock ran 3s
// behind the clock of the Date header.
func TestReproDefaultClockSkewCoversSeconds(t *testing.T) {
	t.Parallel()
	srv := newStoreServer(t, &storeServer{createdLag: 3 * time.Second, send: func(n int) (bool, int, time.Duration) {
		if n == 0 {
			return true, http.StatusBadGateway, 0
		}
		return true, 0, 0
	}})
	pol := DefaultReconcilePolicy()
	pol.SettleTime = 10 * time.Millisecond
	c := srv.client(t, pol)
	_, err := c.Messages.SendOnce(context.Background(), testProp, onceParams("order-4"))
	require.NoError(t, err)
	assert.Equal(t, 1, srv.stored()["order-4"], "found with the default skew")
	assert.GreaterOrEqual(t, DefaultReconcilePolicy().ClockSkew, 10*time.Second, "tens of seconds, as real gateways need")
}

// A gateway's error page carries its own clock: the window must not follow
// it, or the message the service stamped is outside it.
func TestReproWindowIgnoresGatewayErrorPageClock(t *testing.T) {
	t.Parallel()
	gateway := true
	var mu sync.Mutex
	srv := newStoreServer(t, &storeServer{send: func(n int) (bool, int, time.Duration) {
		if n == 0 {
			return true, http.StatusGatewayTimeout, 0
		}
		return true, 0, 0
	}})
	inner := srv.Config.Handler
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		g := gateway && r.Method == http.MethodPost
		gateway = gateway && !g
		mu.Unlock()
		if g {
			// The gateway's clock is two hours ahead; it forwards the send
			// and then gives up on it.
			rec := httptest.NewRecorder()
			inner.ServeHTTP(rec, r)
			w.Header().Set("Date", time.Now().Add(2*time.Hour).UTC().Format(http.TimeFormat))
			http.Error(w, "<html>504 Gateway Time-out</html>", http.StatusGatewayTimeout)
			return
		}
		inner.ServeHTTP(w, r)
	})
	c := srv.client(t, fastReconcile)
	_, err := c.Messages.SendOnce(context.Background(), testProp, onceParams("order-5"))
	require.NoError(t, err)
	assert.Equal(t, 1, srv.stored()["order-5"], "found in a window on the service's clock")
}

// An ExternalId with a leading or trailing blank is never matched by a
// service that trims it: refused before any request.
func TestReproExternalIDBlanksRefused(t *testing.T) {
	t.Parallel()
	srv := newStoreServer(t, &storeServer{})
	c := srv.client(t, fastReconcile)
	for _, id := range []string{" order-6", "order-6 ", "\torder-6"} {
		_, err := c.Messages.SendOnce(context.Background(), testProp, onceParams(id))
		var ve *ValidationError
		require.ErrorAs(t, err, &ve, "%q", id)
		assert.Equal(t, "ExternalId", ve.Fields[0].FieldName)
		_, err = c.Messages.SendBatchOnce(context.Background(), testProp, []SendMessageParams{*onceParams(id)})
		require.ErrorAs(t, err, &ve, "%q", id)
		assert.Equal(t, "Messages[0].ExternalId", ve.Fields[0].FieldName)
	}
	assert.Empty(t, srv.stored(), "nothing sent")
}

// Find with DateTo: time.Now() right after a send left out the current
// second: Date_To, exclusive, was truncated.
func TestReproFindDateToRoundsUp(t *testing.T) {
	t.Parallel()
	srv := newStoreServer(t, &storeServer{})
	c := srv.client(t, fastReconcile)
	// A send at second S, and a Find whose DateTo is S.5: the message is
	// before DateTo.
	base := time.Unix(time.Now().Unix(), 0)
	p := &FindMessagesParams{DateFrom: base.Add(-time.Minute), DateTo: base.Add(500 * time.Millisecond)}
	assert.Equal(t, base.Unix()+1, p.wire().DateTo, "the exclusive bound is rounded up")
	assert.Equal(t, base.Unix(), (&FindMessagesParams{DateTo: base}).wire().DateTo, "a whole second is sent as it is")
	sent, err := c.Messages.Send(context.Background(), testProp, onceParams("order-7"))
	require.NoError(t, err)
	page, err := c.Messages.Find(context.Background(), testProp, &FindMessagesParams{DateFrom: sent.Created.Time().Add(-time.Minute),
		DateTo: sent.Created.Time().Add(time.Millisecond)})
	require.NoError(t, err)
	require.Len(t, page.Items, 1, "a message of the current second is before a DateTo within that second")
}

// A service that keeps processing a request for a while after the client
// hung up, and then shows it in searches up to the settle time later:
// one look-up after the settle time misses it, and resending stored it
// twice. Not found once is not enough: a second look-up, a settle time
// later, must miss it too before it is sent again.
func TestReproProcessingAfterHangUpThenLag(t *testing.T) {
	t.Parallel()
	const settle = 300 * time.Millisecond
	srv := newStoreServer(t, &storeServer{})
	inner := srv.Config.Handler
	var mu sync.Mutex
	first := true
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		slow := first && r.Method == http.MethodPost
		first = first && !slow
		mu.Unlock()
		if !slow {
			inner.ServeHTTP(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		<-r.Context().Done()               // the client gives up
		time.Sleep(100 * time.Millisecond) // the service goes on processing
		srv.mu.Lock()
		srv.send = func(int) (bool, int, time.Duration) { return true, 0, settle - 20*time.Millisecond }
		srv.mu.Unlock()
		inner.ServeHTTP(httptest.NewRecorder(), r.WithContext(context.Background()))
		srv.mu.Lock()
		srv.send = func(int) (bool, int, time.Duration) { return true, 0, 0 }
		srv.mu.Unlock()
	})
	c := srv.client(t, ReconcilePolicy{SettleTime: settle, MaxRounds: 4, ClockSkew: 2 * time.Second},
		WithAttemptTimeout(100*time.Millisecond))
	m, err := c.Messages.SendOnce(context.Background(), testProp, onceParams("order-8"))
	require.NoError(t, err)
	assert.Equal(t, 1, srv.stored()["order-8"], "found by the second look-up: not sent again")
	assert.Equal(t, "MG000000", m.MessageSid)
}
