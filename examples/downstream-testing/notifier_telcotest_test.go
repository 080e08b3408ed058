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
	return srv, clock, &Notifier{Messages: srv.Client().Messages, PropertySid: srv.PropertySid, From: "Acme", Now: clock.Now}
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

// A 503 may or may not have stored the message; the fake stored nothing,
// so the notifier sends once more, and exactly one notice exists.
func TestNotifier_Fake_AmbiguousFailureSendsExactlyOnce(t *testing.T) {
	t.Parallel()
	srv, clock, n := newFake(t)
	srv.FailNext(1, http.StatusServiceUnavailable)
	_, err := n.OrderShipped(context.Background(), "+61400000001", "A-3")
	require.NoError(t, err)

	page, err := srv.Client().Messages.Find(context.Background(), srv.PropertySid, &telco.FindMessagesParams{
		DateFrom: clock.Now().Add(-time.Hour), DateTo: clock.Now().Add(time.Hour)})
	require.NoError(t, err)
	require.Len(t, page.Items, 1)
	assert.Equal(t, "ship-A-3", page.Items[0].ExternalID)
}

func TestNotifier_Fake_BadPhoneIsRejectedBeforeSending(t *testing.T) {
	t.Parallel()
	_, _, n := newFake(t)
	_, err := n.OrderShipped(context.Background(), "0400 000 001", "A-4")
	var verr *telco.ValidationError
	require.True(t, errors.As(err, &verr), "%v", err)
	assert.Equal(t, "To", verr.Fields[0].FieldName)
}
