package telco

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
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

// h2Frame writes one HTTP/2 frame.
func h2Frame(w io.Writer, typ, flags byte, stream uint32, payload []byte) error {
	h := make([]byte, 9, 9+len(payload))
	h[0], h[1], h[2] = byte(len(payload)>>16), byte(len(payload)>>8), byte(len(payload))
	h[3], h[4] = typ, flags
	binary.BigEndian.PutUint32(h[5:], stream)
	_, err := w.Write(append(h, payload...))
	return err
}

// rstOnceServer is an h2OnceServer that resets
// the first complete request's stream with code.
// Under PROTOCOL_ERROR (the way a proxy choking on the answer might) it
// counts the first request as processed (the service sent the SMS); under
// REFUSED_STREAM, which promises nothing was processed, it does not.
func rstOnceServer(t *testing.T, code uint32) (baseURL string, hc *http.Client, processed *atomic.Int32) {
	t.Helper()
	return h2OnceServer(t, code != h2RefusedStream, func(w io.Writer, stream uint32) error {
		rst := make([]byte, 4)
		binary.BigEndian.PutUint32(rst, code)
		return h2Frame(w, 0x3, 0, stream, rst) // RST_STREAM
	})
}

// h2First answers the first complete request, on stream; an error closes
// the connection.
type h2First func(w io.Writer, stream uint32) error

// h2OnceServer is a minimal HTTP/2 server over TLS on loopback. first
// answers the first complete request, which counts as processed when
// firstProcessed says so (counted before the answer, so a client that has
// its answer sees the count); later ones are answered 200 and processed.
func h2OnceServer(t *testing.T, firstProcessed bool, first h2First) (baseURL string, hc *http.Client, processed *atomic.Int32) {
	t.Helper()
	// httptest makes the certificate and a client configuration that trusts it.
	certSrv := httptest.NewUnstartedServer(http.NotFoundHandler())
	certSrv.StartTLS()
	cert := certSrv.TLS.Certificates
	clientTLS := certSrv.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
	certSrv.Close()

	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: cert, NextProtos: []string{"h2"}})
	require.NoError(t, err)
	processed = new(atomic.Int32)
	var seen atomic.Int32
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, conn)
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer conn.Close()
				serveH2Once(conn, firstProcessed, first, processed, &seen)
			}()
		}
	}()
	tr := &http.Transport{TLSClientConfig: clientTLS, ForceAttemptHTTP2: true}
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		_ = ln.Close()
		mu.Lock()
		for _, c := range conns {
			_ = c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return "https://" + ln.Addr().String(), &http.Client{Transport: tr}, processed
}

const (
	h2ProtocolError = 0x1
	h2RefusedStream = 0x7
)

func serveH2Once(conn net.Conn, firstProcessed bool, first h2First, processed, seen *atomic.Int32) {
	if _, err := io.ReadFull(conn, make([]byte, 24)); err != nil { // the client preface
		return
	}
	if h2Frame(conn, 0x4, 0, 0, nil) != nil { // SETTINGS
		return
	}
	for {
		h := make([]byte, 9)
		if _, err := io.ReadFull(conn, h); err != nil {
			return
		}
		n := int(h[0])<<16 | int(h[1])<<8 | int(h[2])
		typ, flags := h[3], h[4]
		stream := binary.BigEndian.Uint32(h[5:]) & 0x7fffffff
		p := make([]byte, n)
		if _, err := io.ReadFull(conn, p); err != nil {
			return
		}
		var err error
		switch {
		case typ == 0x4 && flags&0x1 == 0: // SETTINGS, not an ACK
			err = h2Frame(conn, 0x4, 0x1, 0, nil)
		case typ == 0x6 && flags&0x1 == 0: // PING
			err = h2Frame(conn, 0x6, 0x1, 0, p)
		case (typ == 0x0 || typ == 0x1) && flags&0x1 != 0: // DATA or HEADERS ending the request
			isFirst := seen.Add(1) == 1
			if !isFirst || firstProcessed {
				processed.Add(1)
			}
			if isFirst {
				err = first(conn, stream)
				break
			}
			// HEADERS: ":status: 200" from the static table, END_HEADERS.
			if err = h2Frame(conn, 0x1, 0x4, stream, []byte{0x88}); err == nil {
				err = h2Frame(conn, 0x0, 0x1, stream, []byte(`{"Message":{"MessageSid":"MG2"}}`))
			}
		}
		if err != nil {
			return
		}
	}
}

// TestHTTP2StreamResetAfterProcessingIsNotResent: over HTTP/2 a send
// whose stream is reset with PROTOCOL_ERROR after the service processed it
// must not be resent by net/http behind the SDK's back; it fails with
// ErrMaybeSent, and the service processed it once.
func TestHTTP2StreamResetAfterProcessingIsNotResent(t *testing.T) {
	t.Parallel()
	base, hc, processed := rstOnceServer(t, h2ProtocolError)
	c, err := NewClient(testSid, testToken, WithBaseURL(base), WithHTTPClient(hc), WithRetryPolicy(fastRetries))
	require.NoError(t, err)

	err = unsafeCall(c)
	require.Error(t, err, "the reset send must not be reported as a success")
	assert.True(t, errors.Is(err, ErrMaybeSent), "the service may have acted: %v", err)
	assert.EqualValues(t, 1, processed.Load(), "requests the service processed")
}

// countingTransport counts attempts: every RoundTrip the SDK makes.
type countingTransport struct {
	next http.RoundTripper
	n    atomic.Int32
}

func (c *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.next.RoundTrip(req)
}

// stalledTLSServer accepts TCP connections and never answers the TLS
// handshake: an attempt against it never gets a connection.
func stalledTLSServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, conn)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		wg.Wait()
		mu.Lock()
		for _, c := range conns {
			_ = c.Close()
		}
		mu.Unlock()
	})
	return "https://" + ln.Addr().String()
}

// blockingDialer never completes a dial before its context ends (or the
// test does).
func blockingDialer(t *testing.T) func(ctx context.Context, network, addr string) (net.Conn, error) {
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	return func(ctx context.Context, _, _ string) (net.Conn, error) {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-stop:
			return nil, errors.New("test over")
		}
	}
}

// TestAttemptWithoutAConnectionNeverSentTheRequest: when an attempt ends
// (attempt timeout or the caller's deadline) before the transport had a
// connection, dialling or in the TLS handshake, nothing can have reached
// the service: a send is retried like a failed dial, and its error does not
// match ErrMaybeSent.
func TestAttemptWithoutAConnectionNeverSentTheRequest(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		base func(t *testing.T) (string, http.RoundTripper)
	}{
		{"TLS handshake never completes", func(t *testing.T) (string, http.RoundTripper) {
			return stalledTLSServer(t), &http.Transport{}
		}},
		{"dial never completes", func(t *testing.T) (string, http.RoundTripper) {
			return "http://127.0.0.1:9", &http.Transport{DialContext: blockingDialer(t)}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			t.Run("attempt timeout", func(t *testing.T) {
				base, tr := tc.base(t)
				ct := &countingTransport{next: tr}
				defer tr.(*http.Transport).CloseIdleConnections()
				c, err := NewClient(testSid, testToken, WithBaseURL(base), WithHTTPClient(&http.Client{Transport: ct}),
					WithRetryPolicy(fastRetries), WithAttemptTimeout(50*time.Millisecond))
				require.NoError(t, err)
				err = unsafeCall(c)
				require.Error(t, err)
				assert.False(t, errors.Is(err, ErrMaybeSent), "no attempt had a connection: %v", err)
				assert.EqualValues(t, fastRetries.MaxRetries+1, ct.n.Load(), "the send is retried like a failed dial")
			})
			t.Run("caller deadline", func(t *testing.T) {
				base, tr := tc.base(t)
				defer tr.(*http.Transport).CloseIdleConnections()
				c, err := NewClient(testSid, testToken, WithBaseURL(base), WithHTTPClient(&http.Client{Transport: tr}),
					WithRetryPolicy(fastRetries))
				require.NoError(t, err)
				ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
				defer cancel()
				_, err = c.Messages.Send(ctx, testProp, &SendMessageParams{To: "+61499999999", Text: "hi"})
				require.ErrorIs(t, err, context.DeadlineExceeded)
				assert.False(t, errors.Is(err, ErrMaybeSent), "no attempt had a connection: %v", err)
			})
		})
	}
}

// TestHTTP2RefusedStreamIsRetried: REFUSED_STREAM promises the service did
// not process the stream, so a send is retried (by the SDK, now that
// net/http may not) and succeeds, processed once.
func TestHTTP2RefusedStreamIsRetried(t *testing.T) {
	t.Parallel()
	base, hc, processed := rstOnceServer(t, h2RefusedStream)
	c, err := NewClient(testSid, testToken, WithBaseURL(base), WithHTTPClient(hc), WithRetryPolicy(fastRetries))
	require.NoError(t, err)
	m, err := c.Messages.Send(context.Background(), testProp, &SendMessageParams{To: "+61499999999", Text: "hi"})
	require.NoError(t, err)
	assert.Equal(t, "MG2", m.MessageSid)
	assert.EqualValues(t, 1, processed.Load(), "requests the service processed")
}

func TestH2NotProcessed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		msg  string
		want bool
	}{
		{"http2: Transport: cannot retry err [stream error: stream ID 1; REFUSED_STREAM; received from peer] after Request.Body was written; define Request.GetBody to avoid this error", true},
		{"http2: Transport: cannot retry err [http2: Transport received Server's graceful shutdown GOAWAY] after Request.Body was written; define Request.GetBody to avoid this error", true},
		{"http2: Transport: cannot retry err [stream error: stream ID 1; PROTOCOL_ERROR; received from peer] after Request.Body was written; define Request.GetBody to avoid this error", false},
		{"stream error: stream ID 1; REFUSED_STREAM; received from peer", false},
		{"read: connection reset by peer", false},
	} {
		assert.Equal(t, tc.want, h2NotProcessed(errors.New(tc.msg)), tc.msg)
	}
}

// h2CannotRetryText is net/http's whole error for an HTTP/2 stream it did
// not process, the wording h2NotProcessed trusts, for a peer to quote.
const (
	h2CannotRetryGoAway  = h2CannotRetryPrefix + h2GoAwayUnprocessed + h2CannotRetrySuffix
	h2CannotRetryRefused = h2CannotRetryPrefix + "stream error: stream ID 1; REFUSED_STREAM; received from peer" + h2CannotRetrySuffix
)

// teOnceServer is a raw HTTP/1.1 server on loopback: it reads each request
// whole, counts it as processed, and answers with te as its
// Transfer-Encoding, which net/http refuses and quotes in its error.
func teOnceServer(t *testing.T, te string) (baseURL string, processed *atomic.Int32) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	processed = new(atomic.Int32)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer conn.Close()
				req, err := http.ReadRequest(bufio.NewReader(conn))
				if err != nil {
					return
				}
				if _, err := io.Copy(io.Discard, req.Body); err != nil {
					return
				}
				processed.Add(1)
				_, _ = io.WriteString(conn, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"+
					"Transfer-Encoding: "+te+"\r\n\r\n{}")
			}()
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		wg.Wait()
	})
	return "http://" + ln.Addr().String(), processed
}

// A peer cannot make a processed send look unprocessed by quoting the
// wording h2NotProcessed trusts inside a header value that net/http puts
// in its own error: the send is not resent, and may have been sent.
func TestQuotedH2WordingInAnHTTP1ErrorIsNotTrusted(t *testing.T) {
	t.Parallel()
	for _, te := range []string{h2CannotRetryGoAway, h2CannotRetryRefused} {
		base, processed := teOnceServer(t, te)
		c, err := NewClient(testSid, testToken, WithBaseURL(base), WithRetryPolicy(fastRetries),
			WithHTTPClient(&http.Client{Transport: &http.Transport{}}))
		require.NoError(t, err)
		err = unsafeCall(c)
		require.Error(t, err)
		require.Contains(t, err.Error(), te, "the precondition: net/http quotes the header")
		assert.ErrorIs(t, err, ErrMaybeSent)
		assert.EqualValues(t, 1, processed.Load(), "sent once, not resent")
		c.CloseIdleConnections()
	}
}

// Nor by putting it in the debug data of a GOAWAY that covers the stream
// it processed, which net/http quotes in its GoAwayError.
func TestQuotedH2WordingInGoAwayDebugDataIsNotTrusted(t *testing.T) {
	t.Parallel()
	for _, debug := range []string{h2CannotRetryGoAway, h2CannotRetryRefused} {
		base, hc, processed := h2OnceServer(t, true, func(w io.Writer, stream uint32) error {
			p := make([]byte, 8, 8+len(debug))
			binary.BigEndian.PutUint32(p, stream) // the last stream processed: this one
			if err := h2Frame(w, 0x7, 0, 0, append(p, debug...)); err != nil {
				return err
			}
			return io.EOF // and hang up
		})
		c, err := NewClient(testSid, testToken, WithBaseURL(base), WithHTTPClient(hc), WithRetryPolicy(fastRetries))
		require.NoError(t, err)
		err = unsafeCall(c)
		require.Error(t, err)
		require.Contains(t, err.Error(), "GOAWAY", "the precondition: the GOAWAY reached the send")
		assert.ErrorIs(t, err, ErrMaybeSent)
		assert.EqualValues(t, 1, processed.Load(), "sent once, not resent")
	}
}

// h2NotProcessed trusts only the whole message of an error in the chain.
func TestH2NotProcessedMatchesWholeMessages(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"GOAWAY above the last stream", errors.New(h2CannotRetryGoAway), true},
		{"REFUSED_STREAM", errors.New(h2CannotRetryRefused), true},
		{"wrapped by url.Error", &url.Error{Op: "Post", URL: "https://x", Err: errors.New(h2CannotRetryRefused)}, true},
		{"in a multi-error", errors.Join(io.EOF, errors.New(h2CannotRetryGoAway)), true},
		{"quoted in a transfer encoding", fmt.Errorf("net/http: HTTP/1.x transport connection broken: %w",
			fmt.Errorf("unsupported transfer encoding: %q", h2CannotRetryGoAway)), false},
		{"quoted in GOAWAY debug data", fmt.Errorf("http2: server sent GOAWAY and closed the connection; "+
			"LastStreamID=1, ErrCode=NO_ERROR, debug=%q", h2CannotRetryRefused), false},
		{"prefixed", errors.New("x" + h2CannotRetryGoAway), false},
		{"suffixed", errors.New(h2CannotRetryGoAway + "x"), false},
		{"stream ID not a number", errors.New(strings.Replace(h2CannotRetryRefused, "ID 1;", "ID x;", 1)), false},
		{"stream ID missing", errors.New(strings.Replace(h2CannotRetryRefused, "ID 1;", "ID ;", 1)), false},
	} {
		assert.Equal(t, tc.want, h2NotProcessed(tc.err), tc.name)
	}
}
