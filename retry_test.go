package telco

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fastRetries keeps the retry tests quick: up to 3 attempts, tiny waits.
var fastRetries = RetryPolicy{MaxRetries: 2, MinWait: time.Millisecond, MaxWait: 2 * time.Millisecond}

// fault is what a test server does to every request.
type fault func(w http.ResponseWriter, r *http.Request)

func status(code int) fault {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_, _ = w.Write([]byte(`{"ResponseStatus":{"ErrorCode":"E","Message":"m"}}`))
	}
}

// hangUp reads the request, then drops the connection without answering:
// the request reached the service.
func hangUp(w http.ResponseWriter, r *http.Request) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err == nil {
		_ = conn.Close()
	}
}

// retryServer counts the requests of a server doing f.
func retryServer(t *testing.T, f fault) (*httptest.Server, *atomic.Int32) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		f(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// idempotentCall and unsafeCall exercise both kinds of operation.
func idempotentCall(c *Client) error {
	_, err := c.Properties.Get(context.Background(), testProp)
	return err
}

func unsafeCall(c *Client) error {
	_, err := c.Messages.Send(context.Background(), testProp, &SendMessageParams{To: "+61499999999", Text: "hi"})
	return err
}

func TestRetryTable(t *testing.T) {
	cases := []struct {
		name          string
		fault         fault
		idem, unsafe  int32 // attempts seen for an idempotent and a non-idempotent call
		unsafeMaybe   bool  // the non-idempotent failure matches ErrMaybeSent
		unsafeWithOpt int32 // attempts for the non-idempotent call with RetryUnsafe
	}{
		{"400", status(400), 1, 1, false, 1},
		{"404", status(404), 1, 1, false, 1},
		{"408", status(408), 3, 3, false, 3},
		{"429", status(429), 3, 3, false, 3},
		{"500", status(500), 3, 1, true, 3},
		{"501", status(501), 1, 1, false, 1},
		{"502", status(502), 3, 1, true, 3},
		{"503", status(503), 3, 1, true, 3},
		{"504", status(504), 3, 1, true, 3},
		{"connection dropped after the request", hangUp, 3, 1, true, 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv, n := retryServer(t, tc.fault)
			c, err := NewClient(testSid, testToken, WithBaseURL(srv.URL), WithRetryPolicy(fastRetries))
			require.NoError(t, err)

			require.Error(t, idempotentCall(c))
			assert.Equal(t, tc.idem, n.Swap(0), "idempotent attempts")

			err = unsafeCall(c)
			require.Error(t, err)
			assert.Equal(t, tc.unsafe, n.Swap(0), "non-idempotent attempts")
			assert.Equal(t, tc.unsafeMaybe, errors.Is(err, ErrMaybeSent), "ErrMaybeSent: %v", err)

			p := fastRetries
			p.RetryUnsafe = true
			c, err = NewClient(testSid, testToken, WithBaseURL(srv.URL), WithRetryPolicy(p))
			require.NoError(t, err)
			require.Error(t, unsafeCall(c))
			assert.Equal(t, tc.unsafeWithOpt, n.Swap(0), "non-idempotent attempts with RetryUnsafe")
		})
	}
}

func TestRetryThenSuccessReturnsTheAnswer(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) < 3 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write(fixture(t, "get_property.json"))
	}))
	defer srv.Close()
	c, err := NewClient(testSid, testToken, WithBaseURL(srv.URL), WithRetryPolicy(fastRetries))
	require.NoError(t, err)
	p, err := c.Properties.Get(context.Background(), testProp)
	require.NoError(t, err)
	assert.Equal(t, testProp, p.PropertySid)
	assert.EqualValues(t, 3, n.Load())
}

func TestRetriesExhaustedReturnTheLastAnswer(t *testing.T) {
	srv, n := retryServer(t, status(503))
	c, err := NewClient(testSid, testToken, WithBaseURL(srv.URL), WithRetryPolicy(fastRetries))
	require.NoError(t, err)
	err = idempotentCall(c)
	var ae *APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, 503, ae.StatusCode)
	assert.Equal(t, "E", ae.Code)
	assert.EqualValues(t, 3, n.Load())
}

// TestFailedDialIsRetriedForEveryCall: a refused connection proves nothing
// was sent, so even an SMS send is retried.
func TestFailedDialIsRetriedForEveryCall(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())

	var dials atomic.Int32
	d := &net.Dialer{}
	hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, a string) (net.Conn, error) {
		dials.Add(1)
		return d.DialContext(ctx, network, a)
	}}}
	c, err := NewClient(testSid, testToken, WithBaseURL("http://"+addr), WithHTTPClient(hc), WithRetryPolicy(fastRetries))
	require.NoError(t, err)

	require.Error(t, idempotentCall(c))
	assert.EqualValues(t, 3, dials.Swap(0))

	err = unsafeCall(c)
	require.Error(t, err)
	assert.EqualValues(t, 3, dials.Swap(0))
	assert.False(t, errors.Is(err, ErrMaybeSent), "a refused dial never reached the service")
	assert.Contains(t, err.Error(), "Messages.Send")
}

func TestMaxRetriesZeroDisablesRetries(t *testing.T) {
	srv, n := retryServer(t, status(503))
	c, err := NewClient(testSid, testToken, WithBaseURL(srv.URL), WithRetryPolicy(RetryPolicy{MaxRetries: 0}))
	require.NoError(t, err)
	require.Error(t, idempotentCall(c))
	assert.EqualValues(t, 1, n.Load())
}

func TestContextEndsTheRetryWait(t *testing.T) {
	srv, n := retryServer(t, status(503))
	c, err := NewClient(testSid, testToken, WithBaseURL(srv.URL),
		WithRetryPolicy(RetryPolicy{MaxRetries: 5, MinWait: time.Hour, MaxWait: time.Hour}))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	_, err = c.Properties.Get(ctx, testProp)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.EqualValues(t, 1, n.Load(), "the hour-long wait must end with the context")
}

func TestAttemptTimeout(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			// The first attempt hangs until the client gives up. The body is read
			// first: only then does the server notice the client hanging up.
			_, _ = io.Copy(io.Discard, r.Body)
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
			return
		}
		_, _ = w.Write(fixture(t, "get_property.json"))
	}))
	defer srv.Close()
	c, err := NewClient(testSid, testToken, WithBaseURL(srv.URL), WithRetryPolicy(fastRetries),
		WithAttemptTimeout(300*time.Millisecond))
	require.NoError(t, err)

	p, err := c.Properties.Get(context.Background(), testProp)
	require.NoError(t, err, "the idempotent call is retried after its attempt times out")
	assert.Equal(t, testProp, p.PropertySid)
	assert.EqualValues(t, 2, n.Swap(0))

	err = unsafeCall(c)
	require.Error(t, err)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.ErrorIs(t, err, ErrMaybeSent, "a timed-out send may have been received")
	assert.EqualValues(t, 1, n.Load())
}

func TestBackoff(t *testing.T) {
	minW, maxW := 100*time.Millisecond, 2*time.Second
	for n := 0; n < 40; n++ {
		d := backoff(minW, maxW, n, nil)
		assert.GreaterOrEqual(t, d, minW, "attempt %d", n)
		assert.LessOrEqual(t, d, maxW, "attempt %d", n)
		if n < 3 {
			exp := minW << n
			assert.GreaterOrEqual(t, d, exp, "attempt %d grows exponentially", n)
			assert.LessOrEqual(t, d, exp+exp/2, "attempt %d jitters by at most half", n)
		}
	}
	assert.Equal(t, maxW, backoff(minW, maxW, 1000, nil), "large attempt numbers do not overflow")

	ra := func(v string) *http.Response {
		return &http.Response{StatusCode: 429, Header: http.Header{"Retry-After": {v}}}
	}
	assert.Equal(t, time.Second, backoff(minW, maxW, 0, ra("1")))
	assert.Equal(t, maxW, backoff(minW, maxW, 0, ra("3600")), "Retry-After is capped at MaxWait")
	assert.Equal(t, minW, backoff(minW, maxW, 0, ra("0")))
	date := time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)
	assert.Equal(t, maxW, backoff(minW, maxW, 0, ra(date)), "an HTTP date is honoured and capped")
	d := backoff(minW, maxW, 0, ra("soon"))
	assert.True(t, d >= minW && d <= minW+minW/2, "an unreadable Retry-After falls back to backoff: %v", d)
}

func TestRetryAfterParsing(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	d, ok := retryAfter("7", now)
	assert.True(t, ok)
	assert.Equal(t, 7*time.Second, d)
	d, ok = retryAfter(now.Add(90*time.Second).Format(http.TimeFormat), now)
	assert.True(t, ok)
	assert.Equal(t, 90*time.Second, d)
	d, ok = retryAfter(now.Add(-time.Minute).Format(http.TimeFormat), now)
	assert.True(t, ok)
	assert.Zero(t, d)
	for _, bad := range []string{"", "-1", "later"} {
		_, ok = retryAfter(bad, now)
		assert.False(t, ok, bad)
	}
}

func TestRetryAfterIsHonouredOnTheWire(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			w.Header().Set("Retry-After", "3600")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		_, _ = w.Write(fixture(t, "send_message.json"))
	}))
	defer srv.Close()
	// MaxWait caps the server's hour; the test would time out otherwise.
	c, err := NewClient(testSid, testToken, WithBaseURL(srv.URL),
		WithRetryPolicy(RetryPolicy{MaxRetries: 1, MinWait: time.Millisecond, MaxWait: 5 * time.Millisecond}))
	require.NoError(t, err)
	require.NoError(t, unsafeCall(c), "a 429 is retried even for a send")
	assert.EqualValues(t, 2, n.Load())
}

func TestLoggerRecordsEachAttemptWithoutSecrets(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		_, _ = w.Write(fixture(t, "send_message.json"))
	}))
	defer srv.Close()
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c, err := NewClient(testSid, testToken, WithBaseURL(srv.URL), WithRetryPolicy(fastRetries), WithLogger(logger))
	require.NoError(t, err)
	const secretText = "the launch code is 0000"
	_, err = c.Messages.Send(context.Background(), testProp, &SendMessageParams{To: "+61499999999", Text: secretText})
	require.NoError(t, err)

	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	require.Len(t, lines, 2, "one record per attempt:\n%s", buf.String())
	for i, want := range []struct{ status, attempt, retry string }{{"429", "1", "true"}, {"200", "2", "false"}} {
		l := lines[i]
		assert.Contains(t, l, "level=DEBUG")
		assert.Contains(t, l, "op=Messages.Send")
		assert.Contains(t, l, "method=POST")
		assert.Contains(t, l, "path=/v2/Properties/"+testProp+"/Messages")
		assert.Contains(t, l, "status="+want.status)
		assert.Contains(t, l, "attempt="+want.attempt)
		assert.Contains(t, l, "retry="+want.retry)
		assert.Contains(t, l, "duration=")
	}
	out := buf.String()
	assert.NotContains(t, out, testToken)
	assert.NotContains(t, out, base64.StdEncoding.EncodeToString([]byte(testSid+":"+testToken)))
	assert.NotContains(t, out, "Authorization")
	assert.NotContains(t, out, secretText)
}

func TestLoggerBelowDebugRecordsNothing(t *testing.T) {
	srv, _ := retryServer(t, status(400))
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo}))
	c, err := NewClient(testSid, testToken, WithBaseURL(srv.URL), WithLogger(logger))
	require.NoError(t, err)
	require.Error(t, idempotentCall(c))
	assert.Empty(t, buf.String())
}

func TestClassifyCertificateErrorsAreNotRetried(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the failed handshakes are expected
	srv.StartTLS()
	defer srv.Close()
	// The default client does not trust the test server's certificate.
	c, err := NewClient(testSid, testToken, WithBaseURL(srv.URL), WithRetryPolicy(fastRetries))
	require.NoError(t, err)
	err = unsafeCall(c)
	require.Error(t, err)
	assert.False(t, errors.Is(err, ErrMaybeSent), "a failed handshake sent nothing: %v", err)
}

// TestConcurrentCallsShareOneClient runs many calls at once on one Client,
// with retries, so the race detector can see the per-request retry state.
func TestConcurrentCallsShareOneClient(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1)%3 == 0 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		if r.Method == http.MethodPost {
			_, _ = w.Write(fixture(t, "send_message.json"))
			return
		}
		_, _ = w.Write(fixture(t, "get_property.json"))
	}))
	defer srv.Close()
	c, err := NewClient(testSid, testToken, WithBaseURL(srv.URL), WithRetryPolicy(RetryPolicy{MaxRetries: 5, MinWait: time.Millisecond, MaxWait: 2 * time.Millisecond}))
	require.NoError(t, err)

	errs := make(chan error, 40)
	for i := 0; i < 40; i++ {
		go func(i int) {
			if i%2 == 0 {
				errs <- idempotentCall(c)
				return
			}
			// A send that meets a 503 fails without a retry; that is expected.
			err := unsafeCall(c)
			if err != nil && !errors.Is(err, ErrMaybeSent) {
				errs <- err
				return
			}
			errs <- nil
		}(i)
	}
	for i := 0; i < 40; i++ {
		assert.NoError(t, <-errs)
	}
}
