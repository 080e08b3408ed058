package telco

// The transport layer: what the Client puts between itself and the network.
//
// A Client sends through one *http.Client, the caller's (WithHTTPClient) or
// one on the transport shared by every Client built without it
// (sharedTransport), which has dial, TLS-handshake and response-header
// timeouts but no overall timeout. Sharing it, as net/http shares
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
//     has no deadline: each attempt gets its own context.WithTimeout and a
//     clone of the request, as net/http intends, and the deadline ends
//     once the body is closed.
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
// WithHTTPClient, made on first use. ResponseHeaderTimeout gives up on a
// service that accepted a request and never answers sooner than the
// attempt timeout gives up on a slow body. MaxIdleConnsPerHost equals
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
		ResponseHeaderTimeout: defaultHeaderWait,
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

// attemptTimeoutTransport bounds one attempt, body included, by its own
// context.WithTimeout on a clone of the request: the deadline ends when
// the body is closed (the call has read it, or the retry loop drained it).
// A caller's deadline that comes sooner needs no timer of its own.
type attemptTimeoutTransport struct {
	next http.RoundTripper
	d    time.Duration
}

func (t attemptTimeoutTransport) RoundTrip(req *http.Request) (*http.Response, error) {
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
// a copy of hc with the redirect policy, every attempt bounded by d, and a
// transport whose idle pool it cannot empty.
func sendingClient(hc *http.Client, d time.Duration) *http.Client {
	hc = withRedirectPolicy(hc) // a copy
	next := hc.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	hc.Transport = keepIdleTransport{attemptTimeoutTransport{next: next, d: d}}
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
//   - CallInfo (retry.go) tells such a RoundTripper which SDK operation
//     and attempt a request is.
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
