package telcotest_test

import (
	"context"
	"encoding/json"
	"errors"
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
	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/telcotest"
)

// hit is one request a receiver got.
type hit struct {
	Method, Path, ContentType string
	Query                     url.Values
	Body                      []byte
}

// receiver is an httptest webhook receiver that records what it gets and
// answers status.
type receiver struct {
	*httptest.Server
	mu   sync.Mutex
	hits []hit
}

func newReceiver(t *testing.T, status int) *receiver {
	t.Helper()
	rc := &receiver{}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.hits = append(rc.hits, hit{Method: r.Method, Path: r.URL.Path, ContentType: r.Header.Get("Content-Type"), Query: r.URL.Query(), Body: b})
		rc.mu.Unlock()
		w.WriteHeader(status)
	}))
	t.Cleanup(rc.Close)
	return rc
}

func (rc *receiver) got() []hit {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]hit(nil), rc.hits...)
}

// message decodes a POST callback's body.
func (h hit) message(t *testing.T) telco.Message {
	t.Helper()
	var m telco.Message
	require.NoError(t, json.Unmarshal(h.Body, &m), "%s", h.Body)
	return m
}

func TestWebhooks_DeliveryReceiptPOSTAndGET(t *testing.T) {
	t.Parallel()
	srv, clock := newClockServer(t)
	rc := newReceiver(t, http.StatusOK)
	c := srv.Client()
	post := send(t, c, srv.PropertySid, telco.SendMessageParams{From: "Acme", To: "+61400000001", Text: "post",
		DeliveryReceiptWebhookURI: rc.URL + "/dr", ExternalID: "ext-1"})
	viaGet := send(t, c, srv.PropertySid, telco.SendMessageParams{From: "Acme", To: "+61400000002", Text: "get",
		DeliveryReceiptWebhookURI: rc.URL + "/dr?tenant=7", DeliveryReceiptWebhookMethod: "Get"})
	send(t, c, srv.PropertySid, telco.SendMessageParams{From: "Acme", To: "+61400000003", Text: "no receipt",
		DeliveryReceipt: telco.Ptr(false), DeliveryReceiptWebhookURI: rc.URL + "/never"})

	clock.Advance(telcotest.SubmitDelay)
	srv.Flush()
	assert.Empty(t, rc.got(), "no receipt before delivery")

	clock.Advance(telcotest.DeliverDelay)
	srv.Flush()
	hits := rc.got()
	require.Len(t, hits, 2, "one receipt per message that asked for one")
	byMethod := map[string]hit{}
	for _, h := range hits {
		assert.Equal(t, "/dr", h.Path)
		byMethod[h.Method] = h
	}

	p := byMethod[http.MethodPost]
	assert.Equal(t, "application/json", p.ContentType)
	m := p.message(t)
	assert.Equal(t, post.MessageSid, m.MessageSid)
	assert.Equal(t, telco.MessageDelivered, m.Status)
	assert.Equal(t, "ext-1", m.ExternalID)
	assert.Equal(t, srv.AccountSid, m.AccountSid)
	assert.NotZero(t, m.Delivered)

	g := byMethod[http.MethodGet]
	assert.Empty(t, g.Body)
	assert.Equal(t, viaGet.MessageSid, g.Query.Get("MessageSid"))
	assert.Equal(t, "Delivered", g.Query.Get("Status"))
	assert.Equal(t, "true", g.Query.Get("DeliveryReceipt"))
	assert.Equal(t, "7", g.Query.Get("tenant"), "the URL's own query is kept")
	assert.Regexp(t, `^\d+$`, g.Query.Get("Delivered"), "timestamps are Unix seconds")

	cbs := srv.Callbacks()
	require.Len(t, cbs, 2)
	for _, cb := range cbs {
		assert.Equal(t, telcotest.CallbackDeliveryReceipt, cb.Kind)
		assert.True(t, cb.OK(), cb.Err)
		assert.Equal(t, http.StatusOK, cb.Status)
	}
}

func TestWebhooks_FailedMessageReceiptAndNumberConfiguredReceipt(t *testing.T) {
	t.Parallel()
	srv, clock := newClockServer(t)
	rc := newReceiver(t, http.StatusNoContent)
	c := srv.Client()
	srv.AddNumber(srv.PropertySid, "+61255550001")
	_, err := c.Numbers.Configure(testCtx(t), "+61255550001", &telco.NumberConfigParams{
		DeliveryReceiptWebhookURL: rc.URL + "/number-dr", DeliveryReceiptWebhookMethod: "GET"})
	require.NoError(t, err)
	srv.FailMessagesTo("+61400000666")
	failed := send(t, c, srv.PropertySid, telco.SendMessageParams{From: "Acme", To: "+61400000666", Text: "x",
		DeliveryReceiptWebhookURI: rc.URL + "/own"})
	fromNumber := send(t, c, srv.PropertySid, telco.SendMessageParams{From: "+61255550001", To: "+61400000001", Text: "y"})

	clock.Advance(time.Minute)
	srv.Flush()
	hits := rc.got()
	require.Len(t, hits, 2)
	paths := map[string]hit{}
	for _, h := range hits {
		paths[h.Path] = h
	}
	m := paths["/own"].message(t)
	assert.Equal(t, failed.MessageSid, m.MessageSid)
	assert.Equal(t, telco.MessageFailed, m.Status, "a failed message's receipt is sent too")
	assert.Equal(t, "UNDELIVERABLE", m.ErrorCode)
	nd := paths["/number-dr"]
	assert.Equal(t, http.MethodGet, nd.Method, "the number's configured method")
	assert.Equal(t, fromNumber.MessageSid, nd.Query.Get("MessageSid"))
}

func TestWebhooks_InboundAndLeaseResponse(t *testing.T) {
	t.Parallel()
	srv, _ := newClockServer(t)
	rc := newReceiver(t, http.StatusOK)
	c := srv.Client()
	srv.AddNumber(srv.PropertySid, "+61255550001")
	_, err := c.Numbers.Configure(testCtx(t), "+61255550001", &telco.NumberConfigParams{WebhookURL: rc.URL + "/inbound", WebhookMethod: "POST"})
	require.NoError(t, err)

	in := srv.Receive(srv.PropertySid, "+61400000001", "+61255550001", "hello number")
	leased := send(t, c, srv.PropertySid, telco.SendMessageParams{To: "+61400000002", Text: "reply YES",
		WebhookURI: rc.URL + "/lease", WebhookMethod: "GET", DeliveryReceipt: telco.Ptr(false)})
	reply := srv.Receive(srv.PropertySid, "+61400000002", leased.From, "YES")
	srv.Receive(srv.PropertySid, "+61400000003", leased.From, "not the lease's recipient")
	srv.Receive(srv.PropertySid, "+61400000001", "+61299990000", "unconfigured number")
	srv.Flush()

	hits := rc.got()
	require.Len(t, hits, 2)
	paths := map[string]hit{}
	for _, h := range hits {
		paths[h.Path] = h
	}
	m := paths["/inbound"].message(t)
	assert.Equal(t, in.MessageSid, m.MessageSid)
	assert.Equal(t, telco.DirectionReceive, m.Direction)
	assert.Equal(t, telco.MessageReceived, m.Status)
	assert.Equal(t, "hello number", m.Text)
	l := paths["/lease"]
	assert.Equal(t, http.MethodGet, l.Method)
	assert.Equal(t, reply.MessageSid, l.Query.Get("MessageSid"))
	assert.Equal(t, "+61400000002", l.Query.Get("From"))
	assert.Equal(t, leased.From, l.Query.Get("To"))
	assert.Equal(t, "Receive", l.Query.Get("Direction"))

	kinds := map[telcotest.CallbackKind]int{}
	for _, cb := range srv.Callbacks() {
		kinds[cb.Kind]++
	}
	assert.Equal(t, map[telcotest.CallbackKind]int{telcotest.CallbackInbound: 1, telcotest.CallbackLeaseResponse: 1}, kinds)
}

// The lease-only fields apply only to a lease (From empty): next to a
// From the fake ignores them, as the service reads its document. The send
// is accepted, whatever the fields hold, and nothing acts on them: a reply
// to the sender leased for an alphanumeric From to the US reaches no
// webhook, where the same WebhookUri on a real lease is called.
func TestWebhooks_LeaseOnlyFieldsIgnoredWithAFrom(t *testing.T) {
	t.Parallel()
	srv, _ := newClockServer(t)
	rc := newReceiver(t, http.StatusOK)
	c := srv.Client(telco.WithClientValidation(false))
	ctx := testCtx(t)
	withLeaseFields := func(from, to string) telco.SendMessageParams {
		return telco.SendMessageParams{From: from, To: to, Text: "hi", DeliveryReceipt: telco.Ptr(false),
			ForwardToSms: "+61400000009", ForwardFromSms: "Acme", ForwardToEmail: "ops@acme.example.com",
			ForwardFromEmail: "noreply@acme.example.com", WebhookURI: rc.URL + "/ignored", WebhookMethod: "POST"}
	}
	malformed := telco.SendMessageParams{From: "+61299990000", To: "+61400000004", Text: "hi", DeliveryReceipt: telco.Ptr(false),
		ForwardToSms: "0400", ForwardFromSms: "Way Too Long Name", ForwardToEmail: "ops", ForwardFromEmail: "a@b",
		WebhookURI: "hooks/r", WebhookMethod: "PUT"}

	au := send(t, c, srv.PropertySid, withLeaseFields("Acme", "+61400000002"))
	assert.Equal(t, "Acme", au.From)
	us := send(t, c, srv.PropertySid, withLeaseFields("Acme", "+12025550123"))
	assert.Regexp(t, leasePattern, us.From, "the fake leases a number for an alphanumeric sender to the US")
	odd := send(t, c, srv.PropertySid, malformed)
	assert.Equal(t, "+61299990000", odd.From, "ignored fields are not checked either")
	res, err := c.Messages.SendBatch(ctx, srv.PropertySid, []telco.SendMessageParams{
		withLeaseFields("Acme", "+61400000005"), malformed, withLeaseFields("Acme", "+12025550124")})
	require.NoError(t, err)
	require.Len(t, res, 3)
	for i, r := range res {
		require.Nil(t, r.Err, "element %d", i)
		require.NotNil(t, r.Message, "element %d", i)
	}
	control := send(t, c, srv.PropertySid, telco.SendMessageParams{To: "+61400000003", Text: "hi",
		DeliveryReceipt: telco.Ptr(false), WebhookURI: rc.URL + "/control"})

	srv.Receive(srv.PropertySid, "+12025550123", us.From, "reply to the US send")
	srv.Receive(srv.PropertySid, "+12025550124", res[2].Message.From, "reply to the US batch element")
	srv.Receive(srv.PropertySid, "+61400000003", control.From, "reply to the lease")
	srv.Flush()
	hits := rc.got()
	require.Len(t, hits, 1, "only the lease's own webhook is called")
	assert.Equal(t, "/control", hits[0].Path)
	sent := 0
	for _, m := range srv.Messages(srv.PropertySid) {
		if m.Direction == telco.DirectionTransmit {
			sent++
		}
	}
	assert.Equal(t, 7, sent, "six sends and one lease, none refused")
}

func TestWebhooks_NoLeaseResponseAfterExpiry(t *testing.T) {
	t.Parallel()
	srv, clock := newClockServer(t)
	rc := newReceiver(t, http.StatusOK)
	leased := send(t, srv.Client(), srv.PropertySid, telco.SendMessageParams{To: "+61400000002", Text: "x",
		WebhookURI: rc.URL + "/lease", DeliveryReceipt: telco.Ptr(false)})
	clock.Advance(telcotest.LeaseValidity)
	srv.Receive(srv.PropertySid, "+61400000002", leased.From, "late")
	srv.Flush()
	assert.Empty(t, rc.got())
}

func TestWebhooks_PortingStatusChange(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	rc := newReceiver(t, http.StatusOK)
	p := portingParams("+61299990001")
	p.WebhookURL = rc.URL + "/porting"
	pr := submit(t, srv.Client(), srv.PropertySid, p)
	require.True(t, srv.SetPortingStatus(pr.PortingNo, "Completed"))
	require.True(t, srv.SetPortingStatus(pr.PortingNo, "Completed"), "no change, no callback")
	srv.Flush()
	hits := rc.got()
	require.Len(t, hits, 1)
	assert.Equal(t, http.MethodPost, hits[0].Method)
	var got telco.PortingRequest
	require.NoError(t, json.Unmarshal(hits[0].Body, &got))
	assert.Equal(t, pr.PortingNo, got.PortingNo)
	assert.Equal(t, "Completed", got.Status)
	require.Len(t, got.PortingNumbers, 1)
	assert.Equal(t, "Completed", got.PortingNumbers[0].Status)
}

func TestWebhooks_FailuresAreRecordedNotRetried(t *testing.T) {
	t.Parallel()
	srv, clock := newClockServer(t)
	rc := newReceiver(t, http.StatusInternalServerError)
	c := srv.Client()
	send(t, c, srv.PropertySid, telco.SendMessageParams{From: "Acme", To: "+61400000001", Text: "x", DeliveryReceiptWebhookURI: rc.URL})
	send(t, c, srv.PropertySid, telco.SendMessageParams{From: "Acme", To: "+61400000002", Text: "x",
		DeliveryReceiptWebhookURI: "http://127.0.0.1:1/closed"})
	clock.Advance(time.Minute)
	clock.Advance(time.Minute)
	srv.Flush()
	assert.Len(t, rc.got(), 1, "a failed callback is not retried")
	cbs := srv.Callbacks()
	require.Len(t, cbs, 2)
	statuses := map[int]int{}
	for _, cb := range cbs {
		assert.False(t, cb.OK())
		assert.NotEmpty(t, cb.Err)
		statuses[cb.Status]++
	}
	assert.Equal(t, map[int]int{http.StatusInternalServerError: 1, 0: 1}, statuses)
}

// Close waits for callbacks in flight, so none outlives the server.
func TestWebhooks_CloseWaitsForCallbacks(t *testing.T) {
	t.Parallel()
	clock := telcotest.NewClock(time.Time{})
	srv := telcotest.NewServer(telcotest.WithClock(clock))
	release := make(chan struct{})
	arrived := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(arrived)
		<-release
	}))
	defer slow.Close()
	send(t, srv.Client(), srv.PropertySid, telco.SendMessageParams{From: "Acme", To: "+61400000001", Text: "x", DeliveryReceiptWebhookURI: slow.URL})
	clock.Advance(time.Minute)
	<-arrived
	closed := make(chan struct{})
	go func() {
		srv.Close()
		close(closed)
	}()
	close(release)
	<-closed
	cbs := srv.Callbacks()
	require.Len(t, cbs, 1, "the callback finished before Close returned")
	assert.True(t, cbs[0].OK())

	// After Close, moving the clock starts nothing.
	clock.Advance(time.Hour)
	assert.Len(t, srv.Callbacks(), 1)
}

// Under real time, a receipt goes out without any read or clock move.
func TestWebhooks_RealTimeReceiptArrivesUnprompted(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	got := make(chan telco.Message, 1)
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m telco.Message
		_ = json.NewDecoder(r.Body).Decode(&m)
		got <- m
	}))
	defer rc.Close()
	sent := send(t, srv.Client(), srv.PropertySid, telco.SendMessageParams{From: "Acme", To: "+61400000001", Text: "x", DeliveryReceiptWebhookURI: rc.URL})
	select {
	case m := <-got:
		assert.Equal(t, sent.MessageSid, m.MessageSid)
		assert.Equal(t, telco.MessageDelivered, m.Status)
	case <-testCtx(t).Done():
		t.Fatal("no delivery receipt arrived")
	}
}

// events collects what a telco.WebhookHandler passed to the user's functions.
type events struct {
	mu       sync.Mutex
	receipts []telco.MessageEvent
	inbound  []telco.MessageEvent
	leases   []telco.MessageEvent
	porting  []telco.PortingEvent
}

func (e *events) add(list *[]telco.MessageEvent) func(context.Context, *telco.MessageEvent) error {
	return func(_ context.Context, ev *telco.MessageEvent) error {
		e.mu.Lock()
		defer e.mu.Unlock()
		*list = append(*list, *ev)
		return nil
	}
}

func (e *events) snapshot() (receipts, inbound, leases []telco.MessageEvent, porting []telco.PortingEvent) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]telco.MessageEvent(nil), e.receipts...), append([]telco.MessageEvent(nil), e.inbound...),
		append([]telco.MessageEvent(nil), e.leases...), append([]telco.PortingEvent(nil), e.porting...)
}

// TestHandlerEndToEnd sends every kind of callback from the fake to the
// SDK's WebhookHandler and checks each arrives as a typed event: the
// fake's wire form and the handler's decoding must agree.
func TestHandlerEndToEnd(t *testing.T) {
	t.Parallel()
	srv, clock := newClockServer(t)
	ev := &events{}
	mux := http.NewServeMux()
	// One URL for receipts, inbound SMS and porting, told apart by their
	// fields; leases on their own URL, since a lease response looks like
	// any inbound SMS.
	mux.Handle("/hooks", &telco.WebhookHandler{
		DeliveryReceipt: ev.add(&ev.receipts),
		InboundMessage:  ev.add(&ev.inbound),
		PortingUpdate: func(_ context.Context, p *telco.PortingEvent) error {
			ev.mu.Lock()
			defer ev.mu.Unlock()
			ev.porting = append(ev.porting, *p)
			return nil
		},
	})
	mux.Handle("/lease", telco.LeaseResponseHandler(ev.add(&ev.leases)))
	hooks := httptest.NewServer(mux)
	t.Cleanup(hooks.Close)

	c := srv.Client()
	ctx := testCtx(t)
	srv.AddNumber(srv.PropertySid, "+61255550001")
	_, err := c.Numbers.Configure(ctx, "+61255550001", &telco.NumberConfigParams{
		WebhookURL: hooks.URL + "/hooks", WebhookMethod: "GET"})
	require.NoError(t, err)

	viaPost := send(t, c, srv.PropertySid, telco.SendMessageParams{From: "Acme", To: "+61400000001", Text: "post",
		DeliveryReceiptWebhookURI: hooks.URL + "/hooks", ExternalID: "order-1"})
	viaGet := send(t, c, srv.PropertySid, telco.SendMessageParams{From: "Acme", To: "+61400000002", Text: "get",
		DeliveryReceiptWebhookURI: hooks.URL + "/hooks", DeliveryReceiptWebhookMethod: "GET"})
	leased := send(t, c, srv.PropertySid, telco.SendMessageParams{To: "+61400000003", Text: "reply YES",
		WebhookURI: hooks.URL + "/lease", DeliveryReceipt: telco.Ptr(false)})
	in := srv.Receive(srv.PropertySid, "+61400000009", "+61255550001", "hello number")
	reply := srv.Receive(srv.PropertySid, "+61400000003", leased.From, "YES")

	p := portingParams("+61299990001")
	p.WebhookURL = hooks.URL + "/hooks"
	pr := submit(t, c, srv.PropertySid, p)
	require.True(t, srv.SetPortingStatus(pr.PortingNo, "Completed"))

	clock.Advance(telcotest.SubmitDelay + telcotest.DeliverDelay)
	srv.Flush()

	for _, cb := range srv.Callbacks() {
		assert.True(t, cb.OK(), "the handler refused a %s callback: %d %s", cb.Kind, cb.Status, cb.Err)
	}
	receipts, inbound, leases, porting := ev.snapshot()

	require.Len(t, receipts, 2)
	bySid := map[string]telco.MessageEvent{}
	for _, r := range receipts {
		assert.Equal(t, telco.WebhookDeliveryReceipt, r.Kind)
		bySid[r.Message.MessageSid] = r
	}
	for _, want := range []*telco.Message{viaPost, viaGet} {
		got, ok := bySid[want.MessageSid]
		require.True(t, ok, "no receipt for %s", want.Text)
		assert.Equal(t, telco.MessageDelivered, got.Message.Status)
		assert.Equal(t, telco.DirectionTransmit, got.Message.Direction)
		assert.Equal(t, want.To, got.Message.To)
		assert.NotZero(t, got.Message.Delivered, "delivery time")
	}
	assert.Equal(t, "order-1", bySid[viaPost.MessageSid].Message.ExternalID)
	assert.Equal(t, http.MethodGet, bySid[viaGet.MessageSid].Request.Method)

	require.Len(t, inbound, 1)
	assert.Equal(t, telco.WebhookInboundMessage, inbound[0].Kind)
	assert.Equal(t, in.MessageSid, inbound[0].Message.MessageSid)
	assert.Equal(t, "hello number", inbound[0].Message.Text)
	assert.Equal(t, telco.MessageReceived, inbound[0].Message.Status)

	require.Len(t, leases, 1)
	assert.Equal(t, telco.WebhookLeaseResponse, leases[0].Kind)
	assert.Equal(t, reply.MessageSid, leases[0].Message.MessageSid)
	assert.Equal(t, leased.From, leases[0].Message.To)
	assert.Equal(t, "YES", leases[0].Message.Text)

	require.Len(t, porting, 1)
	assert.Equal(t, pr.PortingNo, porting[0].PortingRequest.PortingNo)
	assert.Equal(t, "Completed", porting[0].PortingRequest.Status)
}

// TestHandlerEndToEnd_UserErrorFailsTheCallback checks that an error from
// the user's function reaches the fake as a failed callback, which the
// fake records and does not retry.
func TestHandlerEndToEnd_UserErrorFailsTheCallback(t *testing.T) {
	t.Parallel()
	srv, clock := newClockServer(t)
	calls := 0
	var mu sync.Mutex
	hooks := httptest.NewServer(telco.DeliveryReceiptHandler(func(context.Context, *telco.MessageEvent) error {
		mu.Lock()
		defer mu.Unlock()
		calls++
		return errors.New("database down")
	}))
	t.Cleanup(hooks.Close)
	send(t, srv.Client(), srv.PropertySid, telco.SendMessageParams{From: "Acme", To: "+61400000001", Text: "x",
		DeliveryReceiptWebhookURI: hooks.URL})
	clock.Advance(telcotest.SubmitDelay + telcotest.DeliverDelay)
	srv.Flush()

	cbs := srv.Callbacks()
	require.Len(t, cbs, 1)
	assert.False(t, cbs[0].OK())
	assert.Equal(t, http.StatusInternalServerError, cbs[0].Status)
	assert.NotContains(t, string(cbs[0].Body), "database down", "the request body is the fake's, not the handler's")
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, 1, calls)
}

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
