package telcotest_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/telcotest"
)

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
