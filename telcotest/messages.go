package telcotest

import (
	"crypto/rand"
	"fmt"
	"math/big"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/telcosdk/telco"
)

// wireMessage is a send request element as the service reads it.
type wireMessage struct {
	From                         string `json:"From"`
	To                           string `json:"To"`
	Text                         string `json:"Text"`
	Schedule                     int64  `json:"Schedule"`
	DeliveryReceipt              *bool  `json:"DeliveryReceipt"`
	DeliveryReceiptWebhookURI    string `json:"DeliveryReceiptWebhookUri"`
	DeliveryReceiptWebhookMethod string `json:"DeliveryReceiptWebhookMethod"`
	ExternalID                   string `json:"ExternalId"`
	ForwardToSms                 string `json:"ForwardToSms"`
	ForwardFromSms               string `json:"ForwardFromSms"`
	ForwardToEmail               string `json:"ForwardToEmail"`
	ForwardFromEmail             string `json:"ForwardFromEmail"`
	WebhookURI                   string `json:"WebhookUri"`
	WebhookMethod                string `json:"WebhookMethod"`
}

func (m *wireMessage) params() *telco.SendMessageParams {
	p := &telco.SendMessageParams{
		From: m.From, To: m.To, Text: m.Text, DeliveryReceipt: m.DeliveryReceipt,
		DeliveryReceiptWebhookURI: m.DeliveryReceiptWebhookURI, DeliveryReceiptWebhookMethod: m.DeliveryReceiptWebhookMethod,
		ExternalID: m.ExternalID, ForwardToSms: m.ForwardToSms, ForwardFromSms: m.ForwardFromSms,
		ForwardToEmail: m.ForwardToEmail, ForwardFromEmail: m.ForwardFromEmail,
		WebhookURI: m.WebhookURI, WebhookMethod: m.WebhookMethod,
	}
	if m.Schedule != 0 {
		p.Schedule = time.Unix(m.Schedule, 0)
	}
	return p
}

// FailMessagesTo makes every message sent to the E.164 number fail instead
// of being submitted, with ErrorCode "UNDELIVERABLE".
func (s *Server) FailMessagesTo(e164 string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.failTo[e164] = true
}

// Receive records an inbound SMS on the project, as if from sent it to to,
// and returns it. A project SID the server does not know yet is created.
func (s *Server) Receive(propertySid, from, to, text string) telco.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.ensureProperty(propertySid)
	now := telco.TimestampOf(time.Now())
	m := &messageRec{Message: telco.Message{
		MessageSid: newSid("MG"), AccountSid: s.AccountSid, PropertySid: propertySid,
		From: from, To: to, Text: text, NumSegments: telco.Segments(text).Segments,
		Status: telco.MessageReceived, Direction: telco.DirectionReceive, Created: now, Received: now,
	}}
	s.st.messages = append(s.st.messages, m)
	return m.Message
}

// accept creates a message from a validated request. Alphanumeric senders
// are not supported in the US and Canada: there, as with an empty From, a
// leased number is used.
func (st *store) accept(prop *telco.Property, p *telco.SendMessageParams) *messageRec {
	now := time.Now()
	from := p.From
	if from == "" || (!strings.HasPrefix(from, "+") && strings.HasPrefix(p.To, "+1")) {
		from = st.lease(p.To)
	}
	dr := true
	if p.DeliveryReceipt != nil {
		dr = *p.DeliveryReceipt
	}
	sched := now
	if !p.Schedule.IsZero() && p.Schedule.After(now) {
		sched = p.Schedule
	}
	m := &messageRec{Message: telco.Message{
		MessageSid: newSid("MG"), AccountSid: prop.AccountSid, PropertySid: prop.PropertySid,
		From: from, To: p.To, Text: p.Text, DeliveryReceipt: dr,
		NumSegments: telco.Segments(p.Text).Segments, Status: telco.MessageProcessing,
		Direction: telco.DirectionTransmit, Scheduled: telco.TimestampOf(sched),
		Created: telco.TimestampOf(now), ExternalID: p.ExternalID,
	}}
	st.messages = append(st.messages, m)
	return m
}

// lease returns the sender leased to a recipient, leasing one when there is
// none. A lease is an Australian mobile number.
func (st *store) lease(to string) string {
	if l := st.leases[to]; len(l) > 0 {
		return l[len(l)-1]
	}
	n, _ := rand.Int(rand.Reader, big.NewInt(100_000_000))
	sender := fmt.Sprintf("+614%08d", n.Int64())
	st.leases[to] = append(st.leases[to], sender)
	return sender
}

// next is how a sent message reads the next time it is read: each read
// moves it one status on. Processing becomes, once its schedule is due,
// Submitted (or Failed for a recipient set with FailMessagesTo); Submitted
// becomes Delivered when a receipt was asked for. Reading commits it.
func (st *store) next(m *messageRec) telco.Message {
	v := m.Message
	if v.Direction != telco.DirectionTransmit {
		return v
	}
	now := time.Now()
	switch v.Status {
	case telco.MessageProcessing:
		if v.Scheduled.Time().After(now) {
			return v
		}
		if st.failTo[v.To] {
			v.Status, v.ErrorCode = telco.MessageFailed, "UNDELIVERABLE"
			return v
		}
		v.Status, v.Submitted = telco.MessageSubmitted, telco.TimestampOf(now)
	case telco.MessageSubmitted:
		if v.DeliveryReceipt {
			v.Status, v.Delivered = telco.MessageDelivered, telco.TimestampOf(now)
		}
	}
	return v
}

// read returns the message as this read shows it and records the move.
func (st *store) read(m *messageRec) telco.Message {
	m.Message = st.next(m)
	return m.Message
}

// checkSchedule applies the service's window exactly: the client's
// Validate allows ScheduleClockSkew either side; the service does not.
func checkSchedule(p *telco.SendMessageParams) error {
	if p.Schedule.IsZero() {
		return nil
	}
	now := time.Now()
	msg := ""
	switch {
	case p.Schedule.After(now.Add(telco.MaxScheduleAhead)):
		msg = "Schedule must be at most 14 days ahead"
	case !p.Schedule.After(now.Add(-telco.MaxScheduleAgo)):
		msg = "Schedule must not be 1 hour or more in the past"
	default:
		return nil
	}
	return &telco.ValidationError{Op: "Messages.Send", Fields: []telco.FieldError{
		fieldError(telco.CodeParameterInvalid, "Schedule", msg)}}
}

// validateSend applies the client's rules, then the service's exact
// schedule window.
func validateSend(p *telco.SendMessageParams) error {
	if err := p.Validate(); err != nil {
		return err
	}
	return checkSchedule(p)
}

func (s *Server) sendMessage(w http.ResponseWriter, r *http.Request, pp pathParams) {
	var wm wireMessage
	if !decodeBody(w, r, &wm) {
		return
	}
	p := wm.params()
	if err := validateSend(p); err != nil {
		writeInvalid(w, err)
		return
	}
	s.withProperty(w, pp, func(prop *telco.Property) {
		if !prop.SmsEnabled {
			writeError(w, http.StatusForbidden, telco.CodeForbidden, "The project is not enabled for SMS.")
			return
		}
		m := s.st.accept(prop, p)
		writeJSON(w, http.StatusOK, map[string]any{"Message": m.Message})
	})
}

// batchError is a rejected element of a batch answer.
type batchError struct {
	To        string       `json:"To,omitempty"`
	Text      string       `json:"Text,omitempty"`
	ErrorCode string       `json:"ErrorCode"`
	Message   string       `json:"Message"`
	Errors    []fieldNames `json:"Errors,omitempty"`
}

type fieldNames struct {
	FieldName string `json:"FieldName"`
}

func (s *Server) sendBatch(w http.ResponseWriter, r *http.Request, pp pathParams) {
	var body struct {
		Messages []wireMessage `json:"Messages"`
	}
	if !decodeBody(w, r, &body) {
		return
	}
	if body.Messages == nil {
		writeField(w, telco.CodeParameterRequired, "Messages", "Messages is required")
		return
	}
	s.withProperty(w, pp, func(prop *telco.Property) {
		if !prop.SmsEnabled {
			writeError(w, http.StatusForbidden, telco.CodeForbidden, "The project is not enabled for SMS.")
			return
		}
		out := make([]any, len(body.Messages))
		for i := range body.Messages {
			p := body.Messages[i].params()
			if err := validateSend(p); err != nil {
				out[i] = elementError(p, err)
				continue
			}
			out[i] = s.st.accept(prop, p).Message
		}
		writeJSON(w, http.StatusOK, out)
	})
}

func elementError(p *telco.SendMessageParams, err error) batchError {
	be := batchError{To: p.To, Text: p.Text, ErrorCode: telco.ErrorCode(err), Message: err.Error()}
	if ve, ok := err.(*telco.ValidationError); ok {
		be.Message = ve.Fields[0].Message
		for _, f := range ve.Fields {
			be.Errors = append(be.Errors, fieldNames{f.FieldName})
		}
	}
	return be
}

func (s *Server) findMessages(w http.ResponseWriter, r *http.Request, pp pathParams) {
	q := r.URL.Query()
	p := telco.FindMessagesParams{Status: telco.MessageStatus(q.Get("Status")), Direction: telco.Direction(q.Get("Direction"))}
	for _, d := range []struct {
		name string
		t    *time.Time
	}{{"Date_From", &p.DateFrom}, {"Date_To", &p.DateTo}} {
		if v := q.Get(d.name); v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				writeField(w, telco.CodeParameterInvalid, d.name, d.name+" must be Unix seconds")
				return
			}
			*d.t = time.Unix(n, 0)
		}
	}
	if err := p.Validate(); err != nil {
		writeInvalid(w, err)
		return
	}
	s.withProperty(w, pp, func(prop *telco.Property) {
		// Filter on how each message would read now; only those returned are
		// read, and so moved on.
		var found []*messageRec
		for _, m := range s.st.messages {
			c := m.Created.Time()
			if m.PropertySid != prop.PropertySid || c.Before(p.DateFrom) || !c.Before(p.DateTo) {
				continue
			}
			v := s.st.next(m)
			if (p.Status == "" || v.Status == p.Status) && (p.Direction == "" || v.Direction == p.Direction) {
				found = append(found, m)
			}
		}
		page, _, ok := skipPage(w, q, found, 200)
		if !ok {
			return
		}
		msgs := make([]telco.Message, len(page))
		for i, m := range page {
			msgs[i] = s.st.read(m)
		}
		writeJSON(w, http.StatusOK, map[string]any{"Messages": msgs})
	})
}

func (s *Server) getMessage(w http.ResponseWriter, r *http.Request, pp pathParams) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range s.st.messages {
		if m.MessageSid == pp["MessageSid"] {
			writeJSON(w, http.StatusOK, map[string]any{"Message": s.st.read(m)})
			return
		}
	}
	notFound(w, "message")
}
