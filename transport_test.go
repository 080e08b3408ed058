package telco

import (
	"context"
	"encoding/base64"
	"errors"
	"io"
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
	dt, ok := hc.Transport.(defaultTransport)
	require.True(t, ok, "%T", hc.Transport)
	tr := dt.tuned
	assert.NotZero(t, tr.TLSHandshakeTimeout)
	assert.NotZero(t, tr.ResponseHeaderTimeout)
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
