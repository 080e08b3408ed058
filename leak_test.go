package telco_test

import (
	"bytes"
	"context"
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

// TestMain fails the run if any test leaves a goroutine behind: a call
// that was cancelled or timed out, an iterator abandoned half-way, a
// retry wait. Idle keep-alive connections of clients that tests dropped
// would look like leaks too, so every test closes what it opened.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// writerFunc adapts a function to io.Writer.
type writerFunc func(p []byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

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
