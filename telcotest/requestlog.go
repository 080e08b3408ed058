package telcotest

// What reached the fake, request by request: Requests counts them, and
// RequestRecords (GET /__telcotest/requests) lists the most recent, so
// that a test in any language can count what its client sent.

import (
	"net/http"
	"time"
)

// RequestHistory is how many requests RequestRecords keeps, the most
// recent; Requests counts them all. Each record costs about 150 bytes, so
// a load test of millions of requests holds a few MB of them.
const RequestHistory = 10000

// RequestRecord is one request that reached the fake, as Requests counts
// them: never a header, a query or a body.
type RequestRecord struct {
	Method string
	// Path is the request's escaped path, without its query.
	Path string
	// Op is the operation the fake routes the request to ("Messages.Send"),
	// "" for a path that names none.
	Op string
	// Status is the answer's status; 0 while the request is being handled
	// and when its connection was dropped without an answer (a fault).
	Status int
	// Time is when the request arrived, on the server's clock (its Clock's
	// under WithClock), as the Date header and message timestamps tell it.
	Time time.Time
}

// requestLog is the most recent requests, in arrival order. It lives in
// faultState, under its lock, beside the count.
type requestLog struct {
	recs  []RequestRecord
	first int // the number of recs[0]: requests count from 1
}

// RequestRecords returns the requests that reached the server, oldest
// first: the most recent RequestHistory of them. Requests to the admin API
// and to HealthPath are not among them, as Requests does not count them.
func (s *Server) RequestRecords() []RequestRecord {
	recs, _ := s.requestRecords()
	return recs
}

// requestRecords is RequestRecords and Requests, read together.
func (s *Server) requestRecords() ([]RequestRecord, int) {
	s.faults.mu.Lock()
	recs := s.faults.log.recs
	if len(recs) > RequestHistory {
		recs = recs[len(recs)-RequestHistory:]
	}
	out := append([]RequestRecord(nil), recs...)
	total := s.faults.requests
	s.faults.mu.Unlock()
	for i := range out {
		// Routed here rather than on arrival: most requests are never
		// listed, and routing allocates.
		out[i].Op = opOf(out[i].Method, splitUnescaped(out[i].Path))
	}
	return out, total
}

// arrive counts a request and records it, returning its number for
// answered.
func (s *Server) arrive(r *http.Request) int {
	now := s.now()
	fs := &s.faults
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.requests++
	l := &fs.log
	if len(l.recs) == 0 {
		l.first = fs.requests
	}
	l.recs = append(l.recs, RequestRecord{Method: r.Method, Path: r.URL.EscapedPath(), Time: now})
	if len(l.recs) >= 2*RequestHistory { // amortised: one copy per RequestHistory requests
		n := copy(l.recs, l.recs[len(l.recs)-RequestHistory:])
		clear(l.recs[n:])
		l.recs = l.recs[:n]
		l.first = fs.requests - n + 1
	}
	return fs.requests
}

// answered records the status of request n, if it is still held.
func (s *Server) answered(n, status int) {
	fs := &s.faults
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if i := n - fs.log.first; i >= 0 && i < len(fs.log.recs) {
		fs.log.recs[i].Status = status
	}
}

// serveCounted is the fake behind the admin API: health checks answered
// apart, every other request counted and recorded with its status.
func (s *Server) serveCounted(w http.ResponseWriter, r *http.Request) {
	if serveHealth(w, r) {
		return
	}
	n := s.arrive(r)
	rec := &statusRecorder{ResponseWriter: w}
	// Deferred, so that a request whose connection a fault drops (by
	// panicking with http.ErrAbortHandler, over HTTP/2) is finished too.
	defer func() { s.answered(n, rec.status) }()
	s.serveHTTP(rec, r)
}
