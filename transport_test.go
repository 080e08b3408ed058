package telco

import (
	"context"
	"encoding/base64"
	"errors"
	"io"
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
	"go.uber.org/goleak"
)

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

// redirectPair starts a server that redirects every request to target
// with code, and a target that records the Authorization it sees.
func redirectTarget(t *testing.T) (*httptest.Server, *atomic.Int32, *atomic.Value) {
	t.Helper()
	var hits atomic.Int32
	var auth atomic.Value
	auth.Store("")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		auth.Store(r.Header.Get("Authorization"))
		_, _ = w.Write([]byte(`{"Property":{"PropertySid":"` + testProp + `"}}`))
	}))
	t.Cleanup(srv.Close)
	return srv, &hits, &auth
}

func TestRedirectToAnotherHostCarriesNoCredentials(t *testing.T) {
	t.Parallel()
	target, hits, auth := redirectTarget(t)
	targetURL, err := url.Parse(target.URL)
	require.NoError(t, err)
	for _, tc := range []struct {
		name   string
		code   int
		target string
	}{
		{"302 to another port", http.StatusFound, target.URL},
		{"307 to another port", http.StatusTemporaryRedirect, target.URL},
		{"308 to another port", http.StatusPermanentRedirect, target.URL},
		{"301 to another host name", http.StatusMovedPermanently, "http://localhost:" + targetURL.Port()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var origin atomic.Int32
			first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				origin.Add(1)
				http.Redirect(w, r, tc.target+r.URL.RequestURI(), tc.code)
			}))
			defer first.Close()
			c, err := NewClient(testSid, testToken, WithBaseURL(first.URL))
			require.NoError(t, err)
			hits.Store(0)

			_, err = c.Properties.Get(context.Background(), testProp)
			var ae *APIError
			require.ErrorAs(t, err, &ae, "the redirect is not followed; its answer is the error")
			assert.Equal(t, tc.code, ae.StatusCode)
			_, err = c.Messages.Send(context.Background(), testProp, &SendMessageParams{To: "+61400000001", Text: "hi"})
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, tc.code, ae.StatusCode)

			assert.EqualValues(t, 2, origin.Load())
			assert.Zero(t, hits.Load(), "the other host saw no request, so neither credentials nor body")
			assert.Equal(t, "", auth.Load())
		})
	}
}

func TestRedirectWithinTheOriginKeepsCredentials(t *testing.T) {
	t.Parallel()
	var auths []string
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auths = append(auths, r.Header.Get("Authorization"))
		mu.Unlock()
		if strings.HasSuffix(r.URL.Path, "/old") {
			http.Redirect(w, r, "/v2/Properties/"+testProp, http.StatusMovedPermanently)
			return
		}
		_, _ = w.Write([]byte(`{"Property":{"PropertySid":"` + testProp + `"}}`))
	}))
	defer srv.Close()
	var userHook atomic.Int32
	c, err := NewClient(testSid, testToken, WithBaseURL(srv.URL), WithHTTPClient(&http.Client{
		CheckRedirect: func(*http.Request, []*http.Request) error { userHook.Add(1); return nil },
	}))
	require.NoError(t, err)
	p, err := c.Properties.Get(context.Background(), "old")
	require.NoError(t, err)
	assert.Equal(t, testProp, p.PropertySid)
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte(testSid+":"+testToken))
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, auths, 2)
	assert.True(t, auths[0] == basic && auths[1] == basic, "same origin: credentials are kept")
	assert.EqualValues(t, 1, userHook.Load(), "the caller's CheckRedirect still decides within the origin")
}

func TestRedirectLoopStops(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		http.Redirect(w, r, r.URL.Path, http.StatusFound)
	}))
	defer srv.Close()
	c, err := NewClient(testSid, testToken, WithBaseURL(srv.URL), WithRetryPolicy(RetryPolicy{MaxRetries: 0}))
	require.NoError(t, err)
	_, err = c.Properties.Get(context.Background(), testProp)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "redirects")
	assert.EqualValues(t, 10, n.Load())
}

func TestSameOrigin(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"https://api.example.com/x", "https://API.example.com:443/y", true},
		{"http://127.0.0.1:80/x", "http://127.0.0.1/y", true},
		{"https://api.example.com/x", "http://api.example.com/x", false}, // a downgrade
		{"https://api.example.com/x", "https://api.example.com:8443/x", false},
		{"https://api.example.com/x", "https://evil.example.com/x", false},
		{"https://api.example.com/x", "https://api.example.com.evil.test/x", false},
	} {
		a, err := url.Parse(tc.a)
		require.NoError(t, err)
		b, err := url.Parse(tc.b)
		require.NoError(t, err)
		assert.Equal(t, tc.want, sameOrigin(a, b), "%s vs %s", tc.a, tc.b)
	}
}

func TestDefaultHTTPClientHasTimeoutsButNoOverallTimeout(t *testing.T) {
	c, err := NewClient(testSid, testToken)
	require.NoError(t, err)
	hc := c.rc.HTTPClient
	assert.Zero(t, hc.Timeout, "the caller's context governs a call")
	at := attemptLayer(t, c)
	assert.Equal(t, DefaultAttemptTimeout, at.d, "and each attempt is bounded")
	dt, ok := at.next.(defaultTransport)
	require.True(t, ok, "%T", at.next)
	tr := dt.tuned
	assert.Same(t, sharedTransport(), tr, "Clients built without WithHTTPClient share one transport")
	assert.Equal(t, tr.MaxIdleConns, tr.MaxIdleConnsPerHost,
		"a Client talks to one host: a lower per-host limit closes connections concurrent callers dial again")
	assert.Equal(t, 100, tr.MaxIdleConnsPerHost)
	assert.NotZero(t, tr.TLSHandshakeTimeout)
	assert.Equal(t, defaultHeaderWait, tr.ResponseHeaderTimeout, "a service that never answers is given up on sooner than a slow body")
	assert.NotNil(t, tr.DialContext)
	assert.Nil(t, c.rc.Logger, "go-retryablehttp's own logging must be silenced")
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

// countingServer is an httptest server that counts the connections
// clients open to it.
func countingServer(t *testing.T, h http.Handler) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var dials atomic.Int32
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			dials.Add(1)
		}
	}
	srv.Start()
	return srv, &dials
}

// gatedServer answers GETs of a property only once n of them are in
// flight together (round), so that each needs a connection of its own,
// and holds a GET of the property "HANG" until the client gives up.
type gatedServer struct {
	srv     *httptest.Server
	dials   *atomic.Int32
	arrived chan struct{}
	release atomic.Pointer[chan struct{}]
	hung    chan struct{}
}

func newGatedServer(t *testing.T) *gatedServer {
	g := &gatedServer{arrived: make(chan struct{}, 64), hung: make(chan struct{}, 1)}
	body := fixture(t, "get_property.json")
	g.srv, g.dials = countingServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/HANG") {
			g.hung <- struct{}{}
			<-r.Context().Done()
			return
		}
		rel := g.release.Load()
		g.arrived <- struct{}{}
		select {
		case <-*rel:
		case <-r.Context().Done():
			return
		}
		_, _ = w.Write(body)
	}))
	t.Cleanup(g.srv.Close)
	return g
}

// round runs n concurrent GETs that the server answers together.
func (g *gatedServer) round(t *testing.T, c *Client, n int) {
	t.Helper()
	rel := make(chan struct{})
	g.release.Store(&rel)
	errs := make(chan error, n)
	for range n {
		go func() {
			_, err := c.Properties.Get(context.Background(), testProp)
			errs <- err
		}()
	}
	for range n {
		select {
		case <-g.arrived:
		case <-time.After(10 * time.Second):
			close(rel)
			t.Fatal("the requests did not arrive together")
		}
	}
	close(rel)
	for range n {
		require.NoError(t, <-errs)
	}
}

// TestCancelledCallKeepsTheIdlePool: go-retryablehttp calls
// CloseIdleConnections on the client it is given after a call that ends
// in a transport error. It must not reach the pool: one cancelled call
// would make every caller of the same transport dial again.
func TestCancelledCallKeepsTheIdlePool(t *testing.T) {
	t.Parallel()
	own := &http.Transport{MaxIdleConnsPerHost: 16}
	defer own.CloseIdleConnections()
	for name, hc := range map[string]*http.Client{"WithHTTPClient": {Transport: own}, "default": nil} {
		g := newGatedServer(t)
		opts := []Option{WithBaseURL(g.srv.URL), WithRetryPolicy(RetryPolicy{MaxRetries: 0})}
		if hc != nil {
			opts = append(opts, WithHTTPClient(hc))
		}
		c, err := NewClient(testSid, testToken, opts...)
		require.NoError(t, err)

		g.round(t, c, 9) // nine connections, then idle in the pool
		require.EqualValues(t, 9, g.dials.Load(), name)

		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, err := c.Properties.Get(ctx, "HANG")
			done <- err
		}()
		<-g.hung
		cancel()
		require.ErrorIs(t, <-done, context.Canceled, name)

		g.round(t, c, 8) // the eight connections left in the pool serve them
		assert.EqualValues(t, 9, g.dials.Load(), "%s: the cancelled call emptied the idle pool", name)
		c.CloseIdleConnections()
	}
}

// TestClientsWithoutHTTPClientShareOnePool: Clients built without
// WithHTTPClient share one transport, so a Client made per call leaves
// no connection, and no goroutine, behind that nothing could close.
func TestClientsWithoutHTTPClientShareOnePool(t *testing.T) {
	body := fixture(t, "get_property.json")
	srv, dials := countingServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write(body)
	}))
	defer srv.Close()
	ignore := goleak.IgnoreCurrent()
	var c *Client
	for range 20 {
		var err error
		c, err = NewClient(testSid, testToken, WithBaseURL(srv.URL))
		require.NoError(t, err)
		_, err = c.Properties.Get(context.Background(), testProp)
		require.NoError(t, err)
	}
	assert.EqualValues(t, 1, dials.Load(), "one pool, one connection")
	c.CloseIdleConnections()
	goleak.VerifyNone(t, ignore)
}

// TestStalledBodyEndsAtTheAttemptTimeout: without a deadline, a server
// that stops in the middle of a body does not hang the call: the attempt
// timeout (DefaultAttemptTimeout unless set, see
// TestDefaultHTTPClientHasTimeoutsButNoOverallTimeout) bounds the read of
// the body too.
func TestStalledBodyEndsAtTheAttemptTimeout(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "4096")
		_, _ = w.Write([]byte(`{"Property":{"PropertySid":"`))
		w.(http.Flusher).Flush()
		select { // the rest never comes
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	c, err := NewClient(testSid, testToken, WithBaseURL(srv.URL), WithRetryPolicy(RetryPolicy{MaxRetries: 0}),
		WithAttemptTimeout(200*time.Millisecond))
	require.NoError(t, err)

	for name, call := range map[string]func() error{
		"read": func() error { _, err := c.Properties.Get(context.Background(), testProp); return err },
		"send": func() error { return unsafeCall(c) },
	} {
		done := make(chan error, 1)
		go func() { done <- call() }()
		select {
		case err := <-done:
			require.ErrorIs(t, err, context.DeadlineExceeded, name)
			if name == "send" {
				assert.ErrorIs(t, err, ErrMaybeSent, "the send was answered 200: it took effect")
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: a body stalled half-way hangs the call", name)
		}
	}
}

// roundTripRecorder records the requests it is handed and answers 200.
type roundTripRecorder struct{ got []*http.Request }

func (r *roundTripRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	r.got = append(r.got, req)
	return &http.Response{StatusCode: 200, Body: io.NopCloser(strings.NewReader("")), Header: http.Header{}}, nil
}

// The attempt bound is the sooner of the attempt timeout and the caller's
// deadline; an attempt the caller's deadline already bounds more tightly
// goes through untouched.
func TestAttemptTimeoutYieldsToASoonerDeadline(t *testing.T) {
	t.Parallel()
	rec := &roundTripRecorder{}
	at := &attemptTimeoutTransport{next: rec, d: time.Minute}
	for _, tc := range []struct {
		name    string
		timeout time.Duration // 0: no deadline
		same    bool
	}{{"no deadline", 0, false}, {"a later deadline", time.Hour, false}, {"a sooner deadline", time.Second, true}} {
		ctx := context.Background()
		if tc.timeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, tc.timeout)
			defer cancel()
		}
		req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1/", nil).WithContext(ctx)
		resp, err := at.RoundTrip(req)
		require.NoError(t, err)
		got := rec.got[len(rec.got)-1]
		assert.Equal(t, tc.same, got == req, tc.name)
		dl, ok := got.Context().Deadline()
		require.True(t, ok, "%s: the attempt has a deadline", tc.name)
		want := time.Minute
		if tc.timeout > 0 {
			want = min(want, tc.timeout)
		}
		assert.WithinDuration(t, time.Now().Add(want), dl, 5*time.Second, tc.name)
		require.NoError(t, resp.Body.Close())
	}
}

// Each hop and attempt gets a deadline of its own (the attempt timeout) on
// its request's context, released once its body is closed: by the
// redirect, the retry loop or the call.
func TestAttemptDeadlinesEndWithTheirAttempt(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch n.Add(1) {
		case 1:
			http.Redirect(w, r, "/v2/Properties/"+testProp, http.StatusFound)
		case 2:
			w.WriteHeader(http.StatusServiceUnavailable)
		default:
			_, _ = w.Write([]byte(`{"Property":{"PropertySid":"` + testProp + `","Name":"` + strings.Repeat("x", 64<<10) + `"}}`))
		}
	}))
	defer srv.Close()
	var seen []context.Context
	c, err := NewClient(testSid, testToken, WithBaseURL(srv.URL),
		WithRetryPolicy(RetryPolicy{MaxRetries: 2, MinWait: time.Millisecond, MaxWait: time.Millisecond}),
		WithTransport(func(next http.RoundTripper) http.RoundTripper {
			return roundTripFunc(func(req *http.Request) (*http.Response, error) {
				_, ok := req.Context().Deadline()
				require.True(t, ok, "the attempt timeout is on the request's context")
				seen = append(seen, req.Context())
				return next.RoundTrip(req)
			})
		}))
	require.NoError(t, err)
	p, err := c.Properties.Get(context.Background(), "old")
	require.NoError(t, err)
	assert.Len(t, p.Name, 64<<10, "the body was read whole under its deadline")
	require.Len(t, seen, 3, "a redirect hop, a 503, the answer")
	for i, ctx := range seen {
		assert.ErrorIs(t, ctx.Err(), context.Canceled, "request %d: its deadline was released, not run out", i)
		for _, other := range seen[:i] {
			assert.NotEqual(t, other, ctx, "request %d: a context of its own", i)
		}
	}
}
