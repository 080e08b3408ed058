package telco

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A fresh ledger (a new machine, a container) sent again what an earlier
// ledger had sent: once holds per ledger. FillLedger reads the window from
// the service and records every ExternalId it shows as sent.
func TestFillLedgerKeepsAFreshLedgerFromSendingAgain(t *testing.T) {
	t.Parallel()
	srv := newStoreServer(t, &storeServer{pageCap: 3}) // pages of 3: the fill pages
	first := srv.client(t, fastReconcile, WithLedger(NewMemoryLedger()))
	start := time.Now().Add(-time.Minute)
	var ids []string
	for i := range 7 {
		id := fmt.Sprint("fill-", i)
		ids = append(ids, id)
		_, err := first.Messages.SendOnce(bg, testProp, onceParams(id))
		require.NoError(t, err)
	}
	_, err := first.Messages.Send(bg, testProp, &SendMessageParams{From: "Acme", To: "+61499999999", Text: "no id"})
	require.NoError(t, err)

	fresh := NewMemoryLedger()
	second := srv.client(t, fastReconcile, WithLedger(fresh))
	n, err := second.Messages.FillLedger(bg, testProp, start, time.Now().Add(time.Second))
	require.NoError(t, err)
	assert.Equal(t, 7, n, "every ExternalId in the window, the message without one left out")
	rec := ledgerRecord(t, fresh, testProp, "fill-3")
	assert.Equal(t, LedgerSent, rec.State)
	assert.True(t, rec.Found)
	assert.Empty(t, rec.Digest, "the text the ledger never saw is not held against a later send")
	require.NotNil(t, rec.Message)
	assert.Empty(t, rec.Message.Text, "a ledger keeps no message text")

	sends := srv.sendCount()
	res, err := second.Messages.SendBatchOnce(bg, testProp, []SendMessageParams{*onceParams("fill-0"), *onceParams("fill-6")})
	require.NoError(t, err)
	assert.Equal(t, sends, srv.sendCount(), "nothing sent again")
	assert.Equal(t, onceParams("fill-0").Text, res[0].Message.Text)
	for _, id := range ids {
		assert.Equal(t, 1, srv.stored()[id], id)
	}
	again, err := second.Messages.FillLedger(bg, testProp, start, time.Now().Add(time.Second))
	require.NoError(t, err)
	assert.Zero(t, again, "a second fill changes nothing")

	_, err = second.Messages.FillLedger(bg, testProp, time.Time{}, time.Now())
	var ve *ValidationError
	require.ErrorAs(t, err, &ve, "the window is required")
	_, err = second.Messages.FillLedger(bg, "", start, time.Now())
	require.ErrorAs(t, err, &ve)
}

// With ReconcilePolicy.LookBack, an ExternalId the ledger has never seen
// is looked up before its first send: a fresh ledger does not send what an
// earlier one sent, and a batch costs one scan, not one per message.
func TestLookBackLooksAnUnseenExternalIDUpFirst(t *testing.T) {
	t.Parallel()
	srv := newStoreServer(t, &storeServer{})
	first := srv.client(t, fastReconcile, WithLedger(NewMemoryLedger()))
	sent, err := first.Messages.SendOnce(bg, testProp, onceParams("back-1"))
	require.NoError(t, err)

	control := srv.client(t, fastReconcile, WithLedger(NewMemoryLedger()))
	_, err = control.Messages.SendOnce(bg, testProp, onceParams("back-0")) // a new ID: no look-up needed to send it
	require.NoError(t, err)

	pol := fastReconcile
	pol.LookBack = time.Hour
	second := srv.client(t, pol, WithLedger(NewMemoryLedger()))
	got, err := second.Messages.SendOnce(bg, testProp, onceParams("back-1"))
	require.NoError(t, err)
	assert.Equal(t, sent.MessageSid, got.MessageSid, "the stored message, not a new one")
	assert.Equal(t, 1, srv.stored()["back-1"])

	third := srv.client(t, pol, WithLedger(NewMemoryLedger()))
	sends := srv.sendCount()
	res, err := third.Messages.SendBatchOnce(bg, testProp, []SendMessageParams{*onceParams("back-1"), *onceParams("back-2"), *onceParams("back-3")})
	require.NoError(t, err)
	assert.Equal(t, sent.MessageSid, res[0].Message.MessageSid)
	assert.Equal(t, sends+1, srv.sendCount(), "one request for the two new messages")
	assert.Equal(t, map[string]int{"back-0": 1, "back-1": 1, "back-2": 1, "back-3": 1}, srv.stored())

	// Without LookBack a fresh ledger knows nothing: the promise is per ledger.
	_, err = control.Messages.SendOnce(bg, testProp, onceParams("back-1"))
	require.NoError(t, err)
	assert.Equal(t, 2, srv.stored()["back-1"])
}

// A look-up before the first send that fails sends nothing, and says so
// without claiming the message may have been sent.
func TestLookBackFailureSendsNothing(t *testing.T) {
	t.Parallel()
	srv := newStoreServer(t, &storeServer{})
	pol := fastReconcile
	pol.LookBack = time.Hour
	c := srv.client(t, pol, WithLedger(NewMemoryLedger()))
	srv.Close() // every request fails to connect
	_, err := c.Messages.SendOnce(bg, testProp, onceParams("back-down"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "before their first send")
	assert.False(t, errors.Is(err, ErrMaybeSent), "nothing was sent: %v", err)
	_, err = NewClient(testSid, testToken, WithReconcilePolicy(ReconcilePolicy{LookBack: -time.Second}))
	assert.Error(t, err, "a negative LookBack is refused")
}
