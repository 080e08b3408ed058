package telco_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/telcotest"
)

// A 2xx answer cut short is retried for an idempotent call, which reads
// its body before deciding, and is ErrMaybeSent for a send, which took
// effect.
func TestTruncatedSuccessBody(t *testing.T) {
	t.Parallel()
	truncate := func(op string) telcotest.Fault {
		return telcotest.Fault{Kind: telcotest.FaultTruncateBody, Op: op}
	}

	t.Run("idempotent call retried", func(t *testing.T) {
		t.Parallel()
		srv := telcotest.NewServer()
		t.Cleanup(srv.Close)
		srv.Inject(2, truncate("Properties.Get"))
		before := srv.Requests()
		p, err := srv.Client().Properties.Get(context.Background(), srv.PropertySid)
		require.NoError(t, err)
		assert.Equal(t, srv.PropertySid, p.PropertySid)
		assert.Equal(t, 3, srv.Requests()-before, "two cut answers, then a whole one")
	})

	t.Run("idempotent call out of retries", func(t *testing.T) {
		t.Parallel()
		srv := telcotest.NewServer()
		t.Cleanup(srv.Close)
		srv.Inject(2, truncate("Properties.Get"))
		c := srv.Client(telco.WithRetryPolicy(telco.RetryPolicy{MaxRetries: 1, MinWait: time.Millisecond, MaxWait: time.Millisecond}))
		before := srv.Requests()
		_, err := c.Properties.Get(context.Background(), srv.PropertySid)
		require.Error(t, err)
		assert.NotErrorIs(t, err, telco.ErrMaybeSent, "a read changes nothing")
		assert.Contains(t, err.Error(), "Properties.Get")
		assert.Equal(t, 2, srv.Requests()-before)
	})

	t.Run("send not retried", func(t *testing.T) {
		t.Parallel()
		srv := telcotest.NewServer()
		t.Cleanup(srv.Close)
		srv.Inject(1, truncate("Messages.Send"))
		before := srv.Requests()
		_, err := srv.Client().Messages.Send(context.Background(), srv.PropertySid,
			&telco.SendMessageParams{From: "Acme", To: "+61400000001", Text: "once"})
		require.ErrorIs(t, err, telco.ErrMaybeSent)
		assert.Equal(t, 1, srv.Requests()-before)
		assert.Len(t, srv.Messages(srv.PropertySid), 1, "stored once")
	})

	t.Run("oversized answer not retried", func(t *testing.T) {
		t.Parallel()
		srv := telcotest.NewServer()
		t.Cleanup(srv.Close)
		c := srv.Client(telco.WithMaxResponseBytes(16))
		before := srv.Requests()
		_, err := c.Properties.Get(context.Background(), srv.PropertySid)
		require.ErrorIs(t, err, telco.ErrResponseTooLarge)
		assert.Equal(t, 1, srv.Requests()-before, "the same answer would come again")
	})
}
