package telcotest

// Serving the fake where CI runs it: over TLS, with a health check for
// orchestrators and a request log for reading a failed job.

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/telcosdk/telco"
)

// HealthPath answers GET (and HEAD) with 200 and {"status":"ok"} without
// credentials, for a container's health check or a CI job waiting for the
// fake to listen. It is not an operation of the service: it counts as no
// request and uses up no injected fault.
const HealthPath = "/healthz"

// WithTLS makes the server serve HTTPS with cert, its chain first leaf
// then issuers, and its URL begin with https://. A nil cert uses
// net/http/httptest's built-in certificate, valid for 127.0.0.1, ::1 and
// example.com. Server.Client trusts every certificate of the chain, so
// that a test can use it as it is; other clients need the issuer's
// certificate, as `telco mock --tls --ca-file` writes it.
func WithTLS(cert *tls.Certificate) ServerOption {
	return func(c *serverConfig) {
		c.tls = true
		c.cert = cert
	}
}

// WithRequestLog writes one line per request to w, once it has been
// answered: the time, method, path (without the query), status, duration
// and, for an operation of the service, its name:
//
//	2025-03-04T05:06:07.089Z POST /v2/Properties/PR.../Messages 200 1.2ms Messages.Send
//
// Headers and bodies are never written, so neither credentials nor
// passwords reach the log. Writes to w are serialised.
func WithRequestLog(w io.Writer) ServerOption { return func(c *serverConfig) { c.requestLog = w } }

// serveHealth answers HealthPath, and reports whether r was for it.
func serveHealth(w http.ResponseWriter, r *http.Request) bool {
	if r.URL.Path != HealthPath || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
		return false
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodGet {
		_, _ = io.WriteString(w, `{"status":"ok"}`+"\n")
	}
	return true
}

// handler returns the server's http.Handler: serveHTTP, each request
// counted (serveCounted), behind the admin API and logged when cfg asks
// for them.
func (s *Server) handler(cfg *serverConfig) http.Handler {
	h := http.Handler(http.HandlerFunc(s.serveCounted))
	if cfg.admin {
		h = s.adminHandler(h)
	}
	if cfg.requestLog != nil {
		h = &requestLogger{next: h, out: cfg.requestLog}
	}
	return h
}

// startTLS starts s.srv over TLS with cfg's certificate, or httptest's,
// and makes tlsClient, the *http.Client that Client and ClientFor hand
// the SDK: one that trusts the server's certificates.
func (s *Server) startTLS(cfg *serverConfig) {
	if cfg.cert != nil {
		s.srv.TLS = &tls.Config{Certificates: []tls.Certificate{*cfg.cert}, MinVersion: tls.VersionTLS12}
	}
	s.srv.StartTLS()
	roots := x509.NewCertPool()
	if cfg.cert == nil {
		roots.AddCert(s.srv.Certificate())
	} else {
		for _, der := range cfg.cert.Certificate {
			if c, err := x509.ParseCertificate(der); err == nil {
				roots.AddCert(c)
			}
		}
	}
	s.tlsClient = &http.Client{Transport: &http.Transport{
		TLSClientConfig:     &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12},
		MaxIdleConnsPerHost: 32,
	}}
}

// fastReconcile is the ReconcilePolicy of Client and ClientFor: the fake
// shows a message in searches as soon as it stores it (unless a fault's
// VisibleAfter says otherwise) and stamps it with the clock its Date header
// tells, so a short settle time and a small skew margin resolve a
// maybe-sent SendOnce in a few tens of milliseconds.
var fastReconcile = telco.ReconcilePolicy{SettleTime: 25 * time.Millisecond, MaxRounds: 3, ClockSkew: 2 * time.Second}

// clientOptions are the options Client and ClientFor start from.
func (s *Server) clientOptions() []telco.Option {
	opts := []telco.Option{
		telco.WithBaseURL(s.URL),
		telco.WithRetryPolicy(telco.RetryPolicy{MaxRetries: 3, MinWait: time.Millisecond, MaxWait: 10 * time.Millisecond}),
		telco.WithReconcilePolicy(fastReconcile),
	}
	if s.tlsClient != nil {
		opts = append(opts, telco.WithHTTPClient(s.tlsClient))
	}
	return opts
}

// requestLogger is WithRequestLog's handler.
type requestLogger struct {
	next http.Handler
	mu   sync.Mutex
	out  io.Writer
}

func (l *requestLogger) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	rec := &statusRecorder{ResponseWriter: w}
	// Deferred, so that a request whose connection a fault drops (by
	// hijacking it, or by panicking with http.ErrAbortHandler) is logged too.
	defer func() {
		status := "-" // no answer: the connection was dropped
		if rec.status != 0 {
			status = fmt.Sprint(rec.status)
		}
		line := fmt.Sprintf("%s %s %s %s %s", start.UTC().Format("2006-01-02T15:04:05.000Z"),
			r.Method, r.URL.EscapedPath(), status, time.Since(start).Round(100*time.Microsecond))
		if op := opOf(r.Method, requestSegs(r)); op != "" {
			line += " " + op
		}
		l.mu.Lock()
		defer l.mu.Unlock()
		_, _ = io.WriteString(l.out, line+"\n")
	}()
	l.next.ServeHTTP(rec, r)
}

// statusRecorder remembers the status written through it. Unwrap lets
// http.ResponseController reach the connection (faults hijack it).
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
	r.ResponseWriter.WriteHeader(status)
}

func (r *statusRecorder) Write(p []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.ResponseWriter.Write(p)
}

// Flush passes a flush on, for faults that trickle an answer.
func (r *statusRecorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
