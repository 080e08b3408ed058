package telco

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/go-querystring/query"
	"github.com/hashicorp/go-retryablehttp"
)

// Version is the SDK version sent in the User-Agent header.
const Version = "0.1.0"

// DefaultBaseURL is the service's public host.
const DefaultBaseURL = "https://api.fonedynamics.com"

// Client talks to the service. Its services share one connection pool,
// retry policy and logger. Create it with NewClient.
type Client struct {
	NumberBlocks *NumberBlocksService
	Numbers      *NumbersService
	Messages     *MessagesService
	Properties   *PropertiesService
	OnlineLogins *OnlineLoginsService
	SipTrunks    *SipTrunksService
	Porting      *PortingService
	Addresses    *AddressesService
	Lookup       *LookupService

	common service

	baseURL    string // without a trailing slash
	accountSid string
	// auth returns the Authorization header value, "Basic base64(sid:token)".
	// It is a closure so that not even reflection-based printing of a Client
	// held in an unexported field (which bypasses Format) can reach the
	// credentials: fmt shows a func as an address.
	auth      func() string
	userAgent string
	logger    *slog.Logger
	validate  bool
	retry     RetryPolicy
	maxBody   int64 // cap on a success body
	rc        *retryablehttp.Client
	once      *onceState // SendOnce: reconcile policy, the service's clock, shared scans (sendonce.go)
}

// basicAuth returns the Authorization header for the credentials, held
// only by the closure.
func basicAuth(accountSid, token string) func() string {
	header := "Basic " + base64.StdEncoding.EncodeToString([]byte(accountSid+":"+token))
	return func() string { return header }
}

// service is the value every service type is a conversion of, as in
// go-github: each holds the one Client and has no HTTP code of its own.
type service struct{ client *Client }

// Option configures a Client.
type Option func(*clientConfig)

type clientConfig struct {
	baseURL        string
	httpClient     *http.Client
	retry          RetryPolicy
	userAgent      string
	logger         *slog.Logger
	validate       bool
	attemptTimeout time.Duration
	maxBody        int64
	reconcile      ReconcilePolicy
}

// RetryPolicy decides how failed attempts are retried.
//
// Idempotent operations (every GET, PATCH and DELETE, and number
// configuration) are retried on network errors and on 408, 429 and 5xx
// other than 501. Non-idempotent ones (SMS send and batch, creates, porting
// submission) are retried only when the service cannot have acted: a failed
// dial, or a 408 or 429 (the service saying it did not take the request).
// RetryUnsafe lifts that restriction. The README's "Retries and failures"
// has the full table.
type RetryPolicy struct {
	MaxRetries int           // default 3; 0 disables retries
	MinWait    time.Duration // default 250ms (used when zero)
	MaxWait    time.Duration // default 10s (used when zero); also caps a server's Retry-After
	// RetryUnsafe allows retrying non-idempotent requests (SMS send, creates)
	// after a failure that may have reached the service. Default false.
	RetryUnsafe bool
}

// DefaultRetryPolicy returns the policy a Client uses without WithRetryPolicy.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{MaxRetries: 3, MinWait: 250 * time.Millisecond, MaxWait: 10 * time.Second}
}

// WithBaseURL sets the service address, scheme://host[:port][/prefix]; each
// request path (/v2/...) is appended to it. Plain http is accepted only for
// a loopback host, such as a telcotest server.
func WithBaseURL(u string) Option { return func(c *clientConfig) { c.baseURL = u } }

// WithHTTPClient makes the Client send through hc, with its transport,
// timeouts and proxies as given. Without it, a client with dial,
// TLS-handshake and response-header timeouts is used; neither has an overall
// timeout, since the caller's context governs each call. The Client uses a
// copy of hc whose CheckRedirect refuses to leave the request's origin
// (see the README's "Security").
func WithHTTPClient(hc *http.Client) Option { return func(c *clientConfig) { c.httpClient = hc } }

// WithRetryPolicy replaces DefaultRetryPolicy.
func WithRetryPolicy(p RetryPolicy) Option { return func(c *clientConfig) { c.retry = p } }

// WithUserAgent appends ua to the User-Agent header, "telco-go/<version>",
// after a space: "telco-go/0.1.0 acme-crm/2.1".
func WithUserAgent(ua string) Option { return func(c *clientConfig) { c.userAgent = ua } }

// WithLogger logs one Debug record per attempt: operation, method, path,
// status, attempt, duration and the retry decision. Credentials, passwords
// and message text are never logged. Without it nothing is logged.
func WithLogger(l *slog.Logger) Option { return func(c *clientConfig) { c.logger = l } }

// WithClientValidation turns client-side validation of parameters on (the
// default) or off. Off, requests go to the service as given and only the
// service's rules apply; path identifiers are still required, because an
// empty one would address a different operation.
func WithClientValidation(on bool) Option { return func(c *clientConfig) { c.validate = on } }

// WithAttemptTimeout bounds each attempt, reading the response included.
// The caller's context still bounds the whole call, retries and waits
// included. Zero (the default) sets no per-attempt bound.
func WithAttemptTimeout(d time.Duration) Option {
	return func(c *clientConfig) { c.attemptTimeout = d }
}

// WithMaxResponseBytes caps the size of a success body the Client reads
// (default DefaultMaxResponseBytes). A larger answer fails with an
// *APIError that keeps the status and matches ErrResponseTooLarge; for a
// non-idempotent call it also matches ErrMaybeSent, since the service
// answered 2xx. Error bodies are read up to 1 MiB whatever this says.
func WithMaxResponseBytes(n int64) Option { return func(c *clientConfig) { c.maxBody = n } }

// DefaultMaxResponseBytes is the success-body cap without
// WithMaxResponseBytes: far above any listing page the service sends, far
// below what would hurt a process.
const DefaultMaxResponseBytes = 32 << 20

// Ptr returns a pointer to v, for optional fields such as *bool.
func Ptr[T any](v T) *T { return &v }

// NewClient returns a Client that authenticates with HTTP Basic, the account
// SID as user name and the token as password. It fails on an empty SID or
// token, a base URL that is not absolute, and plain http to a host that is
// not loopback.
func NewClient(accountSid, token string, opts ...Option) (*Client, error) {
	cfg := clientConfig{baseURL: DefaultBaseURL, retry: DefaultRetryPolicy(), validate: true, maxBody: DefaultMaxResponseBytes}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	if strings.TrimSpace(accountSid) == "" {
		return nil, errors.New("telco: NewClient: account SID is empty")
	}
	if token == "" {
		return nil, errors.New("telco: NewClient: token is empty")
	}
	base, err := checkBaseURL(cfg.baseURL)
	if err != nil {
		return nil, err
	}
	rp := cfg.retry
	if rp.MaxRetries < 0 || rp.MinWait < 0 || rp.MaxWait < 0 {
		return nil, errors.New("telco: NewClient: negative value in RetryPolicy")
	}
	if rp.MinWait == 0 {
		rp.MinWait = DefaultRetryPolicy().MinWait
	}
	if rp.MaxWait == 0 {
		rp.MaxWait = max(DefaultRetryPolicy().MaxWait, rp.MinWait)
	}
	if rp.MinWait > rp.MaxWait {
		return nil, errors.New("telco: NewClient: RetryPolicy.MinWait exceeds MaxWait")
	}
	if cfg.attemptTimeout < 0 {
		return nil, errors.New("telco: NewClient: negative attempt timeout")
	}
	if cfg.maxBody <= 0 {
		return nil, errors.New("telco: NewClient: WithMaxResponseBytes needs a positive size")
	}
	once, err := newOnceState(cfg.reconcile)
	if err != nil {
		return nil, err
	}

	hc := cfg.httpClient
	if hc == nil {
		hc = defaultHTTPClient()
	}
	hc = withRedirectPolicy(hc)
	if cfg.attemptTimeout > 0 {
		cp := *hc
		next := cp.Transport
		if next == nil {
			next = http.DefaultTransport
		}
		cp.Transport = &attemptTimeoutTransport{next: next, d: cfg.attemptTimeout}
		hc = &cp
	}

	ua := "telco-go/" + Version
	if s := strings.TrimSpace(cfg.userAgent); s != "" {
		ua += " " + s
	}
	c := &Client{
		baseURL:    base,
		accountSid: accountSid,
		auth:       basicAuth(accountSid, token),
		userAgent:  ua,
		logger:     cfg.logger,
		validate:   cfg.validate,
		retry:      rp,
		maxBody:    cfg.maxBody,
		once:       once,
	}
	c.rc = &retryablehttp.Client{
		HTTPClient:     hc,
		Logger:         nil, // silence the library's own logging; we log per attempt
		RetryWaitMin:   rp.MinWait,
		RetryWaitMax:   rp.MaxWait,
		RetryMax:       rp.MaxRetries,
		RequestLogHook: startAttempt,
		CheckRetry:     c.checkRetry,
		Backoff:        backoff,
		ErrorHandler:   retryablehttp.PassthroughErrorHandler,
	}
	c.common.client = c
	c.NumberBlocks = (*NumberBlocksService)(&c.common)
	c.Numbers = (*NumbersService)(&c.common)
	c.Messages = (*MessagesService)(&c.common)
	c.Properties = (*PropertiesService)(&c.common)
	c.OnlineLogins = (*OnlineLoginsService)(&c.common)
	c.SipTrunks = (*SipTrunksService)(&c.common)
	c.Porting = (*PortingService)(&c.common)
	c.Addresses = (*AddressesService)(&c.common)
	c.Lookup = (*LookupService)(&c.common)
	return c, nil
}

// BaseURL returns the address requests are sent to.
func (c *Client) BaseURL() string { return c.baseURL }

// Format prints the Client without its credentials, whatever the verb, so
// that a Client logged or printed by mistake leaks no token.
func (c Client) Format(f fmt.State, _ rune) {
	fmt.Fprintf(f, "telco.Client{BaseURL: %s, AccountSid: %s, Token: %s}", c.baseURL, c.accountSid, redacted)
}

// LogValue logs the Client as its base URL and account SID, the token
// redacted, so that slog handlers never reach its fields.
func (c Client) LogValue() slog.Value {
	return slog.GroupValue(slog.String("BaseURL", c.baseURL), slog.String("AccountSid", c.accountSid),
		slog.String("Token", redacted))
}

// withRedirectPolicy returns a copy of hc that follows a redirect only
// within the origin (scheme, host and port) of the request that got it.
// A redirect elsewhere is not followed: its 3xx is returned (and becomes
// an *APIError), so neither the credentials nor the request body reach a
// host the caller did not name. hc's own CheckRedirect, if any, still
// decides about same-origin redirects.
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

func checkBaseURL(raw string) (string, error) {
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
	if u.Scheme == "http" && !isLoopbackHost(u.Hostname()) {
		return "", fmt.Errorf("telco: NewClient: refusing plain http to %q: credentials would travel unencrypted; use https", u.Host)
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

// call describes one operation for do: its SDK name (for errors and logs),
// the request, and whether repeating it is harmless.
type call struct {
	op         string // "Messages.Send"
	method     string
	path       string // escaped, beginning with /v2/
	query      any    // a struct with url tags, or url.Values; nil for none
	body       any    // JSON-encoded when non-nil
	idempotent bool
	emptyOK    bool // a 2xx with no body is a success even when out is set
	// goneCode, when set, makes a 4xx with this service error code (for
	// example ADDRESS_NOT_FOUND) a success once an earlier attempt may have
	// reached the service: for a DELETE, that attempt removed the resource.
	// It keys on the code, not the status: the service answers errors 400,
	// and a 404 from elsewhere (a proxy, a wrong prefix) says nothing.
	goneCode string
	// secrets are values the request carries that must not be kept from
	// an error answer echoing it (a login or SIP password).
	secrets []string
}

// attemptKey carries an *attemptState through retryablehttp's hooks, which
// see only the request's context: this is how retry decisions are made per
// request on one shared retryablehttp.Client.
type attemptKey struct{}

type attemptState struct {
	call  *call
	n     int // 0-based attempt number
	start time.Time
	// maybeSent is set once any attempt of a non-idempotent call may have
	// reached the service.
	maybeSent bool
	// reached is set once any attempt, of any call, may have reached the
	// service and failed without a usable answer.
	reached bool
	// body is a 2xx body checkRetry read whole, for decodeResponse.
	body *bytes.Buffer
	// traced is set for non-idempotent calls, whose context carries an
	// httptrace.ClientTrace; connected is then set once the current
	// attempt got a connection. An attempt that failed without one (its
	// deadline ended the dial, the TLS handshake or the wait for a pooled
	// connection) cannot have sent anything. connected is written by the
	// transport's goroutines, hence atomic; a late GotConn of an earlier
	// attempt can only make the verdict more cautious.
	traced    bool
	connected atomic.Bool
}

// gotConn is the httptrace GotConn hook of a non-idempotent call.
func (st *attemptState) gotConn(httptrace.GotConnInfo) { st.connected.Store(true) }

// neverSent says whether a failed attempt's request cannot have reached
// the service.
func (st *attemptState) neverSent(err error) bool {
	return neverSent(err) || (st.traced && !st.connected.Load())
}

// do is the one request path: every service method calls it. It encodes the
// query and body, authenticates, retries as the policy allows, logs each
// attempt, and decodes the success body into out (when out is non-nil) or
// the error body into an *APIError.
func (c *Client) do(ctx context.Context, r *call, out any) error {
	if ctx == nil {
		ctx = context.Background()
	}
	u := c.baseURL + r.path
	if r.query != nil {
		q, err := encodeQuery(r.query)
		if err != nil {
			return fmt.Errorf("telco: %s: encoding query: %w", r.op, err)
		}
		if q != "" {
			u += "?" + q
		}
	}
	var body any // untyped nil when there is none, so GETs carry no body
	if r.body != nil {
		b, err := json.Marshal(r.body)
		if err != nil {
			return fmt.Errorf("telco: %s: encoding body: %w", r.op, err)
		}
		body = b
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("telco: %s: %w", r.op, err)
	}

	st := &attemptState{call: r}
	ctx = context.WithValue(ctx, attemptKey{}, st)
	if !r.idempotent {
		// Only a call that is not retried after it may have reached the
		// service needs to know whether an attempt got that far; reads
		// skip the trace's allocations.
		st.traced = true
		ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GotConn: st.gotConn})
	}
	req, err := retryablehttp.NewRequestWithContext(ctx, r.method, u, body)
	if err != nil {
		return fmt.Errorf("telco: %s: %w", r.op, err)
	}
	if !r.idempotent {
		// retryablehttp sets GetBody, and with it net/http's HTTP/2
		// transport resends a request by itself after a GOAWAY,
		// REFUSED_STREAM or a peer's RST_STREAM PROTOCOL_ERROR, which can
		// come after the service acted. Without it such a failure reaches
		// classify: ErrMaybeSent, except for the two that promise the
		// stream was not processed (h2NotProcessed), which the SDK
		// retries itself. The SDK's own retries rewind through
		// retryablehttp's body function, not GetBody. A side effect: a
		// 307/308 to a send is not followed but returned as an *APIError.
		req.Request.GetBody = nil
	}
	h := req.Header
	h.Set("Authorization", c.auth())
	h.Set("Accept", "application/json")
	h.Set("User-Agent", c.userAgent)
	if body != nil {
		if r.method == http.MethodPatch {
			h.Set("Content-Type", "application/merge-patch+json")
		} else {
			h.Set("Content-Type", "application/json")
		}
	}

	resp, err := c.rc.Do(req)
	if err != nil {
		if resp != nil {
			resp.Body.Close()
		}
		err = fmt.Errorf("telco: %s: %w", r.op, err)
		if !r.idempotent && st.maybeSent {
			err = &maybeSentError{err}
		}
		return err
	}
	defer resp.Body.Close()
	return c.decodeResponse(r, st, resp, out)
}

func (c *Client) decodeResponse(r *call, st *attemptState, resp *http.Response, out any) error {
	maybe := !r.idempotent
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, errBodyLimit))
		ae := c.redactAPIError(r, decodeAPIError(r.op, resp.StatusCode, c.redact(r, data)))
		if r.goneCode != "" && st.reached && resp.StatusCode >= 400 && resp.StatusCode <= 499 && ae.Code == r.goneCode {
			return nil
		}
		ae.maybeSent = maybe && st.maybeSent
		return ae
	}
	var err error
	buf := st.body
	if buf == nil {
		buf = getBodyBuffer()
		_, err = buf.ReadFrom(io.LimitReader(resp.Body, c.maxBody+1))
	}
	st.body = nil
	defer putBodyBuffer(buf)
	data := buf.Bytes()
	if err == nil && int64(len(data)) > c.maxBody {
		return &APIError{Op: r.op, StatusCode: resp.StatusCode,
			Message: fmt.Sprintf("response body exceeds %d bytes (WithMaxResponseBytes)", c.maxBody),
			err:     ErrResponseTooLarge, maybeSent: maybe}
	}
	if err != nil {
		// The service answered 2xx: a non-idempotent call took effect.
		err = fmt.Errorf("telco: %s: reading response: %w", r.op, err)
		if maybe {
			err = &maybeSentError{err}
		}
		return err
	}
	if out == nil {
		return nil
	}
	if len(bytes.TrimSpace(data)) == 0 {
		if r.emptyOK {
			return nil
		}
		return &APIError{Op: r.op, StatusCode: resp.StatusCode, Message: "empty response body", maybeSent: maybe}
	}
	if d, ok := out.(bodyDecoder); ok {
		err = d.decodeBody(data)
	} else {
		err = json.Unmarshal(data, out)
	}
	if err != nil {
		return &APIError{Op: r.op, StatusCode: resp.StatusCode, Message: "undecodable response body",
			Body: boundedCopy(c.redact(r, data)), err: err, maybeSent: maybe}
	}
	return nil
}

// secretForms returns every form in which an answer echoing the request
// could show one of its secrets: the Authorization value, the Basic
// credentials in it and the token, then the call's own secrets, each raw,
// JSON-escaped (as the request body carried it) and HTML-escaped (as an
// error page shows either). Longer forms come first, so that the whole
// Authorization value is replaced before its parts.
func (c *Client) secretForms(r *call) []string {
	var forms, plain []string
	if c.auth != nil { // always set by NewClient; tests build bare Clients
		header := c.auth()
		creds := strings.TrimPrefix(header, "Basic ")
		forms = append(forms, header, creds)
		if b, err := base64.StdEncoding.DecodeString(creds); err == nil {
			if _, token, ok := strings.Cut(string(b), ":"); ok {
				plain = append(plain, token)
			}
		}
	}
	plain = append(plain, r.secrets...)
	for _, p := range plain {
		if len(p) < minRedacted {
			continue
		}
		j, _ := json.Marshal(p)
		js := string(j[1 : len(j)-1])
		forms = append(forms, p, js, html.EscapeString(p), html.EscapeString(js))
	}
	return forms
}

// minRedacted is the shortest token or password redact looks for: a
// shorter one is no real secret (the service's tokens are 32 characters,
// login passwords at least 12) and would mostly match ordinary words of an
// error message, such as a test's token "token" in "Invalid token".
const minRedacted = 8

// redact replaces in an answer's body every secret the request carried,
// so that an error page echoing the request (a proxy's, a WAF's) keeps
// none in APIError.Body or Message. It runs on error answers only.
func (c *Client) redact(r *call, b []byte) []byte {
	for _, f := range c.secretForms(r) {
		if f != "" && bytes.Contains(b, []byte(f)) {
			b = bytes.ReplaceAll(b, []byte(f), []byte(redacted))
		}
	}
	return b
}

// redactAPIError redacts the strings decoded from an error body, which
// may have spelt a secret with escapes redact could not see.
func (c *Client) redactAPIError(r *call, ae *APIError) *APIError {
	forms := c.secretForms(r)
	clean := func(s string) string {
		for _, f := range forms {
			if f != "" && strings.Contains(s, f) {
				s = strings.ReplaceAll(s, f, redacted)
			}
		}
		return s
	}
	// Codes and field names are the service's identifiers, never an echo.
	ae.Message = clean(ae.Message)
	for i := range ae.Fields {
		ae.Fields[i].Message = clean(ae.Fields[i].Message)
	}
	return ae
}

// bodyBuffers holds buffers for success bodies: a page of 200 messages is
// about 90 kB, which io.ReadAll would build in a dozen growing allocations
// on every call. A buffer goes back to the pool once the body is decoded,
// so nothing a decoder returns may alias it: encoding/json copies strings
// and json.RawMessage values, and the envelopes in decode.go rely on that.
var bodyBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooledBody is the largest buffer kept for reuse, so that one very
// large answer does not stay pinned in the pool.
const maxPooledBody = 1 << 20

func getBodyBuffer() *bytes.Buffer {
	b := bodyBuffers.Get().(*bytes.Buffer)
	b.Reset()
	return b
}

func putBodyBuffer(b *bytes.Buffer) {
	if b.Cap() <= maxPooledBody {
		bodyBuffers.Put(b)
	}
}

// maybeSentError marks a transport failure of a non-idempotent call that
// may have reached the service.
type maybeSentError struct{ err error }

func (e *maybeSentError) Error() string   { return e.err.Error() + " (" + ErrMaybeSent.Error() + ")" }
func (e *maybeSentError) Unwrap() []error { return []error{e.err, ErrMaybeSent} }

// pathSegment escapes s as one path segment. Dot segments are escaped too,
// since a server or proxy that cleans paths would otherwise read "/x/.."
// as "/".
func pathSegment(s string) string {
	if s == "." || s == ".." {
		return strings.Repeat("%2E", len(s))
	}
	return url.PathEscape(s)
}

func encodeQuery(q any) (string, error) {
	switch v := q.(type) {
	case url.Values:
		return v.Encode(), nil
	// The listings' own parameters take a typed path: go-querystring
	// reflects over the struct, 24 allocations a call.
	case *ListParams:
		return v.query(), nil
	case *wireFindMessages:
		return findQuery(v), nil
	}
	v, err := query.Values(q)
	if err != nil {
		return "", err
	}
	return v.Encode(), nil
}

// startAttempt is retryablehttp's RequestLogHook: it runs before every
// attempt and records when it began.
func startAttempt(_ retryablehttp.Logger, req *http.Request, n int) {
	if st, ok := req.Context().Value(attemptKey{}).(*attemptState); ok {
		st.n, st.start = n, time.Now()
		st.connected.Store(false)
	}
}

// checkRetry is retryablehttp's CheckRetry, called after every attempt.
// It decides with the request's own idempotency and logs the attempt.
func (c *Client) checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	st, _ := ctx.Value(attemptKey{}).(*attemptState)
	if st == nil {
		return false, nil
	}
	c.once.observe(ctx, resp, st.start)
	if err == nil && st.call.idempotent && resp.StatusCode >= 200 && resp.StatusCode <= 299 &&
		st.n < c.retry.MaxRetries && ctx.Err() == nil {
		// Read an idempotent call's answer here, while another attempt is
		// still possible: a body cut short is then retried like a dropped
		// connection. It is the one read the body gets, into the buffer
		// decodeResponse decodes from.
		buf := getBodyBuffer()
		if _, rerr := buf.ReadFrom(io.LimitReader(resp.Body, c.maxBody+1)); rerr != nil {
			putBodyBuffer(buf)
			st.reached = true
			c.logAttempt(ctx, st, resp, rerr, true)
			return true, nil
		}
		st.body = buf
	}
	never := err != nil && st.neverSent(err)
	retry, maybe := classify(st.call.idempotent, c.retry.RetryUnsafe && !noUnsafeRetry(ctx), resp, err, never)
	if maybe {
		st.maybeSent = true
	}
	if (err != nil && !never && !isCertError(err)) || (resp != nil && resp.StatusCode >= 500) {
		st.reached = true
	}
	retry = retry && ctx.Err() == nil && st.n < c.retry.MaxRetries
	c.logAttempt(ctx, st, resp, err, retry)
	return retry, nil
}

// classify says whether a failed attempt may be retried and whether it may
// have reached the service. Only a failed dial (or DNS lookup, or proxy
// connect), or for a traced call an attempt that never got a connection
// (never), proves the request was never sent, and a 408 or 429 that the
// service did not act on it; anything else leaves a non-idempotent call in
// doubt. A connection closed or reset after the request was handed to it
// is in doubt too, even when the server closed it before reading: the
// client cannot tell that from a server that acted and then crashed.
// Over HTTP/1 net/http itself resends a request on a reused connection
// only when nothing was written, or when it is GET-like. Over HTTP/2 it
// would also resend, whenever Request.GetBody is set, after a stream reset
// with PROTOCOL_ERROR that can follow the service's work; do clears
// GetBody for non-idempotent calls so that such a failure arrives here
// (and neverSent picks out the HTTP/2 failures that promise nothing was
// processed). A 503, even with Retry-After, is in doubt: the service does
// not document that it never acts first, and a proxy in front of it may
// answer 503 after forwarding.
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

func neverSent(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && (op.Op == "dial" || op.Op == "proxyconnect") {
		return true
	}
	var dns *net.DNSError
	return errors.As(err, &dns) || h2NotProcessed(err)
}

// h2NotProcessed recognises the HTTP/2 failures that promise the server
// did not process the request, which net/http would have resent by itself
// if do had not cleared GetBody: a stream refused with REFUSED_STREAM, and
// a stream above the last one a GOAWAY covered. net/http reports them only
// as text (its error types are unexported and it formats them with %v),
// so the match is on the exact wording of its "cannot retry" error.
func h2NotProcessed(err error) bool {
	s := err.Error()
	const pre = "http2: Transport: cannot retry err ["
	i := strings.Index(s, pre)
	if i < 0 {
		return false
	}
	inner := s[i+len(pre):]
	return (strings.HasPrefix(inner, "stream error: ") && strings.Contains(inner, "; REFUSED_STREAM; received from peer]")) ||
		strings.HasPrefix(inner, "http2: Transport received Server's graceful shutdown GOAWAY]")
}

func isCertError(err error) bool {
	var v *tls.CertificateVerificationError
	var ua x509.UnknownAuthorityError
	var he x509.HostnameError
	var ci x509.CertificateInvalidError
	return errors.As(err, &v) || errors.As(err, &ua) || errors.As(err, &he) || errors.As(err, &ci)
}

func (c *Client) logAttempt(ctx context.Context, st *attemptState, resp *http.Response, err error, retry bool) {
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

// backoff is retryablehttp's Backoff: a server's Retry-After (seconds or an
// HTTP date) when given, else exponential growth from minW with up to 50%
// jitter; either way between minW and maxW. retryablehttp ends the wait
// early when the request's context ends.
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
