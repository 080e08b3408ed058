package telcotest

// The admin API beyond faults: telcotest's hooks over HTTP (what the fake
// holds, what reached it, an inbound SMS, its clock, reset, porting and
// message status changes), for test suites in other languages.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/internal/rules"
)

// adminTime is how the admin API writes times: RFC 3339 in UTC, always
// with three fractional digits (milliseconds), which every language's
// RFC 3339 reader takes.
const adminTime = "2006-01-02T15:04:05.000Z07:00"

func formatAdminTime(t time.Time) string { return t.UTC().Format(adminTime) }

// wireRequest is a request as GET /__telcotest/requests shows it.
type wireRequest struct {
	Method string `json:"method"`
	Path   string `json:"path"`
	Op     string `json:"op"`
	Status int    `json:"status"`
	Time   string `json:"time"`
}

// adminRequests answers {"requests": [...], "total": n}: the requests
// RequestRecords holds, and how many Requests counts (more than the list
// once it passes RequestHistory).
func (s *Server) adminRequests(w http.ResponseWriter, _ *http.Request, _ string) {
	recs, total := s.requestRecords()
	out := make([]wireRequest, len(recs))
	for i, r := range recs {
		out[i] = wireRequest{Method: r.Method, Path: r.Path, Op: r.Op, Status: r.Status, Time: formatAdminTime(r.Time)}
	}
	writeJSON(w, http.StatusOK, struct {
		Requests []wireRequest `json:"requests"`
		Total    int           `json:"total"`
	}{out, total})
}

// adminQuery reads the query of a GET that takes the names known, each at
// most once, answering 400 for any other name or a repeated one: a
// misspelt filter must not quietly list everything. An empty value is
// absent.
func adminQuery(w http.ResponseWriter, r *http.Request, known ...string) (map[string]string, bool) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		adminError(w, http.StatusBadRequest, "the query: "+err.Error())
		return nil, false
	}
	names := make([]string, 0, len(q))
	for k := range q {
		names = append(names, k)
	}
	slices.Sort(names) // the same error for the same query
	out := map[string]string{}
	for _, k := range names {
		switch {
		case !slices.Contains(known, k):
			adminError(w, http.StatusBadRequest, fmt.Sprintf("unknown query parameter %q (the parameters: %s)", k, strings.Join(known, ", ")))
			return nil, false
		case len(q[k]) > 1:
			adminError(w, http.StatusBadRequest, k+" is given twice")
			return nil, false
		case q[k][0] != "":
			out[k] = q[k][0]
		}
	}
	return out, true
}

// adminMessages answers {"messages": [...]}: every message the fake
// holds, of every account, in creation order, each written as the
// service writes its Message resource, statuses as of the server's clock.
// property_sid and external_id match exactly, with case (as the service's
// identifiers); direction is Transmit or Receive, in any case.
func (s *Server) adminMessages(w http.ResponseWriter, r *http.Request, _ string) {
	q, ok := adminQuery(w, r, "property_sid", "direction", "external_id")
	if !ok {
		return
	}
	var dir telco.Direction
	if v, ok := q["direction"]; ok {
		i := slices.IndexFunc([]telco.Direction{telco.DirectionTransmit, telco.DirectionReceive},
			func(d telco.Direction) bool { return strings.EqualFold(string(d), v) })
		if i < 0 {
			adminError(w, http.StatusBadRequest, fmt.Sprintf("direction must be Transmit or Receive (got %q)", v))
			return
		}
		dir = []telco.Direction{telco.DirectionTransmit, telco.DirectionReceive}[i]
	}
	out := s.listMessages(q["property_sid"], dir, q["external_id"])
	writeJSON(w, http.StatusOK, struct {
		Messages []messageOut `json:"messages"`
	}{out})
}

// listMessages is every message that matches the filters ("" matches
// all), as the service writes them, brought up to the clock first.
func (s *Server) listMessages(propertySid string, dir telco.Direction, externalID string) []messageOut {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.advanceAll(s.now())
	}
	out := []messageOut{}
	for _, m := range s.st.messages {
		if (propertySid == "" || m.PropertySid == propertySid) && (dir == "" || m.Direction == dir) &&
			(externalID == "" || m.ExternalID == externalID) {
			out = append(out, wireOut(m.Message))
		}
	}
	return out
}

// adminBody reads a POST's body, one JSON object, into v, a struct whose
// tags are the endpoint's keys, answering 400 for anything else: another
// JSON value, a key v does not have, a value of the wrong type. shape
// names the keys, for the error.
func adminBody(w http.ResponseWriter, r *http.Request, v any, shape string) bool {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 64<<10))
	if err != nil {
		adminError(w, http.StatusBadRequest, "reading the body: "+err.Error())
		return false
	}
	body = bytes.TrimSpace(body)
	if len(body) == 0 || body[0] != '{' {
		adminError(w, http.StatusBadRequest, "the body must be one JSON object, such as "+shape)
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		adminError(w, http.StatusBadRequest, strings.TrimPrefix(err.Error(), "json: ")+" (the body is "+shape+")")
		return false
	}
	if dec.More() {
		adminError(w, http.StatusBadRequest, "the body must be one JSON object, such as "+shape)
		return false
	}
	return true
}

// required answers 400 naming the first of the keys whose value is empty,
// and reports whether all were given.
func required(w http.ResponseWriter, keys []string, values ...string) bool {
	for i, v := range values {
		if v == "" {
			adminError(w, http.StatusBadRequest, keys[i]+" is required")
			return false
		}
	}
	return true
}

// wireInbound is the body of POST /__telcotest/inbound.
type wireInbound struct {
	PropertySid string `json:"property_sid"`
	From        string `json:"from"`
	To          string `json:"to"`
	Text        string `json:"text"`
}

// adminInbound is Receive over HTTP: an SMS from "from" received on "to",
// a number of the project, stored and answered 201 as the service writes
// a message; the webhooks Receive sends go out. Unlike Receive it never
// creates a project: an unknown property_sid is a 400, so that a typo is
// not a new project.
func (s *Server) adminInbound(w http.ResponseWriter, r *http.Request, _ string) {
	const shape = `{"property_sid": "PR...", "from": "+61400000001", "to": "+61299990000", "text": "hi"}`
	var in wireInbound
	if !adminBody(w, r, &in, shape) ||
		!required(w, []string{"property_sid", "from", "to"}, in.PropertySid, in.From, in.To) {
		return
	}
	if !rules.IsE164(in.To) {
		adminError(w, http.StatusBadRequest, fmt.Sprintf("to must be an E.164 number with + (got %q)", in.To))
		return
	}
	if !rules.IsE164(in.From) && !rules.IsSenderID(in.From) {
		adminError(w, http.StatusBadRequest, fmt.Sprintf("from must be an E.164 number with + or an alphanumeric sender ID (got %q)", in.From))
		return
	}
	m, err := s.receiveIn(in)
	if err != nil {
		adminError(w, http.StatusBadRequest, err.Error())
		return
	}
	writeJSON(w, http.StatusCreated, wireOut(m))
}

func (s *Server) receiveIn(in wireInbound) (telco.Message, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	prop := s.st.property(in.PropertySid)
	if prop == nil {
		return telco.Message{}, errors.New("no project " + in.PropertySid + " (property_sid is a project of any account, in the case the fake gave it)")
	}
	return s.receive(prop, in.From, in.To, in.Text), nil
}

// maxAdvance bounds POST /__telcotest/clock's advance_ms: a year, far
// beyond any window of the service (14 days of schedule, 30 days of
// lease), and far from overflowing a time.Duration.
const maxAdvance = 365 * 24 * time.Hour

// adminClockNow answers {"now": ...}: the server's time.
func (s *Server) adminClockNow(w http.ResponseWriter, _ *http.Request, _ string) {
	writeJSON(w, http.StatusOK, map[string]string{"now": formatAdminTime(s.now())})
}

// adminAdvanceClock moves the server's clock advance_ms ahead, as
// Clock.Advance: messages due by then change status and their webhooks go
// out. A server with WithAdmin always has a Clock (WithClock's, or a
// running one); one given with WithClock moves for every server on it.
func (s *Server) adminAdvanceClock(w http.ResponseWriter, r *http.Request, _ string) {
	var body struct {
		AdvanceMS *int64 `json:"advance_ms"`
	}
	if !adminBody(w, r, &body, `{"advance_ms": 1800000}`) {
		return
	}
	switch ms := body.AdvanceMS; {
	case ms == nil:
		adminError(w, http.StatusBadRequest, "advance_ms is required")
		return
	case *ms < 0 || *ms > maxAdvance.Milliseconds():
		adminError(w, http.StatusBadRequest, fmt.Sprintf("advance_ms must be whole milliseconds, 0 to %d (a year): the fake's time never runs back (got %d)",
			maxAdvance.Milliseconds(), *ms))
		return
	}
	s.clock.Advance(time.Duration(*body.AdvanceMS) * time.Millisecond)
	s.adminClockNow(w, r, "")
}

// adminPortingStatus is SetPortingStatus over HTTP: {"porting_no",
// "status"} moves the request and its numbers to status, appends to their
// histories and sends the request's webhook, and answers with the request
// as the service writes it. The status is any label: the service's are
// not documented.
func (s *Server) adminPortingStatus(w http.ResponseWriter, r *http.Request, _ string) {
	var body struct {
		PortingNo string `json:"porting_no"`
		Status    string `json:"status"`
	}
	if !adminBody(w, r, &body, `{"porting_no": "PN00000001", "status": "Completed"}`) ||
		!required(w, []string{"porting_no", "status"}, body.PortingNo, body.Status) {
		return
	}
	s.mu.Lock()
	req := s.setPortingStatus(body.PortingNo, body.Status)
	var answer []byte
	if req != nil {
		// Encoded under the lock: the request's numbers are the store's.
		answer, _ = json.Marshal(req)
	}
	s.mu.Unlock()
	if req == nil {
		adminError(w, http.StatusBadRequest, "no porting request "+body.PortingNo+" (porting_no is the PortingNo Porting.Submit answered)")
		return
	}
	writeJSON(w, http.StatusOK, json.RawMessage(answer))
}

// wireFailure is a number whose messages fail, as the admin API shows it.
type wireFailure struct {
	To string `json:"to"`
}

// adminMessageFailures answers {"message_failures": [{"to": ...}, ...]}:
// the numbers FailMessagesTo was given, sorted.
func (s *Server) adminMessageFailures(w http.ResponseWriter, _ *http.Request, _ string) {
	out := []wireFailure{}
	for _, to := range s.failingTo() {
		out = append(out, wireFailure{to})
	}
	writeJSON(w, http.StatusOK, map[string][]wireFailure{"message_failures": out})
}

// adminFailMessages is FailMessagesTo over HTTP: {"to": "+614..."} makes
// every message to the number that is not submitted yet fail, with
// ErrorCode UNDELIVERABLE; 201 with the body. Reset undoes it.
func (s *Server) adminFailMessages(w http.ResponseWriter, r *http.Request, _ string) {
	var body wireFailure
	if !adminBody(w, r, &body, `{"to": "+61400000001"}`) || !required(w, []string{"to"}, body.To) {
		return
	}
	if !rules.IsE164(body.To) {
		adminError(w, http.StatusBadRequest, fmt.Sprintf("to must be an E.164 number with +, as messages are sent to (got %q)", body.To))
		return
	}
	s.FailMessagesTo(body.To)
	writeJSON(w, http.StatusCreated, body)
}

// adminReset is Reset over HTTP; it answers what it dropped:
// {"cleared": {"messages", "requests", "callbacks", "faults"}}.
func (s *Server) adminReset(w http.ResponseWriter, _ *http.Request, _ string) {
	writeJSON(w, http.StatusOK, map[string]resetCounts{"cleared": s.reset()})
}
