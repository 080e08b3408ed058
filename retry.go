package telco

// Retries: when an attempt is repeated, and how long the Client waits.
// Idempotent calls retry network errors and 408, 429 and 5xx other than
// 501; non-idempotent ones only failures the service cannot have acted on
// (classify), and otherwise fail with ErrMaybeSent. The decisions plug
// into go-retryablehttp's hooks; CONTRIBUTING.md ("The retry loop") says
// which hook does what and why each failure is classed as it is.

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptrace"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// RetryPolicy decides how failed attempts are retried. Idempotent
// operations retry network errors and 408, 429 and 5xx other than 501;
// non-idempotent ones (sends, creates, porting submission) only failures
// the service cannot have acted on, unless RetryUnsafe is set.
type RetryPolicy struct {
	MaxRetries int           // default 3; 0 disables retries
	MinWait    time.Duration // default 250ms (used when zero)
	MaxWait    time.Duration // default 10s (used when zero); also caps a server's Retry-After
	// RetryUnsafe allows retrying non-idempotent requests (SMS send, creates)
	// after a failure that may have reached the service. Default false.
	RetryUnsafe bool
	// OnRetry, when set, is called before each retry's wait, on the
	// calling goroutine: for metrics and logs. It must return quickly.
	OnRetry func(RetryInfo)
}

// DefaultRetryPolicy returns the policy a Client uses without WithRetryPolicy.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{MaxRetries: 3, MinWait: 250 * time.Millisecond, MaxWait: 10 * time.Second}
}

// normalize fills the zero waits with the defaults and rejects a policy
// that cannot work.
func (rp RetryPolicy) normalize() (RetryPolicy, error) {
	if rp.MaxRetries < 0 || rp.MinWait < 0 || rp.MaxWait < 0 {
		return rp, errors.New("telco: NewClient: negative value in RetryPolicy")
	}
	if rp.MinWait == 0 {
		rp.MinWait = DefaultRetryPolicy().MinWait
	}
	if rp.MaxWait == 0 {
		rp.MaxWait = max(DefaultRetryPolicy().MaxWait, rp.MinWait)
	}
	if rp.MinWait > rp.MaxWait {
		return rp, errors.New("telco: NewClient: RetryPolicy.MinWait exceeds MaxWait")
	}
	return rp, nil
}

// newRetryClient returns the retryablehttp.Client behind c, sending
// through hc. The library runs the loop; each hook the SDK gives it says
// why it is there.
func (c *Client) newRetryClient(hc *http.Client) *retryablehttp.Client {
	return &retryablehttp.Client{
		HTTPClient:   hc,
		Logger:       nil, // the SDK logs one record per attempt itself (logAttempt), never a URL's secrets
		RetryWaitMin: c.retry.MinWait,
		RetryWaitMax: c.retry.MaxWait,
		RetryMax:     c.retry.MaxRetries,
		// Stamps the attempt's number and start on the call's state.
		RequestLogHook: startAttempt,
		// Decides with the call's idempotency, which the library cannot know.
		CheckRetry: c.checkRetry,
		// The wait is fixed in checkRetry, where OnRetry is told it, and
		// waited out in PrepareRetry, which sees the context.
		Backoff:      noBackoff,
		PrepareRetry: c.prepareRetry,
		// The last answer or error comes back as it was, for request.go to
		// turn into the SDK's errors.
		ErrorHandler: retryablehttp.PassthroughErrorHandler,
	}
}

// attemptKey is the key under which a call's context holds its
// *attemptState, for retryablehttp's hooks and CallInfo.
type attemptKey struct{}

// attemptState is one call's state across its attempts.
type attemptState struct {
	ctx    context.Context // the caller's, for the log records
	client *Client
	call   *call
	n      int // 0-based attempt number
	start  time.Time
	// maybeSent is set once any attempt of a non-idempotent call may have
	// reached the service.
	maybeSent bool
	// reached is set once any attempt, of any call, may have reached the
	// service and failed without a usable answer.
	reached bool
	// answered is set once readAnswer has read the last answer's body
	// into body; tooLarge says a 2xx body was over the cap instead.
	answered bool
	body     []byte
	tooLarge bool
	// wait is the wait before the next attempt, fixed by planRetry.
	wait time.Duration
	// traced is set for non-idempotent calls, whose context carries an
	// httptrace.ClientTrace; connected is then set once the current
	// attempt got a connection. An attempt that failed without one (its
	// deadline ended the dial, the TLS handshake or the wait for a pooled
	// connection) cannot have sent anything. connected is written by the
	// transport's goroutines, hence atomic; a late GotConn of an earlier
	// attempt can only make the verdict more cautious.
	traced    bool
	connected atomic.Bool
	// attempt is n+1, for CallInfo: atomic, since a caller's RoundTripper
	// may read it from a goroutine of its own.
	attempt atomic.Int32
}

// stateOf returns the call's state held by ctx, or nil.
func stateOf(ctx context.Context) *attemptState {
	st, _ := ctx.Value(attemptKey{}).(*attemptState)
	return st
}

// gotConn is the httptrace GotConn hook of a non-idempotent call.
func (st *attemptState) gotConn(httptrace.GotConnInfo) { st.connected.Store(true) }

// neverSent says whether a failed attempt's request cannot have reached
// the service.
func (st *attemptState) neverSent(err error) bool {
	return neverSent(err) || (st.traced && !st.connected.Load())
}

// startAttempt is retryablehttp's RequestLogHook.
func startAttempt(_ retryablehttp.Logger, req *http.Request, n int) {
	if st := stateOf(req.Context()); st != nil {
		st.n, st.start, st.answered = n, time.Now(), false
		st.attempt.Store(int32(n + 1))
		st.connected.Store(false)
	}
}

// readAnswer is the request's ResponseHandler, which retryablehttp runs
// on the last answer of the loop: the one place a body is read. An error
// body is read up to errBodyLimit, whatever comes of it; a 2xx body up to
// the Client's cap, and a failure to read it goes back to checkRetry as a
// *readError.
func (st *attemptState) readAnswer(resp *http.Response) error {
	if !is2xx(resp.StatusCode) {
		st.body, _ = io.ReadAll(io.LimitReader(resp.Body, errBodyLimit))
		st.answered = true
		return nil
	}
	body, err := readBody(resp.Body, st.client.maxBody, resp.ContentLength)
	switch {
	case err == errBodyTooLarge:
		st.tooLarge = true // not retried: the same answer would come again
	case err != nil:
		return &readError{err}
	}
	st.body, st.answered = body, true
	st.client.logAttempt(st, resp, nil, false)
	return nil
}

// readError is a 2xx answer whose body could not be read whole.
type readError struct{ err error }

func (e *readError) Error() string { return "reading response: " + e.err.Error() }
func (e *readError) Unwrap() error { return e.err }

// errBodyTooLarge is readBody's answer for a body over the cap.
var errBodyTooLarge = errors.New("response body too large")

// readBody reads r to its end, or fails with errBodyTooLarge having read
// limit+1 bytes, never more. A body of a known length (size, the
// answer's Content-Length; -1 when unknown) under the cap is read in one
// allocation. Otherwise it reads in chunks that double from 4 KiB to
// 512 KiB and joins them once at the end, so that a body over the cap (a
// compressed one that inflates without end, say) costs about the cap in
// memory, where a growing buffer would cost several times it.
func readBody(r io.Reader, limit, size int64) ([]byte, error) {
	var chunks [][]byte
	total := int64(0)
	if size < 0 || size >= limit {
		size = 4 << 10
	}
	size++ // room to see the end of a body of the length announced
	for {
		chunk := make([]byte, min(size, limit+1-total))
		n, err := 0, error(nil)
		for n < len(chunk) && err == nil { // io.ReadFull would hide a body cut short
			var m int
			m, err = r.Read(chunk[n:])
			n += m
		}
		chunks, total = append(chunks, chunk[:n]), total+int64(n)
		if total > limit {
			return nil, errBodyTooLarge
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		size = min(2*size, 512<<10)
	}
	if len(chunks) == 1 {
		return chunks[0], nil
	}
	return bytes.Join(chunks, nil), nil
}

func is2xx(status int) bool { return status >= 200 && status <= 299 }

// checkRetry is retryablehttp's CheckRetry, called after every attempt,
// and again after readAnswer has read the last answer's body.
func (c *Client) checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	st := stateOf(ctx)
	if st == nil || st.answered {
		return false, nil
	}
	if err == nil && is2xx(resp.StatusCode) {
		return false, nil // readAnswer reads the body next, and logs the attempt
	}
	var retry, maybe, never bool
	if re := (*readError)(nil); errors.As(err, &re) {
		// A 2xx cut short: the service acted, so only an idempotent call
		// may go again, whatever RetryUnsafe says.
		retry, maybe = st.call.idempotent, !st.call.idempotent
	} else {
		never = err != nil && st.neverSent(err)
		retry, maybe = classify(st.call.idempotent, c.retry.RetryUnsafe && !st.call.noUnsafeRetry, resp, err, never)
	}
	if maybe {
		st.maybeSent = true
	}
	if (err != nil && !never && !isCertError(err)) || (resp != nil && resp.StatusCode >= 500) {
		st.reached = true
	}
	retry = retry && ctx.Err() == nil && st.n < c.retry.MaxRetries
	c.logAttempt(st, resp, err, retry)
	if retry {
		c.planRetry(st, resp, err)
	}
	return retry, nil
}

// classify says whether a failed attempt may be retried and whether it may
// have reached the service; never says the attempt provably sent nothing.
func classify(idempotent, unsafe bool, resp *http.Response, err error, never bool) (retry, maybeSent bool) {
	if err != nil {
		switch {
		case isCertError(err):
			return false, false // the handshake failed before anything was sent; retrying cannot help
		case errors.As(err, new(*redirectError)):
			// The first hop, the service's address, got the request
			// and answered with a redirect.
			return false, !idempotent
		case never:
			return true, false
		case idempotent:
			return true, false
		default:
			return unsafe, true
		}
	}
	switch s := resp.StatusCode; {
	case s == http.StatusTooManyRequests, s == http.StatusRequestTimeout:
		// Both say the service did not take the request (408: it gave up
		// waiting for it), so even a send is safe to repeat.
		return true, false
	case s >= 500 && s != http.StatusNotImplemented:
		if idempotent {
			return true, false
		}
		return unsafe, true
	case s >= 300 && s <= 399:
		// A redirect that was not followed (to another origin, or a
		// 307/308 of a send): the service or a proxy in front of it got
		// the request, and what it did with it is unknown.
		return false, !idempotent
	}
	return false, false
}

// neverSent says whether err proves the request was not sent: a failed
// dial, DNS lookup or proxy connect, or an HTTP/2 stream the server did
// not process.
func neverSent(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && (op.Op == "dial" || op.Op == "proxyconnect") {
		return true
	}
	var dns *net.DNSError
	return errors.As(err, &dns) || h2NotProcessed(err)
}

// The wording of net/http's error for an HTTP/2 request it would have
// resent had GetBody been set; between the two parts, the failure.
const (
	h2CannotRetryPrefix = "http2: Transport: cannot retry err ["
	h2CannotRetrySuffix = "] after Request.Body was written; define Request.GetBody to avoid this error"
	// The failures that promise the server did not process the stream: a
	// stream above the last one a GOAWAY covered, and REFUSED_STREAM.
	h2GoAwayUnprocessed  = "http2: Transport received Server's graceful shutdown GOAWAY"
	h2RefusedPrefix      = "stream error: stream ID "
	h2RefusedFromPeerEnd = "; REFUSED_STREAM; received from peer"
)

// h2NotProcessed reports whether an error in err's chain is, in its whole
// message, net/http's "cannot retry" error for an unprocessed stream.
func h2NotProcessed(err error) bool {
	return inChain(err, func(e error) bool { return h2NotProcessedMessage(e.Error()) })
}

func h2NotProcessedMessage(s string) bool {
	inner, ok := strings.CutPrefix(s, h2CannotRetryPrefix)
	if !ok {
		return false
	}
	if inner, ok = strings.CutSuffix(inner, h2CannotRetrySuffix); !ok {
		return false
	}
	if inner == h2GoAwayUnprocessed {
		return true
	}
	id, ok := strings.CutPrefix(inner, h2RefusedPrefix)
	if !ok {
		return false
	}
	if id, ok = strings.CutSuffix(id, h2RefusedFromPeerEnd); !ok {
		return false
	}
	_, perr := strconv.ParseUint(id, 10, 31)
	return perr == nil
}

// inChain reports whether match holds for err or any error it wraps,
// following both forms of Unwrap.
func inChain(err error, match func(error) bool) bool {
	for err != nil {
		if match(err) {
			return true
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				if inChain(e, match) {
					return true
				}
			}
			return false
		default:
			return false
		}
	}
	return false
}

func isCertError(err error) bool {
	var v *tls.CertificateVerificationError
	var ua x509.UnknownAuthorityError
	var he x509.HostnameError
	var ci x509.CertificateInvalidError
	return errors.As(err, &v) || errors.As(err, &ua) || errors.As(err, &he) || errors.As(err, &ci)
}

// logAttempt writes the attempt's Debug record: an allow-list of fields,
// never a header or a body.
func (c *Client) logAttempt(st *attemptState, resp *http.Response, err error, retry bool) {
	ctx := st.ctx
	if c.logger == nil || !c.logger.Enabled(ctx, slog.LevelDebug) {
		return
	}
	attrs := make([]slog.Attr, 0, 8)
	attrs = append(attrs,
		slog.String("op", st.call.op),
		slog.String("method", st.call.method),
		slog.String("path", st.call.path),
		slog.Int("attempt", st.n+1),
		slog.Duration("duration", time.Since(st.start)),
		slog.Bool("retry", retry),
	)
	if resp != nil {
		attrs = append(attrs, slog.Int("status", resp.StatusCode))
	}
	if err != nil {
		attrs = append(attrs, slog.String("error", err.Error()))
	}
	c.logger.LogAttrs(ctx, slog.LevelDebug, "telco request attempt", attrs...)
}

// backoff is the wait before a retry: a server's Retry-After (seconds or
// an HTTP date) when given, else exponential growth from minW with up to
// 50% jitter; either way between minW and maxW.
func backoff(minW, maxW time.Duration, n int, resp *http.Response) time.Duration {
	if resp != nil {
		if d, ok := retryAfter(resp.Header.Get("Retry-After"), time.Now()); ok {
			return min(max(d, minW), maxW)
		}
	}
	d := maxW
	if n < 32 {
		if e := minW << n; e > 0 && e < maxW {
			d = e
		}
	}
	d += time.Duration(rand.Int64N(int64(d)/2 + 1))
	return min(max(d, minW), maxW)
}

// retryAfter reads a Retry-After value, capped at a day.
func retryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		if secs > int64(24*time.Hour/time.Second) {
			secs = int64(24 * time.Hour / time.Second)
		}
		return time.Duration(secs) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// Seams of the retry loop for production use: RetryPolicy.OnRetry is told
// of every retry before its wait; WithRateLimiter makes every attempt,
// retries included, wait for a token of the caller's limiter first; the
// waits between attempts run in prepareRetry, the one retryablehttp hook
// that sees the request's context and may end the call with an error, so
// that a wait, like a limiter's, ends with the caller's context.

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
	if st := stateOf(ctx); st != nil && st.wait > 0 {
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

// AttemptInfo names the SDK call an HTTP request belongs to; see CallInfo.
type AttemptInfo struct {
	// Op is the SDK operation, "Messages.Send", as in errors and logs.
	Op string
	// Attempt counts the call's attempts from 1; a retry has 2 or more.
	Attempt int
	// Idempotent says whether the operation is safe to repeat: a
	// non-idempotent one (an SMS send, a create) is retried only when it
	// cannot have reached the service.
	Idempotent bool
}

// CallInfo returns the SDK operation and attempt of the request whose
// context ctx is, and false for a context that belongs to no SDK call. A
// RoundTripper given with WithTransport or WithHTTPClient reads it from
// the request's context, for example to name a tracing span "telco
// Messages.Send" and record the attempt. It is meant for the duration of
// the RoundTrip; after the attempt ends, Attempt may already count the
// next one.
func CallInfo(ctx context.Context) (AttemptInfo, bool) {
	if ctx == nil {
		return AttemptInfo{}, false
	}
	st := stateOf(ctx)
	if st == nil || st.call == nil {
		return AttemptInfo{}, false
	}
	return AttemptInfo{Op: st.call.op, Attempt: int(st.attempt.Load()), Idempotent: st.call.idempotent}, true
}
