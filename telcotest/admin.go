package telcotest

// The admin API: telcotest's hooks over HTTP, for clients that are not Go.
// This file holds its routing, its authentication and its faults;
// adminhooks.go the rest of its endpoints.
//
// Server.Inject reaches only code in the same process. A Java or C# test
// suite pointed at `telco mock` arms the same faults with small JSON
// requests under AdminPath, authenticated as the server's first account.
// One reading of a fault serves both that JSON and `telco mock --fault`
// (ParseFault): faultSpec takes each key as text and checks the whole.
//
// Admin requests are answered in front of the fake's own handler, so they
// are never counted by Requests, never consume a fault and are never
// dropped by one: a fault armed for every request cannot lock the admin
// API out.

import (
	"bytes"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// AdminPath is the prefix of the admin API that WithAdmin serves. No
// operation of the service lives under it (they all live under /v2/);
// without WithAdmin a request for it is answered as any unknown path.
const AdminPath = "/__telcotest/"

// WithAdmin serves the admin API under AdminPath, so that a process that
// cannot call the Server's methods (a test suite in another language,
// pointed at `telco mock`) can do over HTTP what a Go test does with
// them: arm faults, read what the fake holds and what reached it, make it
// receive an SMS, move its clock, and reset it between tests. Every
// request needs HTTP Basic credentials of the server's first account
// (AccountSid and Token; another account's are refused), else 401 with
// WWW-Authenticate. Bodies are JSON objects, their keys matched without
// regard to case, unknown keys refused; lists come wrapped in an object;
// times are RFC 3339 in UTC with milliseconds; errors are
// {"error": "..."} with 400, 401, 404 or 405. A server with WithAdmin
// runs on a Clock: WithClock's, else a running one (NewRunningClock).
//
//	GET    /__telcotest/                  {"endpoints": [{"method", "path", "description"}, ...]}: this list
//	GET    /__telcotest/faults            {"faults": [fault, ...]}: the armed faults, in the order they apply
//	POST   /__telcotest/faults            arm the fault in the body; 201 with it, its id filled in
//	DELETE /__telcotest/faults            clear every fault (and a fault policy): {"cleared": n}
//	GET    /__telcotest/faults/{id}       one armed fault; 404 once it is used up or cleared
//	DELETE /__telcotest/faults/{id}       clear one: {"cleared": 1}; 404 as GET
//	GET    /__telcotest/ops               {"ops": [...]}: the names "op" takes (Ops)
//	GET    /__telcotest/messages          {"messages": [message, ...]}: every message, as the service writes it;
//	                                      ?property_sid= &direction= &external_id= filter
//	GET    /__telcotest/requests          {"requests": [{"method", "path", "op", "status", "time"}, ...], "total": n}
//	                                      (RequestRecords, Requests)
//	POST   /__telcotest/inbound           {"property_sid", "from", "to", "text"}: an SMS received, as Receive;
//	                                      201 with the message
//	GET    /__telcotest/message-failures  {"message_failures": [{"to"}, ...]}: the numbers given to FailMessagesTo
//	POST   /__telcotest/message-failures  {"to"}: as FailMessagesTo; 201
//	POST   /__telcotest/porting-status    {"porting_no", "status"}: as SetPortingStatus; the request, as the
//	                                      service writes it
//	GET    /__telcotest/clock             {"now": "2030-01-02T03:04:05.000Z"}: the server's time
//	POST   /__telcotest/clock             {"advance_ms": n}: move the clock n ms ahead, as Clock.Advance; {"now"}
//	POST   /__telcotest/reset             back to the Checkpoint, as Reset:
//	                                      {"cleared": {"messages", "requests", "callbacks", "faults"}}
//
// A fault is an object with the keys ParseFault documents; an armed one
// also has "id" and "remaining", the requests it still applies to:
//
//	{"kind": "status", "status": 503, "retry_after": "2", "op": "Messages.Send", "count": 3}
func WithAdmin() ServerOption { return func(c *serverConfig) { c.admin = true } }

// ArmedFault is an injected fault that still applies to requests.
type ArmedFault struct {
	// ID numbers the server's injections from 1, in the order they were
	// made; the admin API names a fault by it.
	ID    int
	Fault Fault
	// Count is how many requests the fault was injected for, Remaining
	// how many it still applies to.
	Count, Remaining int
}

// Faults lists the injected faults that still apply to requests, in the
// order they apply (see Inject).
func (s *Server) Faults() []ArmedFault {
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	out := make([]ArmedFault, 0, len(s.faults.pending))
	for _, p := range s.faults.pending {
		out = append(out, p.armedFault())
	}
	return out
}

func (p *pendingFault) armedFault() ArmedFault {
	return ArmedFault{ID: p.id, Fault: p.Fault, Count: p.armed, Remaining: p.left}
}

// armFault is Inject, returning what it armed (the zero ArmedFault for n <= 0).
func (s *Server) armFault(n int, f Fault) ArmedFault {
	if n <= 0 {
		return ArmedFault{}
	}
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	s.faults.lastID++
	p := &pendingFault{Fault: f, left: n, id: s.faults.lastID, armed: n}
	s.faults.pending = append(s.faults.pending, p)
	return p.armedFault()
}

// disarm removes the fault with the id, reporting whether it was armed.
func (s *Server) disarm(id int) bool {
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	for i, p := range s.faults.pending {
		if p.id == id {
			s.faults.pending = slices.Delete(s.faults.pending, i, i+1)
			return true
		}
	}
	return false
}

// clearCounted is ClearFaults, returning how many faults it dropped.
func (s *Server) clearCounted() int {
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	n := len(s.faults.pending)
	s.faults.pending, s.faults.policy = nil, nil
	return n
}

// faultKinds are the kinds by their String, in the order errors list them.
var faultKinds = []FaultKind{0, FaultStatus, FaultDropBeforeRead, FaultDropAfterRead, FaultLatency, FaultTruncateBody}

// faultKeys are the keys of a fault, for ParseFault and the admin API.
var faultKeys = []string{"kind", "count", "op", "method", "path", "status", "retry_after", "body", "delay_ms", "visible_after_ms"}

// ParseFault reads a fault as `telco mock --fault` takes it: key=value
// pairs separated by commas, with the keys of the admin API's JSON (a dash
// may stand for an underscore):
//
//	kind=status,status=503,retry_after=2,op=Messages.Send,count=3
//
// It returns the fault and the number of requests it is for. The keys:
//
//   - kind (required): none (handle the request normally, with
//     visible_after_ms), status, drop-before-read, drop-after-read,
//     latency or truncate-body (see FaultKind).
//   - count: how many matching requests the fault applies to (default 1).
//   - op, method, path: which requests match (see Fault); op is one of Ops.
//   - status (kind status): 400 to 599, default 500; retry_after: whole
//     seconds or an HTTP date; body: service (default), html or empty.
//   - delay_ms (kind latency, required): how long the request waits.
//   - visible_after_ms (kinds that handle the request: none,
//     drop-after-read, latency, truncate-body): see Fault.VisibleAfter.
//
// A value holds no comma, except an HTTP date, whose own commas are kept.
func ParseFault(spec string) (Fault, int, error) {
	var sp faultSpec
	var pairs []string
	for _, part := range strings.Split(spec, ",") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		// A part without "=" continues the value before it: the comma of
		// "Wed, 21 Oct 2026 07:28:00 GMT".
		if !strings.Contains(part, "=") && len(pairs) > 0 {
			pairs[len(pairs)-1] += "," + part
			continue
		}
		pairs = append(pairs, part)
	}
	for _, pair := range pairs {
		k, v, ok := strings.Cut(pair, "=")
		if !ok {
			return Fault{}, 0, fmt.Errorf("telcotest: ParseFault: %w", fmt.Errorf("%q is not key=value", pair))
		}
		if err := sp.set(k, strings.TrimSpace(v)); err != nil {
			return Fault{}, 0, fmt.Errorf("telcotest: ParseFault: %w", err)
		}
	}
	f, n, err := sp.fault()
	if err != nil {
		return Fault{}, 0, fmt.Errorf("telcotest: ParseFault: %w", err)
	}
	return f, n, nil
}

// faultSpec gathers a fault key by key, each given as text.
type faultSpec struct {
	f     Fault
	count int
	given []string // the keys set so far
}

func (sp *faultSpec) has(key string) bool { return slices.Contains(sp.given, key) }

// set reads one key.
func (sp *faultSpec) set(key, val string) error {
	key = strings.ReplaceAll(strings.ToLower(strings.TrimSpace(key)), "-", "_")
	if !slices.Contains(faultKeys, key) {
		return fmt.Errorf("unknown key %q (the keys: %s)", key, strings.Join(faultKeys, ", "))
	}
	if sp.has(key) {
		return fmt.Errorf("%s is given twice", key)
	}
	sp.given = append(sp.given, key)
	switch key {
	case "kind":
		name := strings.ReplaceAll(strings.ToLower(val), "_", "-")
		i := slices.IndexFunc(faultKinds, func(k FaultKind) bool { return k.String() == name })
		if i < 0 {
			return fmt.Errorf("kind %q is not one of %s", val, kindNames())
		}
		sp.f.Kind = faultKinds[i]
	case "count":
		n, err := strconv.Atoi(val)
		if err != nil || n < 1 {
			return fmt.Errorf("count must be a whole number of requests, at least 1 (got %q)", val)
		}
		sp.count = n
	case "op":
		if !slices.Contains(Ops(), val) {
			return fmt.Errorf("op %q is no operation of the fake (GET %sops lists them)", val, AdminPath)
		}
		sp.f.Op = val
	case "method":
		if val == "" || strings.IndexFunc(val, func(r rune) bool { return (r < 'A' || r > 'Z') && (r < 'a' || r > 'z') }) >= 0 {
			return fmt.Errorf("method must be an HTTP method such as POST (got %q)", val)
		}
		sp.f.Method = strings.ToUpper(val)
	case "path":
		if !strings.HasPrefix(val, "/") {
			return fmt.Errorf("path must start with / (got %q)", val)
		}
		sp.f.Path = val
	case "status":
		n, err := strconv.Atoi(val)
		if err != nil || n < 400 || n > 599 {
			return fmt.Errorf("status must be an error status, 400 to 599 (got %q)", val)
		}
		sp.f.Status = n
	case "retry_after":
		if _, err := strconv.ParseUint(val, 10, 31); err != nil {
			if _, err := http.ParseTime(val); err != nil {
				return fmt.Errorf("retry_after must be whole seconds or an HTTP date (got %q)", val)
			}
		}
		sp.f.RetryAfter = val
	case "body":
		i := slices.IndexFunc(faultBodies, func(b FaultBody) bool { return b.String() == strings.ToLower(val) })
		if i < 0 {
			return fmt.Errorf("body %q is not one of service, html, empty", val)
		}
		sp.f.Body = faultBodies[i]
	case "delay_ms", "visible_after_ms":
		ms, err := strconv.ParseInt(val, 10, 64)
		if err != nil || ms < 0 || ms > int64(24*time.Hour/time.Millisecond) {
			return fmt.Errorf("%s must be whole milliseconds, 0 to a day (got %q)", key, val)
		}
		if key == "delay_ms" {
			sp.f.Delay = time.Duration(ms) * time.Millisecond
		} else {
			sp.f.VisibleAfter = time.Duration(ms) * time.Millisecond
		}
	}
	return nil
}

// fault checks that the keys given fit together and returns the fault and
// its count.
func (sp *faultSpec) fault() (Fault, int, error) {
	if !sp.has("kind") {
		return Fault{}, 0, fmt.Errorf("kind is required: one of %s", kindNames())
	}
	k := sp.f.Kind
	for _, key := range []string{"status", "retry_after", "body"} {
		if sp.has(key) && k != FaultStatus {
			return Fault{}, 0, fmt.Errorf("%s applies to kind status only, not %s", key, k)
		}
	}
	if sp.has("delay_ms") != (k == FaultLatency) {
		if k == FaultLatency {
			return Fault{}, 0, errors.New("kind latency needs delay_ms")
		}
		return Fault{}, 0, fmt.Errorf("delay_ms applies to kind latency only, not %s", k)
	}
	if sp.has("visible_after_ms") && (k == FaultStatus || k == FaultDropBeforeRead) {
		return Fault{}, 0, fmt.Errorf("visible_after_ms applies to kinds that handle the request (none, drop-after-read, latency, truncate-body), not %s", k)
	}
	if k == FaultStatus && sp.f.Status == 0 {
		sp.f.Status = http.StatusInternalServerError
	}
	if sp.count == 0 {
		sp.count = 1
	}
	return sp.f, sp.count, nil
}

func kindNames() string {
	names := make([]string, len(faultKinds))
	for i, k := range faultKinds {
		names[i] = k.String()
	}
	return strings.Join(names, ", ")
}

// decodeFault reads a fault from the admin API's JSON object: each value
// a string or a number, taken as its text; null as absent.
func decodeFault(body []byte) (Fault, int, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(body, &obj); err != nil || obj == nil {
		return Fault{}, 0, errors.New(`the body must be one JSON object, such as {"kind": "status", "status": 503}`)
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys) // the same error for the same body
	var sp faultSpec
	for _, k := range keys {
		raw := bytes.TrimSpace(obj[k])
		var val string
		switch {
		case bytes.Equal(raw, []byte("null")):
			continue
		case raw[0] == '"':
			if err := json.Unmarshal(raw, &val); err != nil {
				return Fault{}, 0, fmt.Errorf("%s: %v", k, err)
			}
		case raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9':
			val = string(raw)
		default:
			return Fault{}, 0, fmt.Errorf("%s must be a string or a number", k)
		}
		if err := sp.set(k, val); err != nil {
			return Fault{}, 0, err
		}
	}
	return sp.fault()
}

// wireFault is a fault as the admin API shows it.
type wireFault struct {
	ID             int    `json:"id"`
	Kind           string `json:"kind"`
	Status         int    `json:"status,omitempty"`
	RetryAfter     string `json:"retry_after,omitempty"`
	Body           string `json:"body,omitempty"`
	DelayMS        int64  `json:"delay_ms,omitempty"`
	VisibleAfterMS int64  `json:"visible_after_ms,omitempty"`
	Op             string `json:"op,omitempty"`
	Method         string `json:"method,omitempty"`
	Path           string `json:"path,omitempty"`
	Count          int    `json:"count"`
	Remaining      int    `json:"remaining"`
}

func toWire(a ArmedFault) wireFault {
	f := a.Fault
	w := wireFault{ID: a.ID, Kind: f.Kind.String(), Op: f.Op, Method: f.Method, Path: f.Path,
		DelayMS: f.Delay.Milliseconds(), VisibleAfterMS: f.VisibleAfter.Milliseconds(), Count: a.Count, Remaining: a.Remaining}
	if f.Kind == FaultStatus {
		w.Status, w.RetryAfter, w.Body = faultStatus(&f), f.RetryAfter, f.Body.String()
	}
	return w
}

// adminHandler answers the admin API in front of next, the fake itself.
func (s *Server) adminHandler(next http.Handler) http.Handler {
	root := strings.TrimSuffix(AdminPath, "/")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != root && !strings.HasPrefix(r.URL.Path, AdminPath) {
			next.ServeHTTP(w, r)
			return
		}
		s.serveAdmin(w, r, strings.Trim(strings.TrimPrefix(r.URL.Path, root), "/"))
	})
}

func (s *Server) serveAdmin(w http.ResponseWriter, r *http.Request, rest string) {
	w.Header().Set("Cache-Control", "no-store")
	user, pass, ok := r.BasicAuth()
	if !ok || subtle.ConstantTimeCompare([]byte(user), []byte(s.AccountSid)) != 1 ||
		subtle.ConstantTimeCompare([]byte(pass), []byte(s.Token)) != 1 {
		w.Header().Set("WWW-Authenticate", `Basic realm="telcotest admin"`)
		adminError(w, http.StatusUnauthorized, "the admin API takes the first account's SID and token as HTTP Basic credentials")
		return
	}
	var allow []string
	for _, e := range adminEndpoints() {
		id, ok := e.match(rest)
		if !ok {
			continue
		}
		if e.method == r.Method {
			e.serve(s, w, r, id)
			return
		}
		allow = append(allow, e.method)
	}
	if len(allow) == 0 {
		var paths []string
		for _, e := range adminEndpoints() {
			if p := AdminPath + e.path; !slices.Contains(paths, p) {
				paths = append(paths, p)
			}
		}
		adminError(w, http.StatusNotFound, fmt.Sprintf("no admin endpoint at %s: there are %s (GET %s describes them)",
			r.URL.Path, strings.Join(paths, ", "), AdminPath))
		return
	}
	adminMethodNotAllowed(w, r, strings.Join(allow, ", "))
}

// adminEndpoint is one endpoint of the admin API. serveAdmin routes by
// these rows and GET AdminPath lists them, so that the list cannot miss
// one.
type adminEndpoint struct {
	method string
	// path is under AdminPath, without slashes at either end ("" for
	// AdminPath itself); a segment "{id}" stands for any one segment.
	path  string
	about string // one line, for the listing
	// serve answers an authenticated request; id is the segment "{id}"
	// stood for, "" when the path has none.
	serve func(s *Server, w http.ResponseWriter, r *http.Request, id string)
}

// match reports whether rest (the request's path under AdminPath, without
// slashes at either end) is e's path, and what its "{id}" stood for.
func (e adminEndpoint) match(rest string) (string, bool) {
	want, got := strings.Split(e.path, "/"), strings.Split(rest, "/")
	if len(want) != len(got) {
		return "", false
	}
	id := ""
	for i, seg := range want {
		switch {
		case seg == "{id}" && got[i] != "":
			id = got[i]
		case seg != got[i]:
			return "", false
		}
	}
	return id, true
}

// adminEndpoints are the endpoints of the admin API, in the order GET
// AdminPath lists them. A function, not a variable: the listing's own row
// refers to it.
func adminEndpoints() []adminEndpoint {
	return []adminEndpoint{
		{http.MethodGet, "", "this list: every endpoint of the admin API", (*Server).adminIndex},
		{http.MethodGet, "faults", "the armed faults, in the order they apply", (*Server).adminListFaults},
		{http.MethodPost, "faults", "arm the fault in the body; 201 with it, its id filled in", (*Server).adminArmFault},
		{http.MethodDelete, "faults", "clear every fault (and a fault policy)", (*Server).adminClearFaults},
		{http.MethodGet, "faults/{id}", "one armed fault; 404 once it is used up or cleared", (*Server).adminGetFault},
		{http.MethodDelete, "faults/{id}", "clear one armed fault", (*Server).adminClearFault},
		{http.MethodGet, "ops", `the operation names a fault's "op" takes`, (*Server).adminOps},
		{http.MethodGet, "messages", "every message the fake holds, as the service writes them; filters property_sid, direction, external_id", (*Server).adminMessages},
		{http.MethodGet, "requests", "the requests that reached the fake, oldest first: method, path, op, status, time", (*Server).adminRequests},
		{http.MethodPost, "inbound", "an SMS received on a number, as Server.Receive: 201 with the message; its webhooks fire", (*Server).adminInbound},
		{http.MethodGet, "message-failures", "the numbers whose messages fail", (*Server).adminMessageFailures},
		{http.MethodPost, "message-failures", "make messages to a number fail (UNDELIVERABLE), as Server.FailMessagesTo", (*Server).adminFailMessages},
		{http.MethodPost, "porting-status", "move a porting request and its numbers to a status, as Server.SetPortingStatus; its webhook fires", (*Server).adminPortingStatus},
		{http.MethodGet, "clock", "the fake's time", (*Server).adminClockNow},
		{http.MethodPost, "clock", "move the fake's clock advance_ms ahead: scheduled messages go out, statuses move on", (*Server).adminAdvanceClock},
		{http.MethodPost, "reset", "back to the checkpoint (the state at start): seeded resources only; no messages, requests, callbacks or faults", (*Server).adminReset},
	}
}

// wireEndpoint is an endpoint as GET AdminPath lists it.
type wireEndpoint struct {
	Method      string `json:"method"`
	Path        string `json:"path"`
	Description string `json:"description"`
}

func (s *Server) adminIndex(w http.ResponseWriter, _ *http.Request, _ string) {
	var out []wireEndpoint
	for _, e := range adminEndpoints() {
		out = append(out, wireEndpoint{Method: e.method, Path: AdminPath + e.path, Description: e.about})
	}
	writeJSON(w, http.StatusOK, map[string][]wireEndpoint{"endpoints": out})
}

func (s *Server) adminListFaults(w http.ResponseWriter, _ *http.Request, _ string) {
	list := s.Faults()
	out := make([]wireFault, len(list))
	for i, a := range list {
		out[i] = toWire(a)
	}
	writeJSON(w, http.StatusOK, map[string][]wireFault{"faults": out})
}

func (s *Server) adminArmFault(w http.ResponseWriter, r *http.Request, _ string) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 64<<10))
	if err != nil {
		adminError(w, http.StatusBadRequest, "reading the body: "+err.Error())
		return
	}
	f, n, err := decodeFault(body)
	if err != nil {
		adminError(w, http.StatusBadRequest, err.Error())
		return
	}
	a := s.armFault(n, f)
	w.Header().Set("Location", AdminPath+"faults/"+strconv.Itoa(a.ID))
	writeJSON(w, http.StatusCreated, toWire(a))
}

func (s *Server) adminClearFaults(w http.ResponseWriter, _ *http.Request, _ string) {
	writeJSON(w, http.StatusOK, map[string]int{"cleared": s.clearCounted()})
}

// faultID reads the id of faults/{id}, answering 404 when it is not a
// number.
func faultID(w http.ResponseWriter, id string) (int, bool) {
	n, err := strconv.Atoi(id)
	if err != nil {
		adminError(w, http.StatusNotFound, fmt.Sprintf("no fault %q: ids are numbers", id))
		return 0, false
	}
	return n, true
}

func (s *Server) adminGetFault(w http.ResponseWriter, _ *http.Request, id string) {
	n, ok := faultID(w, id)
	if !ok {
		return
	}
	list := s.Faults() // once: a request may use the fault up meanwhile
	i := slices.IndexFunc(list, func(a ArmedFault) bool { return a.ID == n })
	if i < 0 {
		adminError(w, http.StatusNotFound, fmt.Sprintf("no fault %d is armed (used up, cleared, or never armed)", n))
		return
	}
	writeJSON(w, http.StatusOK, toWire(list[i]))
}

func (s *Server) adminClearFault(w http.ResponseWriter, _ *http.Request, id string) {
	n, ok := faultID(w, id)
	if !ok {
		return
	}
	if !s.disarm(n) {
		adminError(w, http.StatusNotFound, fmt.Sprintf("no fault %d is armed (used up, cleared, or never armed)", n))
		return
	}
	writeJSON(w, http.StatusOK, map[string]int{"cleared": 1})
}

func (s *Server) adminOps(w http.ResponseWriter, _ *http.Request, _ string) {
	writeJSON(w, http.StatusOK, map[string][]string{"ops": Ops()})
}

func adminError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}

func adminMethodNotAllowed(w http.ResponseWriter, r *http.Request, allow string) {
	w.Header().Set("Allow", allow)
	adminError(w, http.StatusMethodNotAllowed, fmt.Sprintf("%s is not allowed on %s (allowed: %s)", r.Method, r.URL.Path, allow))
}
