package telco_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/internal/catalog"
	"github.com/telcosdk/telco/internal/optest"
	"github.com/telcosdk/telco/telcotest"
)

// The retry matrix: every operation × every kind of failure, checked
// against what the client attempted, what the fake received and what it
// stored. The expected outcome follows RELIABILITY.md's "Failure by
// failure" table:
//
//   - idempotent calls retry every failure here and succeed on the second
//     attempt;
//   - non-idempotent calls (sends, creates, porting submission) retry only a
//     failed dial, a 408 and a 429; every other failure ends the call with
//     an error matching ErrMaybeSent after one attempt, whether or not the
//     service acted (the fake's store says which it did).

// matrixOp is an operation of the catalogue as the matrix runs it: its
// fixture in internal/optest (the valid call, its effect on the fake's
// store and what else to check after a success) and whether the catalogue
// says repeating it is harmless.
type matrixOp struct {
	optest.Fixture
	idempotent bool
}

// matrixOps are the fixtures of the catalogue's operations; the methods
// composed of others (SendOnce and its kin) have tests of their own under
// faults (sendonce_fake_test.go).
func matrixOps() []matrixOp {
	var out []matrixOp
	for _, f := range optest.Fixtures() {
		if row, ok := catalog.Lookup(f.Name); ok {
			out = append(out, matrixOp{Fixture: f, idempotent: row.Idempotent})
		}
	}
	return out
}

// failure is one way an attempt fails.
type failure struct {
	name  string
	fault telcotest.Fault // armed for the first attempt; zero for a dial failure
	dial  bool            // the first dial goes to a closed port instead
	// timeout: the fault delays the answer past the attempt timeout.
	timeout bool
	// nonIdempotentRetried: a send or create is retried after it.
	nonIdempotentRetried bool
	// stored: a non-idempotent request that failed this way took effect.
	stored bool
}

const (
	matrixAttemptTimeout = 3 * time.Second // room for a loaded machine: the retry must finish within it
	matrixDelay          = 2 * matrixAttemptTimeout
)

var failures = []failure{
	{name: "dial failure", dial: true, nonIdempotentRetried: true},
	{name: "reset before the request is read", fault: telcotest.Fault{Kind: telcotest.FaultDropBeforeRead}},
	{name: "reset after the request is handled", fault: telcotest.Fault{Kind: telcotest.FaultDropAfterRead}, stored: true},
	{name: "408", fault: telcotest.Fault{Kind: telcotest.FaultStatus, Status: 408}, nonIdempotentRetried: true},
	{name: "429", fault: telcotest.Fault{Kind: telcotest.FaultStatus, Status: 429}, nonIdempotentRetried: true},
	{name: "429 with Retry-After", fault: telcotest.Fault{Kind: telcotest.FaultStatus, Status: 429, RetryAfter: "0"}, nonIdempotentRetried: true},
	{name: "500", fault: telcotest.Fault{Kind: telcotest.FaultStatus, Status: 500}},
	{name: "502", fault: telcotest.Fault{Kind: telcotest.FaultStatus, Status: 502}},
	{name: "503", fault: telcotest.Fault{Kind: telcotest.FaultStatus, Status: 503}},
	{name: "503 with Retry-After", fault: telcotest.Fault{Kind: telcotest.FaultStatus, Status: 503, RetryAfter: "0"}},
	{name: "504", fault: telcotest.Fault{Kind: telcotest.FaultStatus, Status: 504}},
	{name: "timeout", fault: telcotest.Fault{Kind: telcotest.FaultLatency, Delay: matrixDelay}, timeout: true, stored: true},
}

// closedAddr is a loopback address nothing listens on.
func closedAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	addr := ln.Addr().String()
	return addr, ln.Close()
}

// countingTransport counts the attempts the client makes.
type countingTransport struct {
	next http.RoundTripper
	n    atomic.Int32
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.next.RoundTrip(r)
}

// matrixClient returns a client whose first failDials dials go to a closed
// port. Keep-alives are off so that every attempt is a new connection:
// net/http then never resends a request on its own, and the fake's count
// of requests is exactly the client's count of attempts that connected.
func matrixClient(srv *telcotest.Server, failDials int32, attemptTimeout time.Duration) (*telco.Client, *countingTransport, error) {
	dead, err := closedAddr()
	if err != nil {
		return nil, nil, err
	}
	var dials atomic.Int32
	d := &net.Dialer{}
	tr := &http.Transport{DisableKeepAlives: true,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			if dials.Add(1) <= failDials {
				addr = dead
			}
			return d.DialContext(ctx, network, addr)
		}}
	ct := &countingTransport{next: tr}
	opts := []telco.Option{telco.WithHTTPClient(&http.Client{Transport: ct}),
		telco.WithRetryPolicy(telco.RetryPolicy{MaxRetries: 3, MinWait: time.Millisecond, MaxWait: 5 * time.Millisecond})}
	if attemptTimeout > 0 {
		opts = append(opts, telco.WithAttemptTimeout(attemptTimeout))
	}
	return srv.Client(opts...), ct, nil
}

// matrixResult is what one case did.
type matrixResult struct {
	op       matrixOp
	failure  failure
	srv      *telcotest.Server
	ids      optest.IDs
	setupErr error
	ctxErr   error // the caller's context, after the call
	err      error
	attempts int32
	requests int
	delta    telcotest.Counts
}

// runMatrixCase runs one operation under one failure. It is called from
// many goroutines at once: most cases spend their time waiting (on a
// timeout, on a retry), so running them together keeps the matrix quick.
func runMatrixCase(op matrixOp, f failure) (res matrixResult) {
	res = matrixResult{op: op, failure: f, srv: telcotest.NewServer()}
	srv := res.srv
	if res.ids, res.setupErr = optest.Setup(srv); res.setupErr != nil {
		return res
	}
	var failDials int32
	var attemptTimeout time.Duration
	if f.dial {
		failDials = 1
	} else {
		fault := f.fault
		fault.Op = op.Name
		srv.Inject(1, fault)
	}
	if f.timeout {
		attemptTimeout = matrixAttemptTimeout
	}
	c, attempts, err := matrixClient(srv, failDials, attemptTimeout)
	if err != nil {
		res.setupErr = err
		return res
	}
	before, reqBefore := srv.Counts(), srv.Requests()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res.err = op.Call(ctx, c, res.ids, false)
	res.ctxErr = ctx.Err()
	srv.WaitIdle() // a delayed request finishes what it does
	res.attempts = attempts.n.Load()
	res.requests = srv.Requests() - reqBefore
	res.delta = optest.Delta(srv.Counts(), before)
	return res
}

func TestRetryMatrix(t *testing.T) {
	t.Parallel()
	var results []*matrixResult
	var wg sync.WaitGroup
	sem := make(chan struct{}, 64)
	for _, op := range matrixOps() {
		for _, f := range failures {
			r := new(matrixResult)
			results = append(results, r)
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				*r = runMatrixCase(op, f)
			}()
		}
	}
	wg.Wait()
	for _, r := range results {
		t.Cleanup(r.srv.Close)
	}

	for _, r := range results {
		op, f := r.op, r.failure
		t.Run(op.Name+"/"+f.name, func(t *testing.T) {
			require.NoError(t, r.setupErr, "setup")
			retried := op.idempotent || f.nonIdempotentRetried
			if retried {
				require.NoError(t, r.err)
				assert.EqualValues(t, 2, r.attempts, "attempts")
				wantReq := 2
				if f.dial {
					wantReq = 1 // the failed dial never reached the fake
				}
				assert.Equal(t, wantReq, r.requests, "requests the fake received")
				assert.Equal(t, op.Effect, r.delta, "stored: exactly one effect")
				if op.Check != nil {
					assert.NoError(t, op.Check(context.Background(), r.srv, r.ids))
				}
				return
			}
			require.Error(t, r.err)
			assert.ErrorIs(t, r.err, telco.ErrMaybeSent)
			assert.EqualValues(t, 1, r.attempts, "attempts: never repeated")
			assert.Equal(t, 1, r.requests, "requests the fake received")
			if f.fault.Kind == telcotest.FaultStatus {
				var ae *telco.APIError
				require.ErrorAs(t, r.err, &ae)
				assert.Equal(t, f.fault.Status, ae.StatusCode)
			}
			if f.timeout {
				assert.ErrorIs(t, r.err, context.DeadlineExceeded, "the attempt timed out")
				assert.NoError(t, r.ctxErr, "the caller's deadline did not")
			}
			want := telcotest.Counts{}
			if f.stored {
				want = op.Effect
			}
			assert.Equal(t, want, r.delta, "stored")
		})
	}
}

// TestRetryMatrixCoversEveryOperation keeps the matrix complete: every
// operation the fake routes is in it (internal/optest's test fails first
// for an operation without a fixture).
func TestRetryMatrixCoversEveryOperation(t *testing.T) {
	t.Parallel()
	var names []string
	for _, op := range matrixOps() {
		names = append(names, op.Name)
	}
	assert.ElementsMatch(t, telcotest.Ops(), names)
	assert.Len(t, failures, 12, fmt.Sprint(failures))
}

// TestRetryMatrixRetriesExhausted: a failure that persists ends an
// idempotent call after MaxRetries+1 attempts with the last error, never
// ErrMaybeSent.
func TestRetryMatrixRetriesExhausted(t *testing.T) {
	t.Parallel()
	srv := telcotest.NewServer()
	t.Cleanup(srv.Close)
	c, attempts, err := matrixClient(srv, 0, 0)
	require.NoError(t, err)
	srv.Inject(10, telcotest.Fault{Kind: telcotest.FaultDropAfterRead, Op: "Properties.Get"})
	_, err = c.Properties.Get(context.Background(), srv.PropertySid)
	require.Error(t, err)
	assert.False(t, errors.Is(err, telco.ErrMaybeSent))
	assert.EqualValues(t, 4, attempts.n.Load())
	assert.Equal(t, 4, srv.Requests())
}

// waitForRequests blocks until the fake has received n requests; it
// synchronises a test with a call in flight and asserts nothing itself.
func waitForRequests(srv *telcotest.Server, n int) {
	for srv.Requests() < n {
		time.Sleep(time.Millisecond)
	}
}

// slowForever delays every request of op until its client hangs up.
func slowForever(op string) func(method, path string) *telcotest.Fault {
	f := &telcotest.Fault{Kind: telcotest.FaultLatency, Delay: time.Hour, Op: op}
	return func(string, string) *telcotest.Fault { return f }
}

func TestAttemptTimeoutIsPerAttempt(t *testing.T) {
	t.Parallel()
	srv := telcotest.NewServer()
	t.Cleanup(srv.Close)
	// Three attempts in a row hang; the fourth is answered. The bound is
	// generous: on a loaded machine 200 ms also ended the answered attempt.
	srv.Inject(3, telcotest.Fault{Kind: telcotest.FaultLatency, Delay: time.Hour, Op: "Properties.Get"})
	c := srv.Client(telco.WithAttemptTimeout(time.Second),
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
	// Attempts are counted on the client's side, from its log: on a loaded
	// machine an attempt can time out before its request reaches the
	// server, so the server's count would only bound it.
	var attempts atomic.Int32
	logger := slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) {
		if bytes.Contains(p, []byte("telco request attempt")) {
			attempts.Add(1)
		}
		return len(p), nil
	}), &slog.HandlerOptions{Level: slog.LevelDebug}))
	c := srv.Client(telco.WithAttemptTimeout(100*time.Millisecond), telco.WithLogger(logger),
		telco.WithRetryPolicy(telco.RetryPolicy{MaxRetries: 2, MinWait: time.Millisecond, MaxWait: 2 * time.Millisecond}))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	_, err := c.Properties.Get(ctx, srv.PropertySid)
	require.Error(t, err)
	assert.ErrorIs(t, err, context.DeadlineExceeded, "the last attempt's timeout")
	assert.False(t, errors.Is(err, telco.ErrMaybeSent), "a read is never in doubt")
	assert.NoError(t, ctx.Err(), "the caller's context is untouched")
	assert.EqualValues(t, 3, attempts.Load(), "every retry was used")
	srv.WaitIdle()
	assert.LessOrEqual(t, srv.Requests(), 3)
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
