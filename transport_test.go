package telco

import (
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// getBodyRecorder answers every request with a canned success and records,
// per method and path, whether net/http could rewind the request's body by
// itself (Request.GetBody set).
type getBodyRecorder struct {
	mu      sync.Mutex
	rewinds map[string]bool
}

func (g *getBodyRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		_ = req.Body.Close()
	}
	g.mu.Lock()
	g.rewinds[req.Method+" "+req.URL.Path] = req.GetBody != nil
	g.mu.Unlock()
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(`{}`)), Request: req}, nil
}

// TestNonIdempotentRequestsCannotBeRewoundByNetHTTP: net/http's HTTP/2
// transport resends a request on its own (RST_STREAM PROTOCOL_ERROR,
// REFUSED_STREAM, GOAWAY) whenever GetBody can rewind its body, even after
// the service acted on it. Sends and creates must not give it that means;
// idempotent calls with a body may keep it.
func TestNonIdempotentRequestsCannotBeRewoundByNetHTTP(t *testing.T) {
	t.Parallel()
	rec := &getBodyRecorder{rewinds: map[string]bool{}}
	c, err := NewClient(testSid, testToken, WithBaseURL(testBase), WithHTTPClient(&http.Client{Transport: rec}),
		WithClientValidation(false))
	require.NoError(t, err)
	ctx := context.Background()
	_ = unsafeCall(c)
	_, _ = c.Properties.Create(ctx, &CreatePropertyParams{Name: "P"})
	_ = c.Properties.Update(ctx, testProp, &UpdatePropertyParams{Name: Ptr("Q")})

	rec.mu.Lock()
	defer rec.mu.Unlock()
	for _, k := range []string{"POST /v2/Properties/" + testProp + "/Messages", "POST /v2/Properties"} {
		v, ok := rec.rewinds[k]
		require.True(t, ok, "%s was sent", k)
		assert.False(t, v, "%s: GetBody is set, so net/http may resend it by itself", k)
	}
	v, ok := rec.rewinds["PATCH /v2/Properties/"+testProp]
	require.True(t, ok, "the update was sent")
	assert.True(t, v, "an idempotent update keeps GetBody (same-origin 307/308 are still followed)")
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

// rstOnceServer is a minimal HTTP/2 server over TLS on loopback. It resets
// the first complete request's stream with code and answers later ones 200.
// Under PROTOCOL_ERROR (the way a proxy choking on the answer might) it
// counts the first request as processed (the service sent the SMS); under
// REFUSED_STREAM, which promises nothing was processed, it does not.
func rstOnceServer(t *testing.T, code uint32) (baseURL string, hc *http.Client, processed *atomic.Int32) {
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
				serveRSTOnce(conn, code, processed, &seen)
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

func serveRSTOnce(conn net.Conn, code uint32, processed, seen *atomic.Int32) {
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
			first := seen.Add(1) == 1
			if !first || code != h2RefusedStream {
				processed.Add(1)
			}
			if first {
				rst := make([]byte, 4)
				binary.BigEndian.PutUint32(rst, code)
				err = h2Frame(conn, 0x3, 0, stream, rst) // RST_STREAM
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

// TestRedirectFailuresAreNotRetried: a redirect loop, a redirect the
// caller's CheckRedirect refuses, and a redirect that is not followed are
// answers from the service's address, which another attempt would get
// again. None is retried; a send that met one may have been acted on.
func TestRedirectFailuresAreNotRetried(t *testing.T) {
	t.Parallel()
	retries := RetryPolicy{MaxRetries: 3, MinWait: time.Millisecond, MaxWait: 2 * time.Millisecond}
	refuse := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error {
		return errors.New("no redirects here")
	}}
	elsewhere := httptest.NewServer(http.NotFoundHandler())
	defer elsewhere.Close()
	for _, tc := range []struct {
		name     string
		hc       *http.Client
		redirect func(w http.ResponseWriter, r *http.Request)
		requests int32 // per call, on the first server
		status   int   // the *APIError's status, when the 3xx comes back
	}{
		{"loop", nil, func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, r.URL.Path, http.StatusFound)
		}, 10, 0},
		{"refused by the caller's CheckRedirect", refuse, func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, r.URL.Path, http.StatusFound)
		}, 1, 0},
		{"to another origin", nil, func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, elsewhere.URL+r.URL.Path, http.StatusFound)
		}, 1, http.StatusFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, n := retryServer(t, tc.redirect)
			opts := []Option{WithBaseURL(srv.URL), WithRetryPolicy(retries)}
			if tc.hc != nil {
				opts = append(opts, WithHTTPClient(tc.hc))
			}
			c, err := NewClient(testSid, testToken, opts...)
			require.NoError(t, err)

			err = idempotentCall(c)
			require.Error(t, err)
			assert.Equal(t, tc.requests, n.Swap(0), "the read is not retried")
			assert.False(t, errors.Is(err, ErrMaybeSent))

			err = unsafeCall(c)
			require.Error(t, err)
			assert.Equal(t, tc.requests, n.Swap(0), "the send is not retried")
			assert.True(t, errors.Is(err, ErrMaybeSent), "the service's address got the send: %v", err)
			if tc.status != 0 {
				var ae *APIError
				require.ErrorAs(t, err, &ae)
				assert.Equal(t, tc.status, ae.StatusCode)
			}
		})
	}
}

// TestSameOriginTemporaryRedirectOfASendIsNotFollowed: following a 307 or
// 308 means sending the body again, which is left to the caller.
func TestSameOriginTemporaryRedirectOfASendIsNotFollowed(t *testing.T) {
	t.Parallel()
	for _, code := range []int{http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		srv, n := retryServer(t, func(w http.ResponseWriter, r *http.Request) {
			if strings.HasSuffix(r.URL.Path, "/moved") {
				_, _ = w.Write([]byte(`{"Message":{"MessageSid":"MG1"}}`))
				return
			}
			http.Redirect(w, r, r.URL.Path+"/moved", code)
		})
		c, err := NewClient(testSid, testToken, WithBaseURL(srv.URL), WithRetryPolicy(fastRetries))
		require.NoError(t, err)
		err = unsafeCall(c)
		var ae *APIError
		require.ErrorAs(t, err, &ae, "%d", code)
		assert.Equal(t, code, ae.StatusCode)
		assert.True(t, errors.Is(err, ErrMaybeSent), "%d", code)
		assert.EqualValues(t, 1, n.Load(), "%d: one request, not followed, not retried", code)
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
