// Package telcotest is an in-memory, stateful fake of the telephony
// management service, for tests and demos. Like net/http/httptest, it
// serves on loopback:
//
//	srv := telcotest.NewServer()
//	defer srv.Close()
//	client := srv.Client()
//	msg, err := client.Messages.Send(ctx, srv.PropertySid, &telco.SendMessageParams{...})
//
// It serves every operation of the catalogue: Ops lists them, by the
// names the SDK gives them in errors and logs, which Fault.Op takes too.
// It reads each request into wire types of its own, with the names and
// JSON types of the service's documents rather than the SDK's encoding: a
// second reading of the wire, so that a field the SDK misnames or
// mistypes is refused (or, unknown, ignored) here as the service would.
// It enforces the service's rules with the service's error shapes and
// codes, checking values with the SDK's own rules (its Validate methods)
// and adding those only the service can know, such as who owns what. It
// answers wrong credentials with 401 and WWW-Authenticate: Basic, routes
// paths without regard to case, and is safe for concurrent use.
//
// Time comes from a Clock (WithClock) or, by default, the real clock. Sent
// messages move from Processing to Submitted SubmitDelay after their send
// (or schedule) time, then to Delivered DeliverDelay later when a delivery
// receipt was asked for. Leased senders last LeaseValidity. Webhooks go out
// asynchronously (Flush waits for them; Callbacks lists them). Several
// accounts can coexist (WithAccount, AddAccount); one account reaching
// another's resources is answered 403 FORBIDDEN.
//
// # Under load
//
// The fake keeps every message for as long as it runs. Measured live heap
// per stored message (TestMemoryPerStoredMessage): about 0.8 KiB for a sent
// message with a 60-character text, an ExternalId and a receipt URL, about
// 0.4 KiB for a received one; 100,000 sent messages hold about 80 MB.
// Answers are built under the store's lock and written after it, so a
// client that does not read a large page stalls nobody else. Webhooks go
// out through a bounded number of workers from a bounded queue, each with
// a time limit, and Callbacks keeps only the most recent ones, about 1 KiB
// each, 1,000 by default (CallbackLimits): a receiver that never answers costs the
// fake a fixed number of goroutines and connections, however many
// callbacks are due.
//
// # In CI
//
// WithAddr listens on any address, WithTLS serves HTTPS, WithRequestLog
// writes one line per request (never a credential), and GET /healthz
// (HealthPath) answers without credentials; WithAdmin serves an admin API
// under AdminPath, for clients in other languages, that does over HTTP
// what the Server's methods do (faults, Messages, RequestRecords,
// Receive, FailMessagesTo, SetPortingStatus, the Clock, Reset); `telco
// mock` uses them all. One server can serve a whole test suite:
// Checkpoint once it is seeded, Reset between tests.
package telcotest

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/telcosdk/telco"
)

// Server is a running fake service. Its exported fields are set by
// NewServer and must not be changed.
type Server struct {
	URL        string // base URL to hand to telco.WithBaseURL
	AccountSid string // the seeded account's credentials
	Token      string
	// PropertySid is a seeded project, enabled for SMS, so that tests can
	// send at once.
	PropertySid string

	srv *httptest.Server
	// tlsClient trusts the server's certificate when it serves TLS; nil
	// otherwise (serve.go).
	tlsClient *http.Client

	clock      *Clock // nil: real time
	stopListen func() // stops following clock
	hooks      *hooks
	faults     faultState // fault injection and request counts (faults.go)

	mu      sync.Mutex // guards everything below
	st      store
	seed    store // what Reset puts back (Checkpoint)
	closed  bool
	timer   *time.Timer // real time only: wakes catchUp when a message is due
	timerAt time.Time
}

// Account is one account of the fake: its credentials and a project
// seeded for it, enabled for SMS.
type Account struct {
	AccountSid  string
	Token       string
	PropertySid string
}

// ServerOption configures NewServer.
type ServerOption func(*serverConfig)

type serverConfig struct {
	accountSid, token string
	addr              string
	clock             *Clock
	more              [][2]string // further accounts: SID, token
	callbacks         CallbackLimits
	tls               bool             // WithTLS (serve.go)
	cert              *tls.Certificate // nil: httptest's own
	requestLog        io.Writer        // WithRequestLog (serve.go)
	admin             bool             // WithAdmin (admin.go)
}

// WithClock makes the server take every time it uses from c instead of the
// real clock, so that a test can move message statuses, scheduled sends
// and lease expiry along with c.Advance. Without it a server runs on the
// real clock, or with WithAdmin on a running Clock of its own
// (NewRunningClock), which the admin API moves.
func WithClock(c *Clock) ServerOption { return func(cfg *serverConfig) { cfg.clock = c } }

// WithAccount adds one more account, with its own seeded project (see
// Server.Account). Empty arguments are generated.
func WithAccount(accountSid, token string) ServerOption {
	return func(c *serverConfig) { c.more = append(c.more, [2]string{accountSid, token}) }
}

// WithCredentials sets the account SID and token the server accepts,
// instead of generated ones.
func WithCredentials(accountSid, token string) ServerOption {
	return func(c *serverConfig) { c.accountSid, c.token = accountSid, token }
}

// WithAddr makes the server listen on addr (host:port) instead of a random
// loopback port, as `telco mock --addr` does.
func WithAddr(addr string) ServerOption { return func(c *serverConfig) { c.addr = addr } }

// NewServer starts a fake service on loopback with one account and one
// project. It panics, as httptest.NewServer does, if it cannot listen.
func NewServer(opts ...ServerOption) *Server {
	s, err := startServer(opts)
	if err != nil {
		panic("telcotest: " + err.Error())
	}
	return s
}

// NewTestServer is NewServer for a test or benchmark: t.Cleanup closes the
// server when the test and its subtests end, and a server that cannot
// listen fails the test with t.Fatal instead of panicking.
func NewTestServer(t testing.TB, opts ...ServerOption) *Server {
	t.Helper()
	s, err := startServer(opts)
	if err != nil {
		t.Fatalf("telcotest: %v", err)
		return nil // reached only with a testing.TB whose Fatalf returns
	}
	t.Cleanup(s.Close)
	return s
}

// startServer is NewServer, returning the error of a failed listen.
func startServer(opts []ServerOption) (*Server, error) {
	cfg := serverConfig{}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	if cfg.accountSid == "" {
		cfg.accountSid = newSid("AC")
	}
	if cfg.token == "" {
		cfg.token = randomToken()
	}
	if cfg.admin && cfg.clock == nil {
		// The admin API moves the clock (POST /__telcotest/clock).
		cfg.clock = NewRunningClock()
	}
	s := &Server{AccountSid: cfg.accountSid, Token: cfg.token, clock: cfg.clock, hooks: newHooks(cfg.callbacks)}
	s.st = newStore(cfg.accountSid)
	s.faults.init()
	s.PropertySid = s.st.addAccount(cfg.accountSid, cfg.token).PropertySid
	for _, a := range cfg.more {
		s.AddAccount(a[0], a[1])
	}
	s.Checkpoint()
	if s.clock != nil {
		s.stopListen = s.clock.listen(s.catchUp)
	}

	s.srv = httptest.NewUnstartedServer(s.handler(&cfg))
	if cfg.addr != "" {
		s.srv.Listener.Close()
		ln, err := net.Listen("tcp", cfg.addr)
		if err != nil {
			if s.stopListen != nil {
				s.stopListen()
			}
			s.hooks.close()
			return nil, fmt.Errorf("listen on %s: %w", cfg.addr, err)
		}
		s.srv.Listener = ln
	}
	if cfg.tls {
		s.startTLS(&cfg)
	} else {
		s.srv.Start()
	}
	s.URL = s.srv.URL
	return s, nil
}

// Client returns a client for this server, with the seeded credentials,
// short retry waits (1 to 10 ms) and a short ReconcilePolicy (a settle time
// of 25 ms, 2 s of clock skew) so that tests of retries and of a SendOnce
// that may have sent stay fast (a maybe-sent SendOnce resolves in well
// under a second), and, for a server with WithTLS, an HTTP client that
// trusts its certificate. opts are applied after these and may replace
// them: give a longer telco.WithReconcilePolicy when a Fault's
// VisibleAfter exceeds the settle time.
func (s *Server) Client(opts ...telco.Option) *telco.Client {
	all := append(s.clientOptions(), opts...)
	c, err := telco.NewClient(s.AccountSid, s.Token, all...)
	if err != nil {
		panic("telcotest: " + err.Error()) // only a bad option can cause this
	}
	return c
}

// Close shuts the server down, waits for requests in flight and for
// webhooks queued and in flight (CallbackTimeout in all, or
// CallbackLimits.Timeout; those unfinished then fail), and stops following
// the clock. No webhook starts after Close. Delays of injected latency
// faults end early.
func (s *Server) Close() {
	s.faults.closeOnce.Do(func() { close(s.faults.closed) })
	s.srv.Close()
	if s.tlsClient != nil {
		s.tlsClient.CloseIdleConnections()
	}
	if s.stopListen != nil {
		s.stopListen()
	}
	s.mu.Lock()
	s.closed = true
	if s.timer != nil {
		s.timer.Stop()
	}
	s.mu.Unlock()
	s.hooks.close()
}

// AddAccount adds an account with its own seeded project, enabled for SMS,
// and returns it. Empty arguments are generated. Adding a SID that exists
// returns the existing account unchanged.
func (s *Server) AddAccount(accountSid, token string) Account {
	if accountSid == "" {
		accountSid = newSid("AC")
	}
	if token == "" {
		token = randomToken()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if a, ok := s.st.accounts[accountSid]; ok {
		return *a
	}
	return *s.st.addAccount(accountSid, token)
}

// Account returns the account with the SID, and whether there is one.
func (s *Server) Account(accountSid string) (Account, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.st.accounts[accountSid]
	if !ok {
		return Account{}, false
	}
	return *a, true
}

// ClientFor is Client for another account of the server. It panics when
// the server has no such account.
func (s *Server) ClientFor(accountSid string, opts ...telco.Option) *telco.Client {
	a, ok := s.Account(accountSid)
	if !ok {
		panic("telcotest: no account " + accountSid)
	}
	all := append(s.clientOptions(), opts...)
	c, err := telco.NewClient(a.AccountSid, a.Token, all...)
	if err != nil {
		panic("telcotest: " + err.Error())
	}
	return c
}

// now is the server's time: its Clock's, or the real one.
func (s *Server) now() time.Time {
	if s.clock != nil {
		return s.clock.Now()
	}
	return time.Now()
}

// authenticate returns the account the credentials belong to, or nil.
func (s *Server) authenticate(user, pass string) *Account {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.st.accounts[user]
	if a == nil || subtle.ConstantTimeCompare([]byte(a.Token), []byte(pass)) != 1 {
		return nil
	}
	return a
}

// authenticateRequest is authenticate with the request's Basic
// credentials, nil when it has none. It reads the header as
// r.BasicAuth does, without allocating: the fake authenticates every
// request, and its throughput is measured against a stub's.
func (s *Server) authenticateRequest(r *http.Request) *Account {
	const prefix = "Basic "
	auth := r.Header.Get("Authorization")
	if len(auth) < len(prefix) || !strings.EqualFold(auth[:len(prefix)], prefix) {
		return nil
	}
	var src [344]byte // 256 bytes decoded
	var buf [256]byte
	enc := auth[len(prefix):]
	if len(enc) > len(src) {
		user, pass, ok := r.BasicAuth() // long credentials: the general path
		if !ok {
			return nil
		}
		return s.authenticate(user, pass)
	}
	n, err := base64.StdEncoding.Decode(buf[:], src[:copy(src[:], enc)])
	if err != nil {
		return nil
	}
	cred := buf[:n]
	i := bytes.IndexByte(cred, ':')
	if i < 0 {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.st.accounts[string(cred[:i])]
	if a == nil || subtle.ConstantTimeCompare([]byte(a.Token), cred[i+1:]) != 1 {
		return nil
	}
	return a
}

type callerKey struct{}

// caller is the SID of the account that made the request.
func caller(r *http.Request) string {
	sid, _ := r.Context().Value(callerKey{}).(string)
	return sid
}

// forbidden answers a request for another account's resource.
func forbidden(w http.ResponseWriter, what string) {
	writeError(w, http.StatusForbidden, telco.CodeForbidden, "The "+what+" belongs to another account.")
}

// FailNext makes the server answer the next n authenticated requests with
// status and an error body, to exercise retries. It is Inject with a
// FaultStatus.
func (s *Server) FailNext(n, status int) {
	s.Inject(n, Fault{Kind: FaultStatus, Status: status})
}

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	// The Date header tells clients the fake's time (its Clock's, when it
	// has one), as SendOnce reads the service's to place its windows.
	h := w.Header()
	h.Set("Date", s.now().UTC().Format(http.TimeFormat))
	// A request id on every answer, for telco.CallInfo to read; the
	// service's documents name no such header.
	h["X-Request-Id"] = []string{newSid("RQ")}
	// Authenticated once, here: a refused request takes no fault.
	acct := s.authenticateRequest(r)
	if s.applyFault(w, r, acct != nil) {
		return
	}
	if acct == nil {
		w.Header().Set("WWW-Authenticate", `Basic realm="telcotest"`)
		writeError(w, http.StatusUnauthorized, "UNAUTHORIZED", "The account SID or token is wrong.")
		return
	}
	raw := r.URL.EscapedPath()
	parts := requestSegs(r)
	rt, params, status := match(r.Method, parts)
	switch status {
	case http.StatusNotFound:
		writeError(w, status, "NOT_FOUND", fmt.Sprintf("No operation at %s.", raw))
		return
	case http.StatusMethodNotAllowed:
		w.Header().Set("Allow", strings.Join(allowed(parts), ", "))
		writeError(w, status, "METHOD_NOT_ALLOWED", fmt.Sprintf("%s is not allowed on %s.", r.Method, raw))
		return
	}
	if acc, ok := params["AccountSid"]; ok && acc != acct.AccountSid {
		if _, known := s.Account(acc); known {
			forbidden(w, "account")
			return
		}
		writeError(w, http.StatusBadRequest, telco.CodeAccountNotFound, "The account was not found.")
		return
	}
	r = r.WithContext(context.WithValue(r.Context(), callerKey{}, acct.AccountSid))
	// Handlers build their answers under the store's lock; they write them
	// into memory, and the answer goes out once they have let go of it.
	// Written straight to the connection, a large page a client did not
	// read would hold the lock, and every other request, until it did.
	ans := &answer{header: w.Header()}
	rt.handle(s, ans, r, params)
	ans.writeTo(w)
}

// answer is a ResponseWriter that keeps the status and body in memory
// until writeTo. Headers go straight to the real writer's map: nothing is
// sent before its WriteHeader.
type answer struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (a *answer) Header() http.Header { return a.header }

func (a *answer) WriteHeader(status int) {
	if a.status == 0 {
		a.status = status
	}
}

func (a *answer) Write(p []byte) (int, error) {
	a.WriteHeader(http.StatusOK)
	return a.body.Write(p)
}

// writeTo sends the answer; a handler that wrote nothing leaves w alone,
// as net/http would. A body that fits net/http's buffer before chunking
// (2 KiB) gets its Content-Length from net/http, which adds it without
// allocating when the handler returns; a larger one gets it here, so that
// it is not chunked.
func (a *answer) writeTo(w http.ResponseWriter) {
	if a.status == 0 {
		return
	}
	if a.body.Len() > 2048 && w.Header().Get("Content-Length") == "" {
		w.Header().Set("Content-Length", strconv.Itoa(a.body.Len()))
	}
	w.WriteHeader(a.status)
	_, _ = w.Write(a.body.Bytes())
}

// wireStatus is the service's error envelope.
type wireStatus struct {
	ErrorCode string             `json:"ErrorCode"`
	Message   string             `json:"Message"`
	Errors    []telco.FieldError `json:"Errors,omitempty"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, code, msg string, fields ...telco.FieldError) {
	writeJSON(w, status, struct {
		ResponseStatus wireStatus `json:"ResponseStatus"`
	}{wireStatus{ErrorCode: code, Message: msg, Errors: fields}})
}

// writeInvalid answers a failed Validate as the service would: 400 with the
// first problem's code and message and every field.
func writeInvalid(w http.ResponseWriter, err error) {
	var ve *telco.ValidationError
	if errors.As(err, &ve) && len(ve.Fields) > 0 {
		f := ve.Fields[0]
		writeError(w, http.StatusBadRequest, f.Code, f.Message, ve.Fields...)
		return
	}
	writeError(w, http.StatusBadRequest, telco.CodeParameterInvalid, err.Error())
}

func fieldError(code, field, msg string) telco.FieldError {
	return telco.FieldError{Code: code, FieldName: field, Message: msg}
}

// writeField answers 400 for one field.
func writeField(w http.ResponseWriter, code, field, msg string) {
	writeError(w, http.StatusBadRequest, code, msg, fieldError(code, field, msg))
}

// notFound answers a missing resource as the service answers every failed
// operation: status 400, with the resource's *_NOT_FOUND code. Only a path
// that names no operation at all is a 404.
func notFound(w http.ResponseWriter, what string) {
	code := strings.ToUpper(strings.ReplaceAll(what, " ", "_")) + "_NOT_FOUND"
	writeError(w, http.StatusBadRequest, code, "The "+what+" was not found.")
}

// decodeBody reads a JSON object into v, one of the fake's wire types,
// answering 400 with a serialization error when it cannot. A form body is
// refused: these operations take JSON only.
func decodeBody(w http.ResponseWriter, r *http.Request, v any) bool {
	return readBody(w, r, func(body []byte) error { return json.Unmarshal(body, v) })
}

// readBody is decodeBody with the decoding left to decode, which gets the
// body ("{}" for an empty one).
func readBody(w http.ResponseWriter, r *http.Request, decode func(body []byte) error) bool {
	if isForm(r.Header.Get("Content-Type")) {
		writeError(w, http.StatusBadRequest, "SerializationException",
			"This operation accepts only application/json bodies.")
		return false
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 4<<20))
	if err == nil {
		if len(bytes.TrimSpace(body)) == 0 {
			body = []byte("{}")
		}
		err = decode(body)
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, "SerializationException",
			"Could not deserialize 'application/json' request: "+err.Error())
		return false
	}
	return true
}

// isForm reports whether a Content-Type names a form body, as
// mime.ParseMediaType reads it; it calls ParseMediaType only when the
// type could be one (the common JSON body then costs no allocation).
func isForm(contentType string) bool {
	const form = "application/x-www-form-urlencoded"
	base, _, _ := strings.Cut(contentType, ";")
	if !strings.EqualFold(strings.TrimSpace(base), form) {
		return false
	}
	mt, _, _ := mime.ParseMediaType(contentType)
	return mt == form
}

const sidAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// newSid makes a secure identifier: prefix and upper-case alphanumerics, 32
// characters in all.
func newSid(prefix string) string {
	var buf [32]byte
	b := buf[:max(32-len(prefix), 0)]
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = sidAlphabet[int(b[i])%len(sidAlphabet)]
	}
	return prefix + string(b)
}

func newUUID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

func randomToken() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// decodeFlat is decodeBody for operations whose encoding the service does
// not show (number configuration, addresses): it also reads an
// application/x-www-form-urlencoded body, whose fields are all strings
// there, taking the first value of each.
func decodeFlat(w http.ResponseWriter, r *http.Request, v any) bool {
	if !isForm(r.Header.Get("Content-Type")) {
		return decodeBody(w, r, v)
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 4<<20))
	var form url.Values
	if err == nil {
		form, err = url.ParseQuery(string(body))
	}
	if err == nil {
		flat := make(map[string]string, len(form))
		for k, vs := range form {
			flat[k] = vs[0]
		}
		b, _ := json.Marshal(flat)
		err = json.Unmarshal(b, v)
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, "SerializationException",
			"Could not deserialize 'application/x-www-form-urlencoded' request: "+err.Error())
		return false
	}
	return true
}
