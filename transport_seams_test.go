package telco

import (
	"context"
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

// recordingTransport remembers what CallInfo said for every attempt it
// carried, and whether the attempt had a deadline.
type recordingTransport struct {
	next http.RoundTripper
	mu   sync.Mutex
	seen []AttemptInfo
	dl   []bool
}

func (rt *recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	info, ok := CallInfo(req.Context())
	if !ok {
		info = AttemptInfo{Op: "<none>"}
	}
	_, hasDeadline := req.Context().Deadline()
	rt.mu.Lock()
	rt.seen = append(rt.seen, info)
	rt.dl = append(rt.dl, hasDeadline)
	rt.mu.Unlock()
	return rt.next.RoundTrip(req)
}

func (rt *recordingTransport) infos() []AttemptInfo {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return append([]AttemptInfo(nil), rt.seen...)
}

// WithTransport wraps the SDK's tuned default transport, once, and the
// wrapper sees every attempt with its operation and attempt number.
func TestWithTransportWrapsTheTunedDefaultAndSeesEveryAttempt(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write(fixture(t, "get_property.json"))
	}))
	defer srv.Close()

	var wrapped []http.RoundTripper
	rec := &recordingTransport{}
	c, err := NewClient(testSid, testToken, WithBaseURL(srv.URL), WithRetryPolicy(fastRetries),
		WithAttemptTimeout(5*time.Second),
		WithTransport(func(next http.RoundTripper) http.RoundTripper {
			wrapped = append(wrapped, next)
			rec.next = next
			return rec
		}))
	require.NoError(t, err)
	require.Len(t, wrapped, 1, "the function is called once, by NewClient")
	dt, ok := wrapped[0].(defaultTransport)
	require.True(t, ok, "it wraps the SDK's default transport, got %T", wrapped[0])
	assert.Same(t, sharedTransport(), dt.tuned, "the shared, tuned transport, timeouts kept")
	assert.Equal(t, 5*time.Second, attemptLayer(t, c).d, "every attempt stays bounded")
	assert.NotZero(t, dt.tuned.MaxIdleConnsPerHost)
	_, closable := c.rc.HTTPClient.Transport.(interface{ CloseIdleConnections() })
	assert.False(t, closable, "go-retryablehttp cannot empty the shared pool through the wrapper")

	_, err = c.Properties.Get(context.Background(), testProp)
	require.NoError(t, err)
	assert.Equal(t, []AttemptInfo{
		{Op: "Properties.Get", Attempt: 1, Idempotent: true},
		{Op: "Properties.Get", Attempt: 2, Idempotent: true},
	}, rec.infos(), "one RoundTrip per attempt, the retry numbered 2")
	assert.Equal(t, []bool{true, true}, rec.dl, "the attempt timeout stays outside the wrapper")

	n.Store(1) // answer at once from now on
	rec.seen = nil
	_, err = c.Messages.Send(context.Background(), testProp, &SendMessageParams{From: "Acme", To: "+61499999999", Text: "hi"})
	require.Error(t, err, "the fixture is not a message: only the request matters here")
	assert.Equal(t, []AttemptInfo{{Op: "Messages.Send", Attempt: 1, Idempotent: false}}, rec.infos())
}

// With WithHTTPClient, WithTransport wraps the caller's transport, and a
// client without one gets http.DefaultTransport as it is at each request.
func TestWithTransportWrapsTheCallersTransport(t *testing.T) {
	mine := &http.Transport{}
	var got http.RoundTripper
	_, err := NewClient(testSid, testToken, WithHTTPClient(&http.Client{Transport: mine}),
		WithTransport(func(next http.RoundTripper) http.RoundTripper { got = next; return next }))
	require.NoError(t, err)
	assert.Same(t, mine, got)

	_, err = NewClient(testSid, testToken, WithHTTPClient(&http.Client{}),
		WithTransport(func(next http.RoundTripper) http.RoundTripper { got = next; return next }))
	require.NoError(t, err)
	assert.IsType(t, netDefaultTransport{}, got)
}

func TestWithTransportReturningNilIsRefused(t *testing.T) {
	c, err := NewClient(testSid, testToken, WithTransport(func(http.RoundTripper) http.RoundTripper { return nil }))
	require.Error(t, err)
	assert.Nil(t, c)
	assert.Contains(t, err.Error(), "WithTransport")
}

func TestCallInfoOutsideACall(t *testing.T) {
	_, ok := CallInfo(context.Background())
	assert.False(t, ok)
	//lint:ignore SA1012 a nil context must not panic
	_, ok = CallInfo(nil)
	assert.False(t, ok)
}

// A RoundTripper in a WithHTTPClient client reads CallInfo too.
func TestCallInfoThroughWithHTTPClient(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write(fixture(t, "get_property.json"))
	}))
	defer srv.Close()
	rec := &recordingTransport{next: http.DefaultTransport}
	c, err := NewClient(testSid, testToken, WithBaseURL(srv.URL), WithHTTPClient(&http.Client{Transport: rec}))
	require.NoError(t, err)
	_, err = c.Properties.Get(context.Background(), testProp)
	require.NoError(t, err)
	assert.Equal(t, []AttemptInfo{{Op: "Properties.Get", Attempt: 1, Idempotent: true}}, rec.infos())
}

// Plain http to a host found by name, as in a container network, needs
// WithInsecureHTTP; with it, requests go there.
func TestWithInsecureHTTPAllowsAMockByHostName(t *testing.T) {
	_, err := NewClient(testSid, testToken, WithBaseURL("http://telco-mock:8080"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "WithInsecureHTTP", "the refusal names the way out")

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, "telco-mock:8080", r.Host)
		_, _ = w.Write(fixture(t, "get_property.json"))
	}))
	defer srv.Close()
	// "telco-mock" resolves to the test server, as a compose service
	// name would to its container.
	var d net.Dialer
	dialed := ""
	hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		dialed = addr
		return d.DialContext(ctx, network, srv.Listener.Addr().String())
	}}}
	c, err := NewClient(testSid, testToken, WithBaseURL("http://telco-mock:8080"), WithInsecureHTTP(), WithHTTPClient(hc))
	require.NoError(t, err)
	assert.Equal(t, "http://telco-mock:8080", c.BaseURL())
	p, err := c.Properties.Get(context.Background(), testProp)
	require.NoError(t, err)
	assert.Equal(t, testProp, p.PropertySid)
	assert.Equal(t, "telco-mock:8080", dialed)

	// The other checks still apply.
	for _, base := range []string{"ftp://telco-mock", "http://u:p@telco-mock", "telco-mock:8080"} {
		_, err := NewClient(testSid, testToken, WithBaseURL(base), WithInsecureHTTP())
		assert.Error(t, err, base)
	}
}

// The default transport follows http.DefaultTransport only while something
// has replaced it.
func TestDefaultTransportFollowsAReplacedDefault(t *testing.T) {
	require.Nil(t, replacedDefaultTransport(), "net/http's own DefaultTransport is not a replacement")

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write(fixture(t, "get_property.json"))
	}))
	defer srv.Close()
	c, err := NewClient(testSid, testToken, WithBaseURL(srv.URL), WithRetryPolicy(RetryPolicy{MaxRetries: 0}))
	require.NoError(t, err)

	var stubbed atomic.Int32
	orig := http.DefaultTransport
	http.DefaultTransport = roundTripFunc(func(r *http.Request) (*http.Response, error) {
		stubbed.Add(1)
		return &http.Response{StatusCode: http.StatusTeapot, Body: http.NoBody, Header: http.Header{}, Request: r}, nil
	})
	_, err = c.Properties.Get(context.Background(), testProp)
	http.DefaultTransport = orig
	require.Error(t, err)
	assert.Contains(t, err.Error(), "418", "the stub answered, though the Client was built before it was set")
	assert.EqualValues(t, 1, stubbed.Load())

	p, err := c.Properties.Get(context.Background(), testProp)
	require.NoError(t, err, "restored, the Client sends through its own transport again")
	assert.Equal(t, testProp, p.PropertySid)
	assert.EqualValues(t, 1, stubbed.Load())

	// Replaced by another *http.Transport (a proxy set for the process), too.
	other := &http.Transport{}
	http.DefaultTransport = other
	defer func() { http.DefaultTransport = orig }()
	assert.Same(t, other, replacedDefaultTransport())
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// CallInfo can be read from another goroutine while the call runs
// (go test -race checks it).
func TestCallInfoFromAnotherGoroutine(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadGateway)
	}))
	defer srv.Close()
	var wg sync.WaitGroup
	var ops sync.Map
	c, err := NewClient(testSid, testToken, WithBaseURL(srv.URL), WithRetryPolicy(fastRetries),
		WithTransport(func(next http.RoundTripper) http.RoundTripper {
			return roundTripFunc(func(r *http.Request) (*http.Response, error) {
				wg.Add(1)
				go func(ctx context.Context) {
					defer wg.Done()
					info, _ := CallInfo(ctx)
					ops.Store(info.Op, true)
				}(r.Context())
				return next.RoundTrip(r)
			})
		}))
	require.NoError(t, err)
	_, err = c.Properties.Get(context.Background(), testProp)
	require.Error(t, err)
	wg.Wait()
	_, ok := ops.Load("Properties.Get")
	assert.True(t, ok)
	assert.True(t, strings.Contains(err.Error(), "502"), err.Error())
}
