package telco

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// answers registers a responder for method and path that gives each
// request the next of resps (the last repeats); a nil entry is a
// transport error.
func answers(mt *httpmock.MockTransport, method, path string, resps ...func() *http.Response) *atomic.Int32 {
	var n atomic.Int32
	mt.RegisterResponder(method, testBase+path, func(*http.Request) (*http.Response, error) {
		i := int(n.Add(1)) - 1
		if i >= len(resps) {
			i = len(resps) - 1
		}
		if resps[i] == nil {
			return nil, errors.New("connection reset by peer")
		}
		return resps[i](), nil
	})
	return &n
}

func answer(code int, header ...string) func() *http.Response {
	return func() *http.Response {
		r := httpmock.NewStringResponse(code, `{"Properties":[],"PropertySid":"`+testProp+`"}`)
		for i := 0; i+1 < len(header); i += 2 {
			r.Header.Set(header[i], header[i+1])
		}
		return r
	}
}

func TestAPIErrorRetryAfter(t *testing.T) {
	date := time.Now().Add(90 * time.Second).UTC().Format(http.TimeFormat)
	for _, tc := range []struct {
		name   string
		resp   func() *http.Response
		min    time.Duration
		max    time.Duration
		absent bool
	}{
		{"429 in seconds", answer(429, "Retry-After", "7"), 7 * time.Second, 7 * time.Second, false},
		{"503 as a date", answer(503, "Retry-After", date), 80 * time.Second, 90 * time.Second, false},
		{"429 without one", answer(429), 0, 0, true},
		{"500 is not a throttle", answer(500, "Retry-After", "7"), 0, 0, true},
		{"an unreadable value", answer(503, "Retry-After", "soon"), 0, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, mt := newMockClient(t)
			answers(mt, "GET", "/v2/Properties/"+testProp, tc.resp)
			_, err := c.Properties.Get(bg, testProp)
			var ae *APIError
			require.ErrorAs(t, err, &ae)
			if tc.absent {
				assert.Zero(t, ae.RetryAfter)
				return
			}
			assert.GreaterOrEqual(t, ae.RetryAfter, tc.min)
			assert.LessOrEqual(t, ae.RetryAfter, tc.max)
		})
	}
}

func TestOnRetryIsToldOfEachRetry(t *testing.T) {
	var mu sync.Mutex
	var infos []RetryInfo
	policy := RetryPolicy{MaxRetries: 3, MinWait: time.Millisecond, MaxWait: 20 * time.Millisecond,
		OnRetry: func(i RetryInfo) { mu.Lock(); infos = append(infos, i); mu.Unlock() }}
	c, mt := newMockClient(t, WithRetryPolicy(policy))
	answers(mt, "GET", "/v2/Properties/"+testProp, answer(503, "Retry-After", "0"), nil, answer(200))
	_, err := c.Properties.Get(bg, testProp)
	require.NoError(t, err)
	require.Len(t, infos, 2, "two retries, and no call for the success")
	assert.Equal(t, RetryInfo{Op: "Properties.Get", Attempt: 1, StatusCode: 503, Wait: time.Millisecond}, infos[0],
		"Retry-After 0 waits the minimum")
	assert.Equal(t, "Properties.Get", infos[1].Op)
	assert.Equal(t, 2, infos[1].Attempt)
	assert.Zero(t, infos[1].StatusCode, "no answer")
	assert.ErrorContains(t, infos[1].Err, "connection reset by peer")
	assert.GreaterOrEqual(t, infos[1].Wait, policy.MinWait)
	assert.LessOrEqual(t, infos[1].Wait, policy.MaxWait)

	// A send that may have reached the service is not retried: no call.
	infos = nil
	answers(mt, "POST", "/v2/Properties", answer(500))
	_, err = c.Properties.Create(bg, &CreatePropertyParams{Name: "n", MainDomain: "d.example", TimeZone: "UTC"})
	assert.ErrorIs(t, err, ErrMaybeSent)
	assert.Empty(t, infos)
}

// The wait OnRetry is told of is the wait the Client makes.
func TestRetryWaitIsTheOneReported(t *testing.T) {
	var reported time.Duration
	var stamps []time.Time
	policy := RetryPolicy{MaxRetries: 1, MinWait: 60 * time.Millisecond, MaxWait: 60 * time.Millisecond,
		OnRetry: func(i RetryInfo) { reported = i.Wait }}
	c, mt := newMockClient(t, WithRetryPolicy(policy))
	mt.RegisterResponder("GET", testBase+"/v2/Properties/"+testProp, func(*http.Request) (*http.Response, error) {
		stamps = append(stamps, time.Now())
		if len(stamps) == 1 {
			return answer(502)(), nil
		}
		return answer(200)(), nil
	})
	_, err := c.Properties.Get(bg, testProp)
	require.NoError(t, err)
	require.Len(t, stamps, 2)
	assert.Equal(t, 60*time.Millisecond, reported)
	assert.GreaterOrEqual(t, stamps[1].Sub(stamps[0]), reported)
}

// countingLimiter admits every request, counting them, until fail is set.
type countingLimiter struct {
	n    atomic.Int32
	fail atomic.Bool
	ctxs []context.Context
	mu   sync.Mutex
}

var errLimited = errors.New("limit would outlast the deadline")

func (l *countingLimiter) Wait(ctx context.Context) error {
	l.mu.Lock()
	l.ctxs = append(l.ctxs, ctx)
	l.mu.Unlock()
	if l.fail.Load() {
		return errLimited
	}
	l.n.Add(1)
	return nil
}

func TestRateLimiterWaitsBeforeEveryAttempt(t *testing.T) {
	l := &countingLimiter{}
	c, mt := newMockClient(t, WithRateLimiter(l),
		WithRetryPolicy(RetryPolicy{MaxRetries: 3, MinWait: time.Millisecond, MaxWait: time.Millisecond}))
	sent := answers(mt, "GET", "/v2/Properties/"+testProp, answer(503), answer(429), answer(200))
	type key struct{}
	ctx := context.WithValue(bg, key{}, "caller")
	_, err := c.Properties.Get(ctx, testProp)
	require.NoError(t, err)
	assert.EqualValues(t, 3, sent.Load())
	assert.EqualValues(t, 3, l.n.Load(), "one token per attempt, retries included")
	for _, got := range l.ctxs {
		assert.Equal(t, "caller", got.Value(key{}), "the limiter waits under the caller's context")
	}

	// A limiter that refuses ends the call before anything is sent.
	l.fail.Store(true)
	before := mt.GetTotalCallCount()
	_, err = c.Properties.Create(bg, &CreatePropertyParams{Name: "n", MainDomain: "d.example", TimeZone: "UTC"})
	assert.ErrorIs(t, err, errLimited)
	assert.NotErrorIs(t, err, ErrMaybeSent, "nothing was sent")
	assert.ErrorContains(t, err, "telco: Properties.Create: rate limiter:")
	assert.Equal(t, before, mt.GetTotalCallCount())
}

func TestRateLimiterRefusingARetry(t *testing.T) {
	var calls atomic.Int32
	l := RateLimiterFunc(func(ctx context.Context) error {
		if calls.Add(1) > 1 {
			return errLimited
		}
		return nil
	})
	c, mt := newMockClient(t, WithRateLimiter(l),
		WithRetryPolicy(RetryPolicy{MaxRetries: 3, MinWait: time.Millisecond, MaxWait: time.Millisecond}))
	sent := answers(mt, "GET", "/v2/Properties/"+testProp, answer(503), answer(200))
	_, err := c.Properties.Get(bg, testProp)
	assert.ErrorIs(t, err, errLimited)
	assert.EqualValues(t, 1, sent.Load(), "the retry was never sent")
}

func TestCaptureResponse(t *testing.T) {
	c, mt := newMockClient(t, WithRetryPolicy(RetryPolicy{MaxRetries: 2, MinWait: time.Millisecond, MaxWait: time.Millisecond}))
	answers(mt, "GET", "/v2/Properties/"+testProp, answer(502), answer(200, "X-Request-Id", "req-42", "X-Extra", "yes"))
	ctx, info := CaptureResponse(bg)
	_, err := c.Properties.Get(ctx, testProp)
	require.NoError(t, err)
	assert.Equal(t, "Properties.Get", info.Op)
	assert.Equal(t, 200, info.StatusCode)
	assert.Equal(t, "req-42", info.RequestID)
	assert.Equal(t, "yes", info.Header.Get("X-Extra"))
	assert.Equal(t, 2, info.Attempts)

	// An error answer is recorded too, with another request id header.
	answers(mt, "PATCH", "/v2/Properties/"+testProp, answer(400, "Request-Id", "r-7"))
	var mine ResponseInfo // through the deprecated alias, which must still record
	err = c.Properties.Update(WithResponseInfo(bg, &mine), testProp, &UpdatePropertyParams{Name: Ptr("n")})
	require.Error(t, err)
	assert.Equal(t, ResponseInfo{Op: "Properties.Update", StatusCode: 400, RequestID: "r-7", Attempts: 1,
		Header: http.Header{"Request-Id": {"r-7"}}}, mine)

	// A call that got no answer records that.
	answers(mt, "GET", "/v2/Properties", nil)
	_, err = c.Properties.List(ctx, nil)
	require.Error(t, err)
	assert.Equal(t, ResponseInfo{Op: "Properties.List", Attempts: 3}, *info)

	// The escape hatch records too, and a context without a recorder costs nothing.
	require.NoError(t, c.Do(ctx, "GET", "/v2/Properties/"+testProp, nil, nil))
	assert.Equal(t, "Client.Do", info.Op)
	require.NoError(t, c.Do(bg, "GET", "/v2/Properties/"+testProp, nil, nil))
	assert.Equal(t, "Client.Do", info.Op)
}
