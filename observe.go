package telco

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

import (
	"context"
	"errors"
	"net/http"
)

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
