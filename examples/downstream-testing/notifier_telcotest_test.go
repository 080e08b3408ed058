package main

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/telcotest"
)

// newFake starts the fake service on a manual clock, closed with the test,
// and a Notifier using it.
func newFake(t *testing.T) (*telcotest.Server, *telcotest.Clock, *Notifier) {
	t.Helper()
	clock := telcotest.NewClock(time.Time{})
	srv := telcotest.NewServer(telcotest.WithClock(clock))
	t.Cleanup(srv.Close)
	return srv, clock, &Notifier{Messages: srv.Client().Messages, PropertySid: srv.PropertySid, From: "Acme"}
}

func TestNotifier_Fake_DeliveredAfterTheServiceDeliversIt(t *testing.T) {
	t.Parallel()
	_, clock, n := newFake(t)
	ctx := context.Background()
	sid, err := n.OrderShipped(ctx, "+61400000001", "A-1")
	require.NoError(t, err)

	ok, err := n.Delivered(ctx, sid)
	require.NoError(t, err)
	assert.False(t, ok, "just sent: still processing")

	clock.Advance(telcotest.SubmitDelay + telcotest.DeliverDelay)
	ok, err = n.Delivered(ctx, sid)
	require.NoError(t, err)
	assert.True(t, ok)
}

func TestNotifier_Fake_FailedMessageIsAnError(t *testing.T) {
	t.Parallel()
	srv, clock, n := newFake(t)
	srv.FailMessagesTo("+61400000666")
	sid, err := n.OrderShipped(context.Background(), "+61400000666", "A-2")
	require.NoError(t, err)
	clock.Advance(time.Minute)
	_, err = n.Delivered(context.Background(), sid)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "UNDELIVERABLE")
}

// notices lists the fake's messages for an order.
func notices(srv *telcotest.Server, order string) []telco.Message {
	var out []telco.Message
	for _, m := range srv.Messages(srv.PropertySid) {
		if m.ExternalID == "ship-"+order {
			out = append(out, m)
		}
	}
	return out
}

// A 503 may or may not have stored the message; the fake stored nothing,
// so SendOnce, having looked, sends once more: exactly one notice exists.
func TestNotifier_Fake_AmbiguousFailureSendsExactlyOnce(t *testing.T) {
	t.Parallel()
	srv, _, n := newFake(t)
	srv.FailNext(1, http.StatusServiceUnavailable)
	_, err := n.OrderShipped(context.Background(), "+61400000001", "A-3")
	require.NoError(t, err)
	assert.Len(t, notices(srv, "A-3"), 1)
}

// The service stored the notice and the answer was lost on the way back:
// SendOnce finds it by its ExternalId and sends nothing more.
func TestNotifier_Fake_LostAnswerFoundNotResent(t *testing.T) {
	t.Parallel()
	srv, _, n := newFake(t)
	srv.Inject(1, telcotest.Fault{Kind: telcotest.FaultDropAfterRead, Op: "Messages.Send"})
	sid, err := n.OrderShipped(context.Background(), "+61400000001", "A-5")
	require.NoError(t, err)
	stored := notices(srv, "A-5")
	require.Len(t, stored, 1)
	assert.Equal(t, stored[0].MessageSid, sid)
}

// A job retried by your queue calls OrderShipped again for the same order:
// the client's ledger answers, and nothing more is sent.
func TestNotifier_Fake_SecondCallSendsNothing(t *testing.T) {
	t.Parallel()
	srv, _, n := newFake(t)
	first, err := n.OrderShipped(context.Background(), "+61400000001", "A-6")
	require.NoError(t, err)
	second, err := n.OrderShipped(context.Background(), "+61400000001", "A-6")
	require.NoError(t, err)
	assert.Equal(t, first, second)
	assert.Len(t, notices(srv, "A-6"), 1)
}

func TestNotifier_Fake_BadPhoneIsRejectedBeforeSending(t *testing.T) {
	t.Parallel()
	_, _, n := newFake(t)
	_, err := n.OrderShipped(context.Background(), "0400 000 001", "A-4")
	var verr *telco.ValidationError
	require.True(t, errors.As(err, &verr), "%v", err)
	assert.Equal(t, "To", verr.Fields[0].FieldName)
}
