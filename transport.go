package telco

// The transport layer: what the Client puts between itself and the network.
//
// A Client sends through one *http.Client, the caller's (WithHTTPClient) or
// one on the transport shared by every Client built without it
// (sharedTransport), which has dial and TLS-handshake timeouts but no
// overall timeout. Sharing it, as net/http shares
// http.DefaultTransport, keeps one pool of connections per process: a
// Client made per call leaves nothing behind that only it could close.
// The shared transport yields to a replaced http.DefaultTransport
// (httpmock.Activate), and WithTransport wraps either (below).
// NewClient wraps the client it sends through (sendingClient):
//
//   - withRedirectPolicy copies it with a CheckRedirect that follows a
//     redirect only within the origin (scheme, host and port) of the request
//     that got it. A redirect elsewhere is not followed: its 3xx comes back
//     and becomes an *APIError, so neither the credentials nor the request
//     body reach a host the caller did not name. A redirect the client
//     refuses for another reason is a *redirectError, which retry.go never
//     retries: the service's address answered it and would again.
//   - attemptTimeoutTransport bounds one attempt including the read of its
//     body, by WithAttemptTimeout or else DefaultAttemptTimeout, so that a
//     server that stalls in the middle of a body cannot hang a call that
//     has no deadline; the deadline ends only once the body is read. On
//     the SDK's own transport it also bounds the wait for the answer's
//     header (defaultHeaderWait). The Client's watchdog keeps these
//     deadlines for all its attempts with one timer.
//   - keepIdleTransport hides the transport's CloseIdleConnections.
//     go-retryablehttp calls CloseIdleConnections on the client it is given
//     after every call that ends in a transport error (a cancellation, a
//     timeout), which would empty the whole idle pool, possibly a
//     process-wide one passed with WithHTTPClient, and make every caller
//     dial again. Client.CloseIdleConnections reaches the pool on purpose.
//
// checkBaseURL admits plain http only for a loopback host (a telcotest
// server) unless WithInsecureHTTP, so that credentials never travel
// unencrypted by accident, and never quotes
// a base URL's user info in its errors (redactUserinfo).

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"time"
)

// withRedirectPolicy returns a copy of hc that follows same-origin
// redirects only; hc's own CheckRedirect, if any, still decides about those.
func withRedirectPolicy(hc *http.Client) *http.Client {
	cp := *hc
	next := hc.CheckRedirect
	cp.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if !sameOrigin(req.URL, via[0].URL) {
			req.Header.Del("Authorization")
			return http.ErrUseLastResponse
		}
		if next != nil {
			if err := next(req, via); err != nil && !errors.Is(err, http.ErrUseLastResponse) {
				return &redirectError{err}
			}
			return nil
		}
		if len(via) >= 10 {
			return &redirectError{errors.New("stopped after 10 redirects")}
		}
		return nil
	}
	return &cp
}

// redirectError marks a redirect the client refused to follow. The
// service's address answered it, and would answer another attempt the
// same way, so classify never retries it.
type redirectError struct{ err error }

func (e *redirectError) Error() string { return e.err.Error() }
func (e *redirectError) Unwrap() error { return e.err }

func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) &&
		portOf(a) == portOf(b)
}

func portOf(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if strings.EqualFold(u.Scheme, "https") {
		return "443"
	}
	return "80"
}

// checkBaseURL returns raw without a trailing slash, or why a Client must
// not use it; insecure (WithInsecureHTTP) admits plain http to any host.
func checkBaseURL(raw string, insecure bool) (string, error) {
	if fix := schemeSuggestion(raw); fix != "" { // env.go
		return "", fmt.Errorf("telco: NewClient: base URL %q has no scheme (it must be absolute, http(s)://host[:port][/prefix]): did you mean %s?", raw, fix)
	}
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return "", baseURLParseError(raw, err)
	}
	shown := redactUserinfo(raw)
	if !u.IsAbs() || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return "", fmt.Errorf("telco: NewClient: base URL %q must be absolute, http(s)://host[:port][/prefix]", shown)
	}
	if u.User != nil {
		return "", errors.New("telco: NewClient: base URL must not carry credentials; pass them to NewClient")
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("telco: NewClient: base URL %q must not have a query or fragment", shown)
	}
	if u.Scheme == "http" && !insecure && !isLoopbackHost(u.Hostname()) {
		return "", fmt.Errorf("telco: NewClient: refusing plain http to %q: credentials would travel unencrypted; use https (or WithInsecureHTTP for a mock)", u.Host)
	}
	return strings.TrimRight(u.Scheme+"://"+u.Host+u.EscapedPath(), "/"), nil
}

// baseURLParseError reports a base URL url.Parse rejected. url.Parse's own
// error quotes the whole URL, and its detail may quote a piece of a
// password (an "invalid URL escape" in it, or an "invalid port" when a
// '#' or '?' in the password cut the authority short), so when the URL
// has user info neither is kept.
func baseURLParseError(raw string, err error) error {
	if strings.Contains(raw, "@") {
		return fmt.Errorf("telco: NewClient: base URL %q is malformed; it must not carry credentials", redactUserinfo(raw))
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return fmt.Errorf("telco: NewClient: base URL %q: %v", raw, err)
}

// redactUserinfo returns raw with whatever could be user info replaced:
// everything from the start of the authority (after "//", else from the
// start) up to the last '@'. It looks at the last '@' anywhere, not only
// in the authority, since a '/', '?' or '#' in a password ends the
// authority early for url.Parse.
func redactUserinfo(raw string) string {
	at := strings.LastIndexByte(raw, '@')
	if at < 0 {
		return raw
	}
	start := 0
	if i := strings.Index(raw, "//"); i >= 0 && i < at {
		start = i + 2
	}
	return raw[:start] + redacted + raw[at:]
}

func isLoopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	a, err := netip.ParseAddr(h)
	return err == nil && a.Unmap().IsLoopback()
}

// sharedTransport is the transport of every Client built without
// WithHTTPClient, made on first use. It has no ResponseHeaderTimeout: such
// a Client's watchdog bounds the wait for a header (headerWait), at the
// cost of no timer per request. MaxIdleConnsPerHost equals
// MaxIdleConns: a Client talks to one host, and a lower per-host limit
// only closes connections that concurrent callers then dial again.
var sharedTransport = sync.OnceValue(func() *http.Transport {
	d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	return &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           d.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          100,
		MaxIdleConnsPerHost:   100,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
})

// poolClient returns the *http.Client whose transport holds a Client's
// connections: hc, or one on sharedTransport, which defers to a replaced
// http.DefaultTransport (defaultTransport, below).
func poolClient(hc *http.Client) *http.Client {
	if hc == nil {
		return &http.Client{Transport: defaultTransport{tuned: sharedTransport()}}
	}
	return hc
}

// CloseIdleConnections closes the idle connections of the transport the
// Client sends through, as http.Client.CloseIdleConnections does: the one
// given with WithHTTPClient, or else the transport shared by every Client
// built without it. Connections in use are left alone. A Client needs no
// closing; this is for a program that wants its idle connections gone now
// rather than after their idle timeout.
func (c *Client) CloseIdleConnections() {
	if c.pool != nil {
		c.pool.CloseIdleConnections()
	}
}

// attemptTimeoutTransport bounds one attempt, body included: the deadline
// ends when the call has read the body, the next hop or attempt starts, or
// the call returns. An SDK call's request is sent with its attemptCtx,
// whose deadlines the Client's watchdog keeps, sparing each attempt a
// timer, a child context and the allocations that go with them; a request
// from anywhere else (a test calling the transport directly) gets a
// context.WithTimeout, released when its body is closed.
type attemptTimeoutTransport struct {
	next http.RoundTripper
	d    time.Duration
	dog  *watchdog // nil: every request takes the context.WithTimeout path
}

func (t *attemptTimeoutTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if st, ok := req.Context().(*attemptState); ok && t.dog != nil {
		st.endDeadline() // the previous hop's or attempt's, whose body is closed
		a := st.liveAttempt()
		t.dog.add(a)
		st.reg = a
		areq := req.WithContext(a)
		resp, err := t.next.RoundTrip(areq)
		if err != nil {
			st.endDeadline()
			return nil, err
		}
		t.dog.headerIn(a)
		if resp.Request == nil {
			resp.Request = areq // readAnswer finds the call's state through it
		}
		return resp, nil
	}
	if dl, ok := req.Context().Deadline(); ok && time.Until(dl) <= t.d {
		return t.next.RoundTrip(req)
	}
	ctx, cancel := context.WithTimeout(req.Context(), t.d)
	resp, err := t.next.RoundTrip(req.WithContext(ctx))
	if err != nil {
		cancel()
		return nil, err
	}
	resp.Body = &cancelOnClose{ReadCloser: resp.Body, cancel: cancel}
	return resp, nil
}

// An attemptCtx is the context of one attempt's request: the call's
// (attemptState: the caller's context, its values and the call's state),
// ended also when the attempt outlives its deadlines. The first attempt's
// is part of the call's state; another is made only after one has expired,
// since a context once done stays done. It implements the AfterFunc
// method the context package looks for, so that the child net/http
// derives for each request is cancelled through it without a goroutine or
// a map of children.
type attemptCtx struct {
	st  *attemptState
	dog *watchdog // set by add, on the call's goroutine

	// Guarded by the watchdog's mu: a's place in each of its lists.
	links [2]attemptLink
	start time.Time

	mu       sync.Mutex
	deadline time.Time // zero while no deadline runs
	done     chan struct{}
	err      error
	fns      []func() // the AfterFunc functions to run when done
	fnBuf    [2]func()
	// untie stops the caller's context from ending this one; detached
	// is set once the call is done with the attempt, so that a late Done
	// does not tie it to the caller's context again.
	untie    func() bool
	detached bool
}

// Deadline is the sooner of the caller's deadline and the running
// attempt's.
func (a *attemptCtx) Deadline() (time.Time, bool) {
	a.mu.Lock()
	dl := a.deadline
	a.mu.Unlock()
	if pdl, ok := a.st.Context.Deadline(); ok && (dl.IsZero() || pdl.Before(dl)) {
		return pdl, true
	}
	return dl, !dl.IsZero()
}

// Done is closed when the attempt's deadline passes or the caller's
// context ends, whichever comes first.
func (a *attemptCtx) Done() <-chan struct{} {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.done == nil {
		a.done = make(chan struct{})
		if a.err != nil {
			close(a.done)
		} else if !a.detached && a.st.Context.Done() != nil {
			a.untie = context.AfterFunc(a.st.Context, a.endWithCaller)
		}
	}
	return a.done
}

// Err is the attempt's error once it is done: the caller's context's,
// or context.DeadlineExceeded when the attempt ran out of time.
func (a *attemptCtx) Err() error {
	a.mu.Lock()
	err := a.err
	a.mu.Unlock()
	if err != nil {
		return err
	}
	if err := a.st.Context.Err(); err != nil {
		a.end(err) // so that Done agrees
		return err
	}
	return nil
}

// Value reads the call's context: its state under attemptKey, then the
// caller's values.
func (a *attemptCtx) Value(key any) any { return a.st.Value(key) }

// AfterFunc runs f once the attempt's context is done, as context.AfterFunc
// promises. The stop function it returns never stops f: the context package
// calls it only when the child f cancels has ended, and a child's cancel
// runs at most once, so a late f does nothing.
func (a *attemptCtx) AfterFunc(f func()) func() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.err != nil {
		go f()
		return keepAfterFunc
	}
	if a.fns == nil {
		a.fns = a.fnBuf[:0]
	}
	a.fns = append(a.fns, f)
	return keepAfterFunc
}

func keepAfterFunc() bool { return false }

// detach unties the attempt from the caller's context for good.
func (a *attemptCtx) detach() {
	a.mu.Lock()
	a.detached = true
	if a.untie != nil {
		a.untie()
		a.untie = nil
	}
	a.mu.Unlock()
}

// endWithCaller ends the attempt with the caller's context.
func (a *attemptCtx) endWithCaller() { a.end(a.st.Context.Err()) }

// end makes the attempt done with err, once.
func (a *attemptCtx) end(err error) {
	a.mu.Lock()
	fns := a.endLocked(err)
	a.mu.Unlock()
	for _, f := range fns {
		f()
	}
}

// endLocked marks the attempt done and returns the functions to run.
func (a *attemptCtx) endLocked(err error) []func() {
	if a.err != nil {
		return nil
	}
	a.err = err
	if a.done == nil {
		a.done = closedChan
	} else {
		close(a.done)
	}
	fns := a.fns
	a.fns = nil
	return fns
}

// closedChan is the Done of an attempt that ended before anyone asked.
var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// A watchdog keeps the deadlines of a Client's running attempts: the
// attempt timeout from its start, and, where the Client sends through the
// SDK's own transport, a shorter wait for the answer's header. Every
// attempt has the same timeouts, so the attempts in each list are in the
// order their deadlines fall: one timer, set for the earliest, serves them
// all, and adding or removing an attempt is a few pointer moves under a
// lock.
type watchdog struct {
	d, hd time.Duration // the attempt timeout; the header wait (0: none)

	mu sync.Mutex
	// lists[listAll] holds every running attempt, oldest first;
	// lists[listHeader] those still waiting for their answer's header.
	lists [2]attemptList
	timer *time.Timer
	armed bool
}

const (
	listAll = iota
	listHeader
)

type attemptList struct{ head, tail *attemptCtx }

// attemptLink is an attempt's place in one list.
type attemptLink struct {
	prev, next *attemptCtx
	in         bool
}

// push appends a to list k.
func (w *watchdog) push(k int, a *attemptCtx) {
	l := &w.lists[k]
	a.links[k] = attemptLink{prev: l.tail, in: true}
	if l.tail != nil {
		l.tail.links[k].next = a
	} else {
		l.head = a
	}
	l.tail = a
}

// drop takes a out of list k, if it is there.
func (w *watchdog) drop(k int, a *attemptCtx) {
	ln := &a.links[k]
	if !ln.in {
		return
	}
	l := &w.lists[k]
	if ln.prev != nil {
		ln.prev.links[k].next = ln.next
	} else {
		l.head = ln.next
	}
	if ln.next != nil {
		ln.next.links[k].prev = ln.prev
	} else {
		l.tail = ln.prev
	}
	*ln = attemptLink{}
}

// newWatchdog returns the watchdog for attempts bounded by d, and by hd
// until their header arrives when hd is positive and shorter.
func newWatchdog(d, hd time.Duration) *watchdog {
	if hd >= d {
		hd = 0
	}
	return &watchdog{d: d, hd: hd}
}

// add starts a's deadlines now.
func (w *watchdog) add(a *attemptCtx) {
	a.dog = w
	w.mu.Lock()
	now := time.Now() // under the lock, so that the lists stay in order
	a.start = now
	w.push(listAll, a)
	dl := now.Add(w.d)
	if w.hd > 0 {
		w.push(listHeader, a)
		dl = now.Add(w.hd)
	}
	a.mu.Lock()
	a.deadline = dl
	a.fns = a.fns[:0] // an earlier attempt's children have ended
	a.mu.Unlock()
	if !w.armed {
		w.arm(now)
	}
	w.mu.Unlock()
}

// headerIn ends a's wait for its header; the attempt timeout still runs.
func (w *watchdog) headerIn(a *attemptCtx) {
	w.mu.Lock()
	if a.links[listHeader].in {
		w.drop(listHeader, a)
		a.mu.Lock()
		a.deadline = a.start.Add(w.d)
		a.mu.Unlock()
	}
	w.mu.Unlock()
}

// remove ends a's deadlines without ending a.
func (w *watchdog) remove(a *attemptCtx) {
	w.mu.Lock()
	w.dropAll(a)
	a.mu.Lock()
	a.deadline = time.Time{}
	a.mu.Unlock()
	w.mu.Unlock()
}

// dropAll takes a out of both lists.
func (w *watchdog) dropAll(a *attemptCtx) {
	w.drop(listHeader, a)
	w.drop(listAll, a)
}

// arm sets the timer for the earliest deadline. Called with mu held and at
// least one attempt listed; a deadline removed since only makes the timer
// fire early, and fire sets it again.
func (w *watchdog) arm(now time.Time) {
	next := w.lists[listAll].head.start.Add(w.d)
	if h := w.lists[listHeader].head; h != nil {
		next = minTime(next, h.start.Add(w.hd))
	}
	if w.timer == nil {
		w.timer = time.AfterFunc(next.Sub(now), w.fire)
	} else {
		w.timer.Reset(next.Sub(now))
	}
	w.armed = true
}

// fire ends the attempts whose deadline has passed.
func (w *watchdog) fire() {
	var fns []func()
	w.mu.Lock()
	now := time.Now()
	w.armed = false
	for a := w.lists[listHeader].head; a != nil && !now.Before(a.start.Add(w.hd)); a = w.lists[listHeader].head {
		fns = append(fns, w.expire(a)...)
	}
	for a := w.lists[listAll].head; a != nil && !now.Before(a.start.Add(w.d)); a = w.lists[listAll].head {
		fns = append(fns, w.expire(a)...)
	}
	if w.lists[listAll].head != nil {
		w.arm(now)
	}
	w.mu.Unlock()
	for _, f := range fns {
		f()
	}
}

// expire takes a off the lists and ends it, under mu, so that an attempt
// cannot be ended after its call has moved on to the next.
func (w *watchdog) expire(a *attemptCtx) []func() {
	w.dropAll(a)
	a.mu.Lock()
	a.deadline = time.Time{}
	fns := a.endLocked(context.DeadlineExceeded)
	a.mu.Unlock()
	return fns
}

// running reports how many attempts have a deadline running, for tests.
func (w *watchdog) running() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for a := w.lists[listAll].head; a != nil; a = a.links[listAll].next {
		n++
	}
	return n
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelOnClose) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// keepIdleTransport is a RoundTripper without CloseIdleConnections, so
// that go-retryablehttp cannot empty the pool behind it (see the top of
// this file).
type keepIdleTransport struct{ rt http.RoundTripper }

func (t keepIdleTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	return t.rt.RoundTrip(req)
}

// sendingClient returns the *http.Client a Client hands go-retryablehttp:
// a copy of hc with the redirect policy, every attempt bounded by d and its
// wait for a header by headerWait (0: only by d), and a transport whose
// idle pool it cannot empty.
func sendingClient(hc *http.Client, d, headerWait time.Duration) *http.Client {
	hc = withRedirectPolicy(hc) // a copy
	next := hc.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	hc.Transport = keepIdleTransport{&attemptTimeoutTransport{next: next, d: d, dog: newWatchdog(d, headerWait)}}
	return hc
}

// Seams between the Client and the caller's own plumbing: tests, tracing
// and the networks CI runs in.
//
//   - A Client built without WithHTTPClient sends through defaultTransport:
//     the SDK's tuned transport, unless http.DefaultTransport has been
//     replaced (httpmock.Activate, a test's stub, a process-wide
//     instrumentation), in which case the replacement. It decides per
//     request, as net/http's zero Client does, so that a test that
//     activates httpmock after building the Client is intercepted too, and
//     a test that mocks the network can never reach the real host by
//     accident.
//   - WithTransport wraps whichever transport the Client sends through in
//     the caller's RoundTripper, keeping the SDK's timeouts and pool
//     sizing (WithHTTPClient replaces them).
//   - CallInfo tells such a RoundTripper which SDK operation and attempt a
//     request is, read from the call's attemptState (retry.go).
//   - WithInsecureHTTP lets plain http reach a host that is not loopback:
//     a mock in a container or a compose network, found by host name.

// WithTransport wraps the transport the Client sends through in
// wrap(next): the SDK's tuned default transport (connection timeouts,
// pool sizing), or the transport of the client given with WithHTTPClient.
// Use it to observe or decorate requests, for example with an
// OpenTelemetry transport, without giving up the defaults as
// WithHTTPClient does:
//
//	telco.WithTransport(func(next http.RoundTripper) http.RoundTripper {
//		return otelhttp.NewTransport(next, otelhttp.WithSpanNameFormatter(
//			func(_ string, r *http.Request) string {
//				info, _ := telco.CallInfo(r.Context())
//				return "telco " + info.Op
//			}))
//	})
//
// wrap is called once, by NewClient; the RoundTripper it returns is
// called once per attempt, retries included, and must not be nil. The
// SDK's own layers stay outside it: the redirect policy, the attempt
// timeout (its deadline is on the request's context) and the retry loop.
func WithTransport(wrap func(next http.RoundTripper) http.RoundTripper) Option {
	return func(c *clientConfig) { c.wrapTransport = wrap }
}

// WithInsecureHTTP lets the base URL use plain http to any host, not only
// a loopback one: for a mock (`telco mock`, a telcotest server) reached by
// host name in a container or a CI network. The token then travels
// unencrypted, so never use it with real credentials; `telco mock --tls`
// serves HTTPS instead. The CLI turns it on with
// TELCO_ALLOW_INSECURE_HTTP=1.
func WithInsecureHTTP() Option { return func(c *clientConfig) { c.insecureHTTP = true } }

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
	st, ok := ctx.Value(attemptKey{}).(*attemptState)
	if !ok || st == nil || st.call == nil {
		return AttemptInfo{}, false
	}
	return AttemptInfo{Op: st.call.op, Attempt: int(st.attempt.Load()), Idempotent: st.call.idempotent}, true
}

// stdDefaultTransport is net/http's own http.DefaultTransport, as it was
// when this package was initialised.
var stdDefaultTransport, _ = http.DefaultTransport.(*http.Transport)

// replacedDefaultTransport returns http.DefaultTransport when something
// has replaced it, and nil while it is still net/http's own.
func replacedDefaultTransport() http.RoundTripper {
	rt := http.DefaultTransport
	if rt == nil {
		return nil
	}
	// A type assertion rather than ==, which panics on two values of the
	// same uncomparable type (a func adapter, say).
	if t, ok := rt.(*http.Transport); ok && t == stdDefaultTransport {
		return nil
	}
	return rt
}

// defaultTransport is the transport of a Client built without
// WithHTTPClient: tuned, the SDK's own, unless http.DefaultTransport has
// been replaced, which it then sends through. It reads
// http.DefaultTransport per request, as net/http's zero Client does.
type defaultTransport struct{ tuned *http.Transport }

func (t defaultTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if rt := replacedDefaultTransport(); rt != nil {
		return rt.RoundTrip(req)
	}
	return t.tuned.RoundTrip(req)
}

// CloseIdleConnections closes the tuned transport's idle connections; a
// replaced http.DefaultTransport is its owner's to close.
func (t defaultTransport) CloseIdleConnections() { t.tuned.CloseIdleConnections() }

// transportClient returns the *http.Client a Client builds its sending
// client on (sendingClient): pool (poolClient: the caller's, or one on
// defaultTransport), its transport wrapped by WithTransport's function.
// sendingClient's keepIdleTransport goes around the wrapper, so that
// go-retryablehttp cannot close the pool's idle connections through it.
func (cfg *clientConfig) transportClient(pool *http.Client) (*http.Client, error) {
	if cfg.wrapTransport == nil {
		return pool, nil
	}
	next := pool.Transport
	if next == nil {
		next = netDefaultTransport{}
	}
	rt := cfg.wrapTransport(next)
	if rt == nil {
		return nil, errors.New("telco: NewClient: the WithTransport function returned a nil RoundTripper")
	}
	cp := *pool
	cp.Transport = rt
	return &cp, nil
}

// netDefaultTransport sends through http.DefaultTransport as it is at each
// request, as an *http.Client without a Transport does.
type netDefaultTransport struct{}

func (netDefaultTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	return http.DefaultTransport.RoundTrip(req)
}
