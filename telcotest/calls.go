package telcotest

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/telcosdk/telco"
)

// callRec is a stored call and when it was written, as a sequence number:
// the Token cursor counts in it.
type callRec struct {
	call telco.Call
	seq  int64
}

// CallsPerAnswer is the most calls one answer of a call listing holds;
// its Token then points after the last of them, so the next request goes
// on from there.
const CallsPerAnswer = 100

// AddCall stores a call on the project, as if it had just been tracked,
// and returns it. CallSid, AccountSid and PropertySid are filled in;
// DateStart defaults to now, Disposition to Answered and CallType to
// Inbound. A project SID the server does not know yet is created, enabled
// for SMS. Calls written after a listing's answer are what a request with
// that answer's Token finds.
func (s *Server) AddCall(propertySid string, c telco.Call) telco.Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	prop := s.st.ensureProperty(propertySid)
	c.CallSid = newSid("CA")
	c.AccountSid, c.PropertySid = prop.AccountSid, propertySid
	if c.DateStart == 0 {
		c.DateStart = telco.TimestampOf(s.now())
	}
	if c.Disposition == "" {
		c.Disposition = telco.CallAnswered
	}
	if c.CallType == "" {
		c.CallType = "Inbound"
	}
	c.Extra = nil
	s.st.callSeq++
	s.st.calls = append(s.st.calls, &callRec{call: c, seq: s.st.callSeq})
	return c
}

// getCall answers a call of the caller's account, wrapped as the
// service's single resources are.
func (s *Server) getCall(w http.ResponseWriter, r *http.Request, pp pathParams) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, rec := range s.st.calls {
		if rec.call.CallSid != pp["CallSid"] {
			continue
		}
		if rec.call.AccountSid != caller(r) {
			forbidden(w, "call")
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"Call": rec.call})
		return
	}
	notFound(w, "call")
}

func (s *Server) listCallsByProperty(w http.ResponseWriter, r *http.Request, pp pathParams) {
	s.withProperty(w, r, pp, func(prop *telco.Property) {
		s.listCalls(w, r, func(c *telco.Call) bool { return c.PropertySid == prop.PropertySid })
	})
}

func (s *Server) listCallsByAccount(w http.ResponseWriter, r *http.Request, _ pathParams) {
	s.mu.Lock()
	defer s.mu.Unlock()
	acct := caller(r)
	s.listCalls(w, r, func(c *telco.Call) bool { return c.AccountSid == acct })
}

// callToken is the cursor of an answer: the seq of the last call it
// covers.
func callToken(seq int64) string { return fmt.Sprintf("CT%012X", seq) }

// parseCallToken reads a Token the fake made, and whether it is one.
func parseCallToken(tok string) (int64, bool) {
	hex, ok := strings.CutPrefix(tok, "CT")
	if !ok {
		return 0, false
	}
	seq, err := strconv.ParseInt(hex, 16, 64)
	return seq, err == nil && seq >= 0
}

// listCalls answers the calls that pass owner and the query's filters,
// written after the Token's answer when there is one, at most
// CallsPerAnswer of them, earliest first, with a new Token. The caller
// holds s.mu.
func (s *Server) listCalls(w http.ResponseWriter, r *http.Request, owner func(*telco.Call) bool) {
	q := r.URL.Query()
	p, ok := callsQuery(w, q)
	if !ok {
		return
	}
	var after int64
	if p.Token != "" {
		seq, ok := parseCallToken(p.Token)
		if !ok || seq > s.st.callSeq {
			writeField(w, telco.CodeParameterInvalid, "Token", "The Token is not one this service generated.")
			return
		}
		after = seq
	}
	var out []telco.Call
	last := s.st.callSeq // the Token when every match fits in this answer
	for _, rec := range s.st.calls {
		if rec.seq <= after || !owner(&rec.call) || !callMatches(&rec.call, p) {
			continue
		}
		if len(out) == CallsPerAnswer {
			last = rec.seq - 1
			break
		}
		out = append(out, rec.call)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].DateStart < out[j].DateStart })
	if out == nil {
		out = []telco.Call{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"Calls": out, "Token": callToken(last)})
}

// callsQuery reads the filters of a call listing and checks them with the
// SDK's own rules, answering 400 when they fail.
func callsQuery(w http.ResponseWriter, q url.Values) (*telco.ListCallsParams, bool) {
	p := &telco.ListCallsParams{Token: q.Get("Token"), Unique: telco.CallUnique(q.Get("Unique"))}
	for _, t := range []struct {
		name string
		dst  *time.Time
	}{{"Date_From", &p.DateFrom}, {"Date_To", &p.DateTo}} {
		if q.Get(t.name) == "" {
			continue
		}
		n, ok := queryInt(w, q, t.name, 0)
		if !ok {
			return nil, false
		}
		*t.dst = time.Unix(int64(n), 0)
	}
	for _, d := range splitList(q.Get("Disposition"), ",") {
		p.Dispositions = append(p.Dispositions, telco.CallDisposition(d))
	}
	p.To = splitList(q.Get("To"), ",")
	p.Endpoints = splitList(q.Get("Endpoint"), ",")
	p.AttributionSources = splitList(q.Get("Attribution_Source"), ",")
	p.AttributionMediums = splitList(q.Get("Attribution_Medium"), ",")
	p.AttributionCampaigns = splitList(q.Get("Attribution_Campaign"), ",")
	p.AttributionContents = splitList(q.Get("Attribution_Content"), ",")
	for _, path := range splitList(q.Get("Prompts_keys"), ";") {
		p.PromptKeys = append(p.PromptKeys, strings.Split(path, ","))
	}
	if err := p.Validate(); err != nil {
		writeInvalid(w, err)
		return nil, false
	}
	return p, true
}

// callMatches applies the filters: the date window on DateStart, each list
// filter as "one of", numbers compared without their +, and Prompts_keys
// as a path of keys the call's own begins with. Unique is accepted but,
// its values other than All not being documented, changes nothing.
func callMatches(c *telco.Call, p *telco.ListCallsParams) bool {
	at := c.DateStart.Time()
	if !p.DateFrom.IsZero() && at.Before(p.DateFrom) || !p.DateTo.IsZero() && !at.Before(p.DateTo) {
		return false
	}
	if len(p.Dispositions) > 0 && !slices.Contains(p.Dispositions, c.Disposition) {
		return false
	}
	digits := func(s string) string { return strings.TrimPrefix(s, "+") }
	for _, f := range []struct {
		want []string
		have string
		norm func(string) string
	}{
		{p.To, c.To, digits}, {p.Endpoints, c.Endpoint, digits},
		{p.AttributionSources, c.AttributionSource, nil}, {p.AttributionMediums, c.AttributionMedium, nil},
		{p.AttributionCampaigns, c.AttributionCampaign, nil}, {p.AttributionContents, c.AttributionContent, nil},
	} {
		if len(f.want) == 0 {
			continue
		}
		found := false
		for _, v := range f.want {
			if f.norm != nil {
				found = found || f.norm(v) == f.norm(f.have)
			} else {
				found = found || v == f.have
			}
		}
		if !found {
			return false
		}
	}
	if len(p.PromptKeys) > 0 {
		pressed := strings.Split(strings.ReplaceAll(c.PromptsKeys, ";", ","), ",")
		found := false
		for _, path := range p.PromptKeys {
			found = found || len(path) <= len(pressed) && slices.Equal(path, pressed[:len(path)])
		}
		if !found {
			return false
		}
	}
	return true
}
