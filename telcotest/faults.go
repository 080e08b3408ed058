package telcotest

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"
)

// FaultKind says how an injected fault breaks a request.
type FaultKind int

const (
	// FaultStatus answers with Fault.Status and Fault.Body (by default the
	// service's error envelope), without acting on the request;
	// Fault.RetryAfter, when set, is sent as the Retry-After header.
	FaultStatus FaultKind = iota + 1
	// FaultDropBeforeRead closes the connection after the request line and
	// headers arrived but before the body is read or acted on: the server
	// stores nothing, the client sees a reset or EOF after writing.
	FaultDropBeforeRead
	// FaultDropAfterRead handles the request in full (it takes effect and
	// is stored) and then closes the connection without answering.
	FaultDropAfterRead
	// FaultLatency waits Fault.Delay, or until the client hangs up, then
	// handles the request normally: it takes effect even when the client
	// gave up. Use WaitIdle before counting what was stored.
	FaultLatency
	// FaultTruncateBody handles the request in full and, when the answer is
	// a success, sends its headers (Content-Length included) and only the
	// first half of its body before closing the connection. Error answers
	// are sent whole.
	FaultTruncateBody
)

// String names the kind, for test names and failure messages.
func (k FaultKind) String() string {
	switch k {
	case 0:
		return "none"
	case FaultStatus:
		return "status"
	case FaultDropBeforeRead:
		return "drop-before-read"
	case FaultDropAfterRead:
		return "drop-after-read"
	case FaultLatency:
		return "latency"
	case FaultTruncateBody:
		return "truncate-body"
	}
	return "FaultKind(" + strconv.Itoa(int(k)) + ")"
}

// Fault is one injected failure, applied to a request that matches it.
// The zero values of Method, Path and Op match every request; a zero Kind
// claims the request but handles it normally.
type Fault struct {
	Kind FaultKind
	// Status is the HTTP status of a FaultStatus answer; 0, or anything
	// outside 100 to 999, answers 500.
	Status int
	// RetryAfter is the Retry-After header of a FaultStatus answer
	// (seconds or an HTTP date); empty sends none.
	RetryAfter string
	// Body is what a FaultStatus answer carries: the service's error
	// envelope (the zero value), an HTML page or nothing (see FaultBody).
	Body FaultBody
	// Delay is how long a FaultLatency request waits before it is handled.
	Delay time.Duration
	// VisibleAfter keeps the messages the request creates out of Find's
	// answers for this long after they are stored, as a service whose
	// reads lag its writes would; Messages and Get see them at once. It
	// applies to every kind that handles the request (FaultDropAfterRead,
	// FaultLatency, FaultTruncateBody and the zero Kind), and exercises
	// the settle time of SendOnce.
	VisibleAfter time.Duration

	// Method restricts the fault to requests with this method (any case).
	Method string
	// Path restricts the fault to one path, compared segment by segment
	// without regard to case; a {Name} segment matches any value, so a
	// route pattern such as "/v2/Properties/{PropertySid}/Messages" names
	// an operation.
	Path string
	// Op restricts the fault to one SDK operation, by its name in errors
	// and logs ("Messages.Send", "Properties.Update", ...): the requests
	// the server routes to that operation. See Ops.
	Op string
}

// matches reports whether the fault applies to a request with this
// method and these path segments; op is the operation the router gives the
// request ("" for none), so that Op names exactly what routing would run.
func (f *Fault) matches(method string, segs []string, op string) bool {
	if f.Method != "" && !strings.EqualFold(f.Method, method) {
		return false
	}
	if f.Path != "" && !pathMatches(splitPath(f.Path), segs) {
		return false
	}
	return f.Op == "" || f.Op == op
}

// pendingFault is a Fault with the number of requests it still applies to;
// id and armed are what ArmedFault shows (admin.go).
type pendingFault struct {
	Fault
	left      int
	id, armed int
}

// faultState is the Server's fault injection and request accounting, with
// its own lock so that a slow fault never holds the store's.
type faultState struct {
	mu        sync.Mutex
	pending   []*pendingFault
	lastID    int // the last pendingFault's id
	policy    func(method, path string) *Fault
	requests  int        // since the start or the last Reset
	log       requestLog // the most recent of them (requestlog.go)
	inflight  int
	idle      *sync.Cond
	closed    chan struct{}
	closeOnce sync.Once
}

func (fs *faultState) init() {
	fs.idle = sync.NewCond(&fs.mu)
	fs.closed = make(chan struct{})
}

// Inject makes the next n authenticated requests that match f fail as f
// says. Faults apply in the order they were injected; a request consumes
// at most one. A request that matches no pending fault is handled
// normally, and one with wrong credentials is answered 401 as usual.
func (s *Server) Inject(n int, f Fault) { s.armFault(n, f) }

// SetFaultPolicy makes fn decide, for every request that no injected fault
// claimed, whether it fails: fn gets the method and the escaped path and
// returns the fault to apply, or nil. fn is called under a lock, one
// request at a time, so a seeded math/rand source in it stays
// reproducible for a given order of requests. nil removes the policy.
func (s *Server) SetFaultPolicy(fn func(method, path string) *Fault) {
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	s.faults.policy = fn
}

// ClearFaults drops every pending fault and the fault policy.
func (s *Server) ClearFaults() {
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	s.faults.pending, s.faults.policy = nil, nil
}

// innerKey marks a request the fault hook is already handling, so that the
// recursive call that runs it does not consume another fault.
type innerKey struct{}

// applyFault is the hook at the top of serveHTTP. When a fault claims the
// request, it carries the fault out; it returns true when
// the request needs nothing more.
func (s *Server) applyFault(w http.ResponseWriter, r *http.Request, authorized bool) bool {
	if r.Context().Value(innerKey{}) != nil {
		return false
	}
	f := s.takeFault(r, authorized)
	if f == nil {
		return false
	}
	defer s.doneRequest()
	r = withVisibleAfter(r, f.VisibleAfter)
	switch f.Kind {
	case FaultStatus:
		writeFaultStatus(w, f) // faultbody.go
	case FaultDropBeforeRead:
		dropConnection(w)
	case FaultDropAfterRead:
		s.serveInner(httptest.NewRecorder(), r)
		dropConnection(w)
	case FaultLatency:
		// The wait ends early when the client hangs up (its attempt timed
		// out, say): the request is then handled all the same, as a slow
		// service would, and at once, so that tests need not sleep. The
		// body is read first: net/http notices a hang-up only after it.
		body, err := io.ReadAll(io.LimitReader(r.Body, 8<<20))
		if err != nil {
			dropConnection(w)
			return true
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		t := time.NewTimer(f.Delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
		case <-s.faults.closed:
			t.Stop()
		}
		s.serveInner(w, r)
	case FaultTruncateBody:
		rec := httptest.NewRecorder()
		s.serveInner(rec, r)
		res := rec.Result()
		body := rec.Body.Bytes()
		for k, v := range res.Header {
			w.Header()[k] = v
		}
		if res.StatusCode < 200 || res.StatusCode > 299 || len(body) < 2 {
			w.WriteHeader(res.StatusCode)
			_, _ = w.Write(body)
			return true
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(res.StatusCode)
		_, _ = w.Write(body[:len(body)/2])
		if fl, ok := w.(http.Flusher); ok {
			fl.Flush()
		}
		dropConnection(w)
	default:
		s.serveInner(w, r)
	}
	return true
}

// takeFault finds the fault that claims the request, if any (serveCounted
// has counted it); a claimed request is counted in flight until doneRequest. A request
// the server refuses (authorized false, serveHTTP's own check) uses up no
// fault.
func (s *Server) takeFault(r *http.Request, authorized bool) *Fault {
	fs := &s.faults
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if !authorized {
		return nil
	}
	// The path is split and routed only when a fault waits: most requests
	// of most tests meet none, and routing costs allocations.
	var segs []string
	var op string
	if len(fs.pending) > 0 {
		segs = requestSegs(r)
		op = opOf(r.Method, segs)
	}
	var f *Fault
	for i, p := range fs.pending {
		if !p.matches(r.Method, segs, op) {
			continue
		}
		cp := p.Fault
		f = &cp
		if p.left--; p.left == 0 {
			fs.pending = append(fs.pending[:i:i], fs.pending[i+1:]...)
		}
		break
	}
	if f == nil && fs.policy != nil {
		f = fs.policy(r.Method, r.URL.EscapedPath())
	}
	if f != nil {
		fs.inflight++
	}
	return f
}

func (s *Server) doneRequest() {
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	s.faults.inflight--
	if s.faults.inflight == 0 {
		s.faults.idle.Broadcast()
	}
}

// serveInner handles r as if no fault applied.
func (s *Server) serveInner(w http.ResponseWriter, r *http.Request) {
	s.serveHTTP(w, r.WithContext(context.WithValue(r.Context(), innerKey{}, true)))
}

// dropConnection closes the client's connection without an answer (or
// after what was already flushed).
func dropConnection(w http.ResponseWriter) {
	rc := http.NewResponseController(w)
	conn, _, err := rc.Hijack()
	if err != nil {
		// Cannot hijack (HTTP/2): abort the stream instead.
		panic(http.ErrAbortHandler)
	}
	_ = conn.Close()
}
