package telco_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/telcotest"
)

// waitForRequests blocks until the fake has received n requests; it
// synchronises a test with a call in flight and asserts nothing itself.
func waitForRequests(srv *telcotest.Server, n int) {
	for srv.Requests() < n {
		time.Sleep(time.Millisecond)
	}
}

// writerFunc adapts a function to io.Writer.
type writerFunc func(p []byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// slowForever delays every request of op until its client hangs up.
func slowForever(op string) func(method, path string) *telcotest.Fault {
	f := &telcotest.Fault{Kind: telcotest.FaultLatency, Delay: time.Hour, Op: op}
	return func(string, string) *telcotest.Fault { return f }
}

func TestAttemptTimeoutIsPerAttempt(t *testing.T) {
	t.Parallel()
	srv := telcotest.NewServer()
	t.Cleanup(srv.Close)
	// Three attempts in a row hang; the fourth is answered.
	srv.Inject(3, telcotest.Fault{Kind: telcotest.FaultLatency, Delay: time.Hour, Op: "Properties.Get"})
	c := srv.Client(telco.WithAttemptTimeout(200*time.Millisecond),
		telco.WithRetryPolicy(telco.RetryPolicy{MaxRetries: 3, MinWait: time.Millisecond, MaxWait: 2 * time.Millisecond}))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	p, err := c.Properties.Get(ctx, srv.PropertySid)
	require.NoError(t, err, "each attempt has its own timeout; the caller's deadline is far")
	assert.Equal(t, srv.PropertySid, p.PropertySid)
	assert.Equal(t, 4, srv.Requests())
	assert.NoError(t, ctx.Err())
}

func TestAttemptTimeoutEndsAnIdempotentCallOnlyWhenRetriesRunOut(t *testing.T) {
	t.Parallel()
	srv := telcotest.NewServer()
	t.Cleanup(srv.Close)
	srv.SetFaultPolicy(slowForever("Properties.Get"))
	c := srv.Client(telco.WithAttemptTimeout(100*time.Millisecond),
		telco.WithRetryPolicy(telco.RetryPolicy{MaxRetries: 2, MinWait: time.Millisecond, MaxWait: 2 * time.Millisecond}))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	_, err := c.Properties.Get(ctx, srv.PropertySid)
	require.Error(t, err)
	assert.ErrorIs(t, err, context.DeadlineExceeded, "the last attempt's timeout")
	assert.False(t, errors.Is(err, telco.ErrMaybeSent), "a read is never in doubt")
	assert.NoError(t, ctx.Err(), "the caller's context is untouched")
	srv.WaitIdle()
	assert.Equal(t, 3, srv.Requests())
}

func TestCallerDeadlineEndsEverything(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		op        string
		call      func(ctx context.Context, c *telco.Client, srv *telcotest.Server) error
		maybeSent bool
	}{
		{"read", "Properties.Get", func(ctx context.Context, c *telco.Client, srv *telcotest.Server) error {
			_, err := c.Properties.Get(ctx, srv.PropertySid)
			return err
		}, false},
		{"send", "Messages.Send", func(ctx context.Context, c *telco.Client, srv *telcotest.Server) error {
			_, err := c.Messages.Send(ctx, srv.PropertySid, &telco.SendMessageParams{To: "+61400000001", Text: "hi"})
			return err
		}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := telcotest.NewServer()
			t.Cleanup(srv.Close)
			srv.SetFaultPolicy(slowForever(tc.op))
			// The attempt timeout is far longer than the caller's deadline:
			// the caller's deadline must end the call, with no retry after it.
			c := srv.Client(telco.WithAttemptTimeout(time.Minute))
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			defer cancel()

			err := tc.call(ctx, c, srv)
			require.Error(t, err)
			assert.ErrorIs(t, err, context.DeadlineExceeded)
			assert.Equal(t, tc.maybeSent, errors.Is(err, telco.ErrMaybeSent), "%v", err)
			srv.WaitIdle()
			assert.Equal(t, 1, srv.Requests(), "nothing is retried once the caller's deadline passed")
		})
	}
}

// The tests below are not parallel: each checks that it leaves no
// goroutine behind, against those running when it started.

func TestNoLeakCancelledCall(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	srv := telcotest.NewServer()
	defer srv.Close()
	srv.SetFaultPolicy(slowForever("Messages.Send"))
	c := srv.Client()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := c.Messages.Send(ctx, srv.PropertySid, &telco.SendMessageParams{To: "+61400000001", Text: "hi"})
		done <- err
	}()
	waitForRequests(srv, 1)
	cancel()
	err := <-done
	assert.ErrorIs(t, err, context.Canceled)
	assert.ErrorIs(t, err, telco.ErrMaybeSent, "the request had reached the service")
	srv.WaitIdle()
	assert.Len(t, srv.Messages(srv.PropertySid), 1, "the fake acted on it: the caller must reconcile")
}

func TestNoLeakTimedOutCall(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	srv := telcotest.NewServer()
	defer srv.Close()
	srv.SetFaultPolicy(slowForever("Properties.List"))
	c := srv.Client(telco.WithAttemptTimeout(50 * time.Millisecond))
	_, err := c.Properties.List(context.Background(), nil)
	assert.ErrorIs(t, err, context.DeadlineExceeded)

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = srv.Client().Properties.List(ctx, nil)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	srv.WaitIdle()
}

func TestNoLeakCancelledRetryWait(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	srv := telcotest.NewServer()
	defer srv.Close()
	srv.Inject(1, telcotest.Fault{Kind: telcotest.FaultStatus, Status: 503, RetryAfter: "3600"})
	// The client logs its decision to retry just before it starts to
	// wait; cancelling only then (not as soon as the fake saw the
	// request) tests the wait, not a race with the decision.
	waiting := make(chan struct{})
	var once sync.Once
	logger := slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) {
		if bytes.Contains(p, []byte("retry=true")) {
			once.Do(func() { close(waiting) })
		}
		return len(p), nil
	}), &slog.HandlerOptions{Level: slog.LevelDebug}))
	c := srv.Client(telco.WithRetryPolicy(telco.RetryPolicy{MaxRetries: 3, MinWait: time.Hour, MaxWait: time.Hour}),
		telco.WithLogger(logger))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := c.Properties.List(ctx, nil)
		done <- err
	}()
	<-waiting
	cancel()
	assert.ErrorIs(t, <-done, context.Canceled, "the hour-long wait ends with the context")
	assert.Equal(t, 1, srv.Requests())
}

func TestNoLeakAbandonedIterators(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	srv := telcotest.NewServer()
	defer srv.Close()
	c := srv.Client()
	ctx := context.Background()
	for i := 0; i < 9; i++ {
		_, err := c.Properties.Create(ctx, &telco.CreatePropertyParams{Name: "p", MainDomain: "example.com",
			TimeZone: "AUS Eastern Standard Time"})
		require.NoError(t, err)
	}
	reqs := srv.Requests()

	// Broken out of after 3 items: only the first page was fetched.
	n := 0
	for p, err := range c.Properties.ListAll(ctx, &telco.ListParams{Count: 2}) {
		require.NoError(t, err)
		require.NotEmpty(t, p.PropertySid)
		if n++; n == 3 {
			break
		}
	}
	assert.Equal(t, reqs+2, srv.Requests(), "two pages of two for three items")

	// Pulled, then stopped half-way.
	next, stop := iter.Pull2(c.Properties.ListAll(ctx, &telco.ListParams{Count: 4}))
	_, err, ok := next()
	require.True(t, ok)
	require.NoError(t, err)
	stop()
	_, _, ok = next()
	assert.False(t, ok)

	// An iterator whose context is cancelled mid-way yields the error once
	// and ends.
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var errs []error
	seen := 0
	for _, err := range c.Properties.ListAll(cctx, &telco.ListParams{Count: 2}) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if seen++; seen == 2 {
			cancel()
		}
	}
	require.Len(t, errs, 1)
	assert.ErrorIs(t, errs[0], context.Canceled)
}

// findSent is the README's reconciliation: look for the ExternalID of a
// send that failed with ErrMaybeSent.
func findSent(ctx context.Context, c *telco.Client, propertySid, externalID string, since time.Time) (*telco.Message, error) {
	window := &telco.FindMessagesParams{
		DateFrom:  since.Add(-time.Minute),
		DateTo:    time.Now().Add(time.Minute),
		Direction: telco.DirectionTransmit,
	}
	for m, err := range c.Messages.FindAll(ctx, propertySid, window) {
		if err != nil {
			return nil, err
		}
		if m.ExternalID == externalID {
			return &m, nil
		}
	}
	return nil, nil
}

func TestReconcileMaybeSentByExternalID(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		fault telcotest.Fault
		found bool
	}{
		{telcotest.Fault{Kind: telcotest.FaultDropAfterRead}, true},
		{telcotest.Fault{Kind: telcotest.FaultTruncateBody}, true},
		{telcotest.Fault{Kind: telcotest.FaultDropBeforeRead}, false},
		{telcotest.Fault{Kind: telcotest.FaultStatus, Status: 502}, false},
	} {
		t.Run(tc.fault.Kind.String(), func(t *testing.T) {
			t.Parallel()
			srv := telcotest.NewServer()
			t.Cleanup(srv.Close)
			c := srv.Client()
			ctx := context.Background()
			// Other traffic, so that the search has something to skip.
			for i := 0; i < 5; i++ {
				_, err := c.Messages.Send(ctx, srv.PropertySid, &telco.SendMessageParams{To: "+61400000002", Text: "x",
					ExternalID: fmt.Sprint("other-", i)})
				require.NoError(t, err)
			}
			f := tc.fault
			f.Op = "Messages.Send"
			srv.Inject(1, f)
			start := time.Now()
			_, err := c.Messages.Send(ctx, srv.PropertySid, &telco.SendMessageParams{To: "+61400000001", Text: "code 4821",
				ExternalID: "order-77"})
			require.ErrorIs(t, err, telco.ErrMaybeSent)

			m, err := findSent(ctx, c, srv.PropertySid, "order-77", start)
			require.NoError(t, err)
			if !tc.found {
				assert.Nil(t, m, "never taken: safe to send again")
				return
			}
			require.NotNil(t, m)
			assert.Equal(t, "code 4821", m.Text)
			assert.Len(t, srv.Messages(srv.PropertySid), 6)
		})
	}
}
