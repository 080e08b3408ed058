package telco

// The transport layer: what the Client puts between itself and the network.
//
// A Client sends through one *http.Client, the caller's (WithHTTPClient) or
// defaultHTTPClient, which has dial, TLS-handshake and response-header
// timeouts but no overall timeout: the caller's context governs each call,
// retries and waits included. NewClient wraps it twice:
//
//   - withRedirectPolicy copies it with a CheckRedirect that follows a
//     redirect only within the origin (scheme, host and port) of the request
//     that got it. A redirect elsewhere is not followed: its 3xx comes back
//     and becomes an *APIError, so neither the credentials nor the request
//     body reach a host the caller did not name. A redirect the client
//     refuses for another reason is a *redirectError, which retry.go never
//     retries: the service's address answered it and would again.
//   - WithAttemptTimeout puts attemptTimeoutTransport in front of its
//     transport, bounding one attempt including the read of its body; the
//     deadline is released only when the body is closed.
//
// checkBaseURL admits plain http only for a loopback host (a telcotest
// server), so that credentials never travel unencrypted.

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
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return "", fmt.Errorf("telco: NewClient: base URL: %w", err)
	}
	if !u.IsAbs() || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return "", fmt.Errorf("telco: NewClient: base URL %q must be absolute, http(s)://host[:port][/prefix]", raw)
	}
	if u.User != nil {
		return "", errors.New("telco: NewClient: base URL must not carry credentials; pass them to NewClient")
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("telco: NewClient: base URL %q must not have a query or fragment", raw)
	}
	if u.Scheme == "http" && !insecure && !isLoopbackHost(u.Hostname()) {
		return "", fmt.Errorf("telco: NewClient: refusing plain http to %q: credentials would travel unencrypted; use https (or WithInsecureHTTP for a mock)", u.Host)
	}
	return strings.TrimRight(u.Scheme+"://"+u.Host+u.EscapedPath(), "/"), nil
}

func isLoopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	a, err := netip.ParseAddr(h)
	return err == nil && a.Unmap().IsLoopback()
}

func defaultHTTPClient() *http.Client {
	d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	return &http.Client{Transport: &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           d.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          100,
		MaxIdleConnsPerHost:   32,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 30 * time.Second,
		ExpectContinueTimeout: time.Second,
	}}
}

// attemptTimeoutTransport bounds one attempt, body included: the deadline
// is released only when the body is closed.
type attemptTimeoutTransport struct {
	next http.RoundTripper
	d    time.Duration
}

func (t *attemptTimeoutTransport) RoundTrip(req *http.Request) (*http.Response, error) {
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

// sendingClient returns the *http.Client a Client sends through: hc, or
// the default one, with the redirect policy and, when d > 0, the attempt
// timeout.
func sendingClient(hc *http.Client, d time.Duration) *http.Client {
	if hc == nil {
		hc = defaultHTTPClient()
	}
	hc = withRedirectPolicy(hc)
	if d > 0 {
		cp := *hc
		next := cp.Transport
		if next == nil {
			next = http.DefaultTransport
		}
		cp.Transport = &attemptTimeoutTransport{next: next, d: d}
		hc = &cp
	}
	return hc
}
