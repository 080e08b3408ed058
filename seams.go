package telco

// Seams for production use: what a high-volume caller plugs into the one
// request path without wrapping the Client.
//
//   - RetryPolicy.OnRetry is told of every retry before its wait: the
//     operation, the attempt that failed, its status or error, and the wait.
//   - WithRateLimiter makes every attempt, retries included, wait for a
//     token of the caller's limiter first.
//   - APIError.RetryAfter carries the server's Retry-After of a 429 or 503.
//   - CaptureResponse (or WithResponseInfo) records the last answer of a call made
//     with a context: status, headers, a request id, the attempts made.
//
// The retry loop's hooks (retry.go) call in here; the waits between
// attempts run in prepareRetry, the one retryablehttp hook that sees the
// request's context and may end the call with an error, so that a wait,
// like a limiter's, ends with the caller's context.

import (
	"context"
	"net/http"
	"time"
)

// RetryInfo describes a retry that is about to happen, for
// RetryPolicy.OnRetry.
type RetryInfo struct {
	Op         string        // the SDK operation, e.g. "Messages.Find" ("Client.Do" for Do)
	Attempt    int           // the attempt that failed, from 1
	StatusCode int           // its HTTP status; 0 when it got no answer
	Err        error         // the transport or read error; nil when it got an answer
	Wait       time.Duration // how long the Client waits before the next attempt
}

// RateLimiter is a client-side rate limit: Wait blocks until one request
// may be sent, or returns an error when it cannot be (the context ended, or
// the wait would outlast its deadline). *rate.Limiter of
// golang.org/x/time/rate satisfies it.
type RateLimiter interface {
	Wait(ctx context.Context) error
}

// RateLimiterFunc adapts a function to RateLimiter.
type RateLimiterFunc func(ctx context.Context) error

// Wait calls f(ctx).
func (f RateLimiterFunc) Wait(ctx context.Context) error { return f(ctx) }

// WithRateLimiter makes every attempt of every call, retries included, wait
// for l first, so that the Client never sends faster than l allows. A wait
// that fails ends the call with l's error, wrapped; the attempt is not
// sent. The wait does not count towards WithAttemptTimeout.
//
// One process: rate.NewLimiter(rate.Limit(10), 10) from
// golang.org/x/time/rate, shared by every Client that must share the
// limit. Several processes: implement Wait over a store they share, for
// example a Redis counter per one-second window (INCR the window's key,
// EXPIRE it with the window; above the limit, sleep until the next window
// and try again, honouring ctx), or a GCRA limiter such as the redis_rate
// package; the SDK only ever calls Wait.
func WithRateLimiter(l RateLimiter) Option { return func(c *clientConfig) { c.limiter = l } }

// waitLimiter waits for the Client's limiter, if it has one.
func (c *Client) waitLimiter(ctx context.Context) error {
	if c.limiter == nil {
		return nil
	}
	if err := c.limiter.Wait(ctx); err != nil {
		return &limiterError{err}
	}
	return nil
}

// limiterError is a failed limiter wait: the attempt was never sent.
type limiterError struct{ err error }

func (e *limiterError) Error() string { return "rate limiter: " + e.err.Error() }
func (e *limiterError) Unwrap() error { return e.err }

// planRetry is called by checkRetry once it has decided to retry: it fixes
// the wait before the next attempt and tells OnRetry.
func (c *Client) planRetry(st *attemptState, resp *http.Response, err error) {
	st.wait = backoff(c.retry.MinWait, c.retry.MaxWait, st.n, resp)
	if c.retry.OnRetry == nil {
		return
	}
	info := RetryInfo{Op: st.call.op, Attempt: st.n + 1, Err: err, Wait: st.wait}
	if resp != nil {
		info.StatusCode = resp.StatusCode
	}
	c.retry.OnRetry(info)
}

// noBackoff is retryablehttp's Backoff: the wait runs in prepareRetry,
// which, unlike Backoff, sees the request's context.
func noBackoff(time.Duration, time.Duration, int, *http.Response) time.Duration { return 0 }

// prepareRetry is retryablehttp's PrepareRetry, run before every attempt
// but the first: it waits the time planRetry fixed, then for the limiter.
// An error ends the call.
func (c *Client) prepareRetry(req *http.Request) error {
	ctx := req.Context()
	if st, ok := ctx.Value(attemptKey{}).(*attemptState); ok && st.wait > 0 {
		t := time.NewTimer(st.wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
	return c.waitLimiter(ctx)
}

// retryAfterOf is the Retry-After of a 429 or 503 answer, 0 for any other
// or when the header is absent or unreadable.
func retryAfterOf(resp *http.Response) time.Duration {
	if resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode != http.StatusServiceUnavailable {
		return 0
	}
	d, _ := retryAfter(resp.Header.Get("Retry-After"), time.Now())
	return d
}

// ResponseInfo is what the last attempt of a call answered. Methods keep
// their signatures; a caller who wants this passes a context made by
// CaptureResponse or WithResponseInfo.
type ResponseInfo struct {
	Op         string      // the SDK operation of the call
	StatusCode int         // the last answer's status; 0 when no attempt got one
	Header     http.Header // the last answer's headers; nil when no attempt got one
	// RequestID is the answer's request identifier, read from the first of
	// X-Request-Id, Request-Id, X-Correlation-Id, X-Amzn-RequestId and
	// X-Ms-Request-Id that is set; "" when none is. The service's documents
	// name no such header, so whether it sends one is not known.
	RequestID string
	Attempts  int // attempts made, retries included
}

// requestIDHeaders are the headers RequestID is read from, in order.
var requestIDHeaders = []string{"X-Request-Id", "Request-Id", "X-Correlation-Id", "X-Amzn-Requestid", "X-Ms-Request-Id"}

type responseInfoKey struct{}

// WithResponseInfo returns a context that makes each call made with it
// record its ResponseInfo in *info, overwriting it, whether the call
// succeeds or fails. A method that makes several requests (an ...All
// iterator, SendOnce) records its last. info must not be shared by calls
// that run at the same time.
func WithResponseInfo(ctx context.Context, info *ResponseInfo) context.Context {
	if ctx == nil {
		ctx = context.Background()
	}
	return context.WithValue(ctx, responseInfoKey{}, info)
}

// CaptureResponse returns a context that records the ResponseInfo of calls
// made with it, and the value it records into; see WithResponseInfo.
// (CallInfo, by contrast, tells a RoundTripper which call and attempt a
// request belongs to.)
//
//	ctx, info := telco.CaptureResponse(ctx)
//	err := client.Properties.Update(ctx, sid, p)
//	log.Printf("status %d, request id %q", info.StatusCode, info.RequestID)
func CaptureResponse(ctx context.Context) (context.Context, *ResponseInfo) {
	info := new(ResponseInfo)
	return WithResponseInfo(ctx, info), info
}

// recordResponse fills the context's ResponseInfo, if it has one, from the
// call's last answer (resp may be nil);
// attempts is how many attempts were made.
func recordResponse(ctx context.Context, op string, attempts int, resp *http.Response) {
	info, _ := ctx.Value(responseInfoKey{}).(*ResponseInfo)
	if info == nil {
		return
	}
	*info = ResponseInfo{Op: op, Attempts: attempts}
	if resp == nil {
		return
	}
	info.StatusCode = resp.StatusCode
	info.Header = resp.Header.Clone()
	for _, h := range requestIDHeaders {
		if v := resp.Header.Get(h); v != "" {
			info.RequestID = v
			break
		}
	}
}
