package telco

// The Client: one value holding the credentials, the options and the
// services.
//
// As in go-github, every service type (MessagesService, ...) is a
// conversion of one shared value, service, that holds the Client; the
// services have no HTTP code of their own and share one connection pool,
// retry policy and logger. NewClient checks the options once, so that a
// Client, once made, never fails for its configuration. Its credentials
// live only inside the closure that builds the Authorization header
// (basicAuth), and Format and LogValue print the Client without them.
//
// The layers below: transport.go (the *http.Client and its shared pool,
// redirects, attempt timeout, base URL checks), request.go (the one request path and the
// conventions of service methods), retry.go (what is retried and how long
// to wait), decode.go (where the resource is in an answer), redact.go
// (keeping secrets out of errors and output), errors.go (what a call
// returns when it fails).

import (
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

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
	Flows        *FlowsService
	Calls        *CallsService

	common service

	baseURL    string // without a trailing slash
	accountSid string
	// auth returns the Authorization header's value, "Basic base64(sid:token)".
	// It is a closure so that not even reflection-based printing of a Client
	// held in an unexported field (which bypasses Format) can reach the
	// credentials: fmt shows a func as an address.
	auth      func() string
	userAgent string
	logger    *slog.Logger
	validate  bool
	retry     RetryPolicy
	maxBody   int64 // cap on a success body
	// lookupInFlight bounds the requests of one Lookup.NumberDetails call.
	lookupInFlight int
	parallelPages  int // page requests in flight when reading message history
	rc             *retryablehttp.Client
	pool           *http.Client    // whose transport holds the connections (CloseIdleConnections)
	reconcile      ReconcilePolicy // SendOnce's (sendonce.go)
	scans          *scanner        // look-ups by ExternalId (externalid.go)
	ledger         Ledger          // SendOnce's records (ledger.go)
	attemptTimeout time.Duration
	limiter        RateLimiter // WithRateLimiter; nil for none (retry.go)
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
	ledger         Ledger // WithLedger; nil for a memory ledger of the Client's own
	limiter        RateLimiter
	wrapTransport  func(http.RoundTripper) http.RoundTripper // WithTransport (transport.go)
	insecureHTTP   bool                                      // WithInsecureHTTP (transport.go)
	lookupInFlight int
	parallelPages  int // WithParallelPages (paging.go)
}

// WithBaseURL sets the service address, scheme://host[:port][/prefix]; each
// request path (/v2/...) is appended to it. Plain http is accepted only for
// a loopback host, such as a telcotest server, unless WithInsecureHTTP.
func WithBaseURL(u string) Option { return func(c *clientConfig) { c.baseURL = u } }

// WithHTTPClient makes the Client send through a copy of hc, with its
// transport, timeouts and proxies, whose CheckRedirect refuses to leave
// the request's origin. Without it, the Client uses a transport shared by
// every Client built without WithHTTPClient, with connection timeouts but
// no overall timeout: the caller's context governs each call, and
// WithAttemptTimeout each attempt. It sends through http.DefaultTransport
// instead whenever that has been replaced, as httpmock.Activate does, so
// that a test mocking the network intercepts the Client too. WithTransport
// wraps either.
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

// WithAttemptTimeout bounds each attempt, reading the response included
// (default DefaultAttemptTimeout, which zero also selects). The caller's
// context still bounds the whole call, retries and waits included.
func WithAttemptTimeout(d time.Duration) Option {
	return func(c *clientConfig) { c.attemptTimeout = d }
}

// DefaultAttemptTimeout bounds each attempt without WithAttemptTimeout, so
// that a server that stops in the middle of an answer cannot hang a call
// made without a deadline. It is generous: the largest page the service
// sends by default takes a second or two on a slow link.
const DefaultAttemptTimeout = 60 * time.Second

// defaultHeaderWait is the ResponseHeaderTimeout of the transport a Client
// sends through without WithHTTPClient: a service that accepts a request
// and never answers is given up on sooner than a slow body.
const defaultHeaderWait = 30 * time.Second

// WithMaxResponseBytes caps the size of a success body the Client reads
// (default DefaultMaxResponseBytes); error bodies are read up to 1 MiB. A
// larger answer is an *APIError with its status matching
// ErrResponseTooLarge, and ErrMaybeSent too for a non-idempotent call.
func WithMaxResponseBytes(n int64) Option { return func(c *clientConfig) { c.maxBody = n } }

// WithLookupConcurrency bounds how many requests of one
// Lookup.NumberDetails call are in flight at once (default
// DefaultLookupConcurrency); 1 sends them one after another. It must be at
// least 1.
func WithLookupConcurrency(n int) Option { return func(c *clientConfig) { c.lookupInFlight = n } }

// DefaultMaxResponseBytes is the success-body cap without
// WithMaxResponseBytes, 16 MiB, counted after decompression; a call holds
// at most about that much of an answer. The largest page the service sends
// by default, 200 messages, is about 90 kB, and under 4 MB even if every
// text were 1,600 emoji written as JSON escapes (12 bytes each, about
// 19.6 kB a message); a page of 200 numbers, at about 1 kB a number, is
// about 200 kB. The cap leaves four times the worst such page, and room for
// a batch answer of thousands of ordinary messages; raise it for pages or
// batches far larger than the defaults.
const DefaultMaxResponseBytes = 16 << 20

// Ptr returns a pointer to v, for optional fields such as *bool.
func Ptr[T any](v T) *T { return &v }

// NewClient returns a Client that authenticates with HTTP Basic, the account
// SID as user name and the token as password. It fails on an empty SID or
// token, a base URL that is not absolute, and plain http to a host that is
// not loopback (unless WithInsecureHTTP).
func NewClient(accountSid, token string, opts ...Option) (*Client, error) {
	cfg := clientConfig{baseURL: DefaultBaseURL, retry: DefaultRetryPolicy(), validate: true,
		maxBody: DefaultMaxResponseBytes, lookupInFlight: DefaultLookupConcurrency}
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
	base, err := checkBaseURL(cfg.baseURL, cfg.insecureHTTP)
	if err != nil {
		return nil, err
	}
	rp, err := cfg.retry.normalize()
	if err != nil {
		return nil, err
	}
	if cfg.attemptTimeout < 0 {
		return nil, errors.New("telco: NewClient: negative attempt timeout")
	}
	if cfg.attemptTimeout == 0 {
		cfg.attemptTimeout = DefaultAttemptTimeout
	}
	if cfg.maxBody <= 0 {
		return nil, errors.New("telco: NewClient: WithMaxResponseBytes needs a positive size")
	}
	if cfg.lookupInFlight < 1 {
		return nil, errors.New("telco: NewClient: WithLookupConcurrency needs at least 1")
	}
	if cfg.parallelPages == 0 {
		cfg.parallelPages = 1
	}
	if cfg.parallelPages < 1 || cfg.parallelPages > MaxParallelPages {
		return nil, fmt.Errorf("telco: NewClient: WithParallelPages needs 1 to %d", MaxParallelPages)
	}
	reconcile, err := cfg.reconcile.normalize()
	if err != nil {
		return nil, err
	}
	pool := poolClient(cfg.httpClient)
	hc, err := cfg.transportClient(pool)
	if err != nil {
		return nil, err
	}

	ua := "telco-go/" + Version
	if s := strings.TrimSpace(cfg.userAgent); s != "" {
		ua += " " + s
	}
	c := &Client{
		baseURL:        base,
		accountSid:     accountSid,
		auth:           basicAuth(accountSid, token),
		userAgent:      ua,
		logger:         cfg.logger,
		validate:       cfg.validate,
		retry:          rp,
		maxBody:        cfg.maxBody,
		lookupInFlight: cfg.lookupInFlight,
		parallelPages:  cfg.parallelPages,
		reconcile:      reconcile,
		scans:          newScanner(),
		ledger:         cfg.ledger,
		attemptTimeout: cfg.attemptTimeout,
		pool:           pool,
		limiter:        cfg.limiter,
	}
	if c.ledger == nil {
		c.ledger = scopedLedger{ledgerScope(base, accountSid)}
	}
	c.rc = c.newRetryClient(sendingClient(hc, cfg.attemptTimeout))
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
	c.Flows = (*FlowsService)(&c.common)
	c.Calls = (*CallsService)(&c.common)
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
