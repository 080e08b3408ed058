package telcotest

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/internal/smswire"
)

// messageOut is a message as the service writes it, in answers and
// callbacks alike: ErrorCode is always there, "" when nothing failed (the
// spec: "empty string otherwise"), where telco.Message's omitempty would
// leave it out. It spells out telco.Message's fields, in their order with
// ErrorCode last, rather than embedding it: telco.Timestamp has a
// MarshalJSON, which encoding/json calls and then re-validates for every
// timestamp, a fifth of the time a page of messages took to encode; plain
// integers encode to the same bytes (TestMessageOutMatchesMessage).
type messageOut struct {
	MessageSid      string              `json:"MessageSid"`
	AccountSid      string              `json:"AccountSid,omitempty"`
	PropertySid     string              `json:"PropertySid,omitempty"`
	From            string              `json:"From,omitempty"`
	To              string              `json:"To,omitempty"`
	Text            string              `json:"Text,omitempty"`
	DeliveryReceipt bool                `json:"DeliveryReceipt"`
	NumSegments     int                 `json:"NumSegments,omitempty"`
	Status          telco.MessageStatus `json:"Status,omitempty"`
	Direction       telco.Direction     `json:"Direction,omitempty"`
	Scheduled       int64               `json:"Scheduled,omitempty"`
	Created         int64               `json:"Created,omitempty"`
	Submitted       int64               `json:"Submitted,omitempty"`
	Delivered       int64               `json:"Delivered,omitempty"`
	Received        int64               `json:"Received,omitempty"`
	ExternalID      string              `json:"ExternalId,omitempty"`
	ErrorCode       string              `json:"ErrorCode"`
}

// writeMessages answers 200 with {"Messages": page}.
func writeMessages(w http.ResponseWriter, page []messageOut) {
	writeJSON(w, http.StatusOK, struct {
		Messages []messageOut `json:"Messages"`
	}{page})
}

// writeMessage answers 200 with {"Message": m}, the answer of a send and
// of a get.
func writeMessage(w http.ResponseWriter, m messageOut) {
	writeJSON(w, http.StatusOK, struct {
		Message messageOut `json:"Message"`
	}{m})
}

func wireOut(m telco.Message) messageOut {
	return messageOut{MessageSid: m.MessageSid, AccountSid: m.AccountSid, PropertySid: m.PropertySid,
		From: m.From, To: m.To, Text: m.Text, DeliveryReceipt: m.DeliveryReceipt, NumSegments: m.NumSegments,
		Status: m.Status, Direction: m.Direction, Scheduled: int64(m.Scheduled), Created: int64(m.Created),
		Submitted: int64(m.Submitted), Delivered: int64(m.Delivered), Received: int64(m.Received),
		ExternalID: m.ExternalID, ErrorCode: m.ErrorCode}
}

// readSend reads one send, the body of Messages.Send or an element of a
// batch, with smswire: the service's field names and JSON types, read
// apart from the SDK's encoder, so that a field the SDK misspells or
// mistypes is refused here. Keys that name no field are ignored, as the
// service ignores them. The lease-only fields (ForwardToSms,
// ForwardFromSms, ForwardToEmail, ForwardFromEmail, WebhookUri,
// WebhookMethod) apply only to a lease, From empty: next to a From they
// are dropped here, unchecked and unstored, as the service ignores them
// (the official SDKs send them with any From). The client refuses them
// while it validates; Validate, which the fake shares, never sees them.
func readSend(raw []byte) (*telco.SendMessageParams, error) {
	p := new(telco.SendMessageParams)
	if _, err := smswire.DecodeJSON(raw, p); err != nil {
		return nil, err
	}
	if p.From != "" {
		for _, f := range leaseOnly {
			_ = f.Set(p, "") // the empty text of a string field: no error
		}
	}
	return p, nil
}

// leaseOnly are the fields readSend drops next to a From.
var leaseOnly = func() []smswire.Field {
	var out []smswire.Field
	for _, f := range smswire.Fields() {
		if f.LeaseOnly {
			out = append(out, f)
		}
	}
	return out
}()

// The fake's message timing: a sent message is Submitted SubmitDelay after
// it goes out (at once, or at its Schedule) and, when a delivery receipt
// was asked for, Delivered DeliverDelay after that; without a receipt it
// stays Submitted. A message to a recipient set with FailMessagesTo becomes
// Failed instead of Submitted. Leased senders last LeaseValidity, and a
// recipient has at most MaxLeasesPerRecipient of them at a time.
const (
	// SubmitDelay is how long after going out a message is Submitted (or
	// Failed).
	SubmitDelay = 250 * time.Millisecond
	// DeliverDelay is how long after Submitted a message with a delivery
	// receipt is Delivered.
	DeliverDelay = 250 * time.Millisecond
	// LeaseValidity is how long a leased sender lasts, from its first use.
	LeaseValidity = 30 * 24 * time.Hour
	// MaxLeasesPerRecipient is how many valid leases one recipient may
	// have at a time.
	MaxLeasesPerRecipient = 5
)

// SetAccountSmsEnabled turns SMS on or off for a whole account, as the
// service's operators do; every account starts enabled. While it is off,
// sends from any of the account's projects fail as they do for a project
// not enabled for SMS. It reports whether the account exists.
func (s *Server) SetAccountSmsEnabled(accountSid string, enabled bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.st.accounts[accountSid]; !ok {
		return false
	}
	s.st.smsOff[accountSid] = !enabled
	return true
}

// smsRefusal says why prop may not send SMS, or "" when it may. The
// service requires both the account and the project to be enabled for SMS
// and documents the code FORBIDDEN but not the status: the fake answers
// 400, as for the service's other rules, keeping 403 for another
// account's resources.
func (st *store) smsRefusal(prop *telco.Property) string {
	switch {
	case st.smsOff[prop.AccountSid]:
		return "The account is not enabled for SMS."
	case !prop.SmsEnabled:
		return "The project is not enabled for SMS."
	}
	return ""
}

// FailMessagesTo makes every message to the E.164 number that has not been
// submitted yet fail instead, with ErrorCode "UNDELIVERABLE".
func (s *Server) FailMessagesTo(e164 string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.failTo[e164] = true
}

// failingTo lists the numbers FailMessagesTo was given, sorted.
func (s *Server) failingTo() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.st.failTo))
	for to, on := range s.st.failTo {
		if on {
			out = append(out, to)
		}
	}
	slices.Sort(out)
	return out
}

// Receive records an inbound SMS on the project, as if from sent it to to,
// and returns it. A project SID the server does not know yet is created.
// It sends the webhooks the service would: to the WebHookUrl of to when to
// is a configured number, and to the WebhookUri of the leased send when to
// is a sender leased to from.
func (s *Server) Receive(propertySid, from, to, text string) telco.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.receive(s.st.ensureProperty(propertySid), from, to, text)
}

// receive is Receive on a project the store holds. The caller holds s.mu.
func (s *Server) receive(prop *telco.Property, from, to, text string) telco.Message {
	propertySid := prop.PropertySid
	now := s.now()
	ts := telco.TimestampOf(now)
	m := &messageRec{Message: telco.Message{
		MessageSid: newSid("MG"), AccountSid: prop.AccountSid, PropertySid: propertySid,
		From: from, To: to, Text: text, NumSegments: telco.Segments(text).Segments,
		Status: telco.MessageReceived, Direction: telco.DirectionReceive, Created: ts, Received: ts,
	}, final: true}
	s.st.addMessage(m)
	if n := s.st.numbers[strings.TrimPrefix(to, "+")]; n != nil {
		s.hooks.send(CallbackInbound, n.cfg.WebhookURL, n.cfg.WebhookMethod, wireOut(m.Message))
	}
	if sent := s.st.leasedSend(from, to, now); sent != nil {
		s.hooks.send(CallbackLeaseResponse, sent.leaseURL, sent.leaseMethod, wireOut(m.Message))
	}
	return m.Message
}

// leasedSend is the latest message the leasing project sent from a valid
// lease of recipient to sender, whose webhook gets the recipient's
// responses. Only that project's messages count: a response never reaches
// another project or account.
func (st *store) leasedSend(recipient, sender string, now time.Time) *messageRec {
	owner := ""
	for _, l := range st.leases[recipient] {
		if l.sender == sender && now.Before(l.expires) {
			owner = l.propertySid
		}
	}
	if owner == "" {
		return nil
	}
	for i := len(st.messages) - 1; i >= 0; i-- {
		if m := st.messages[i]; m.leased && m.PropertySid == owner && m.From == sender && m.To == recipient {
			return m
		}
	}
	return nil
}

// accept creates a message from a validated request. Alphanumeric senders
// are not supported in the US and Canada: there, as with an empty From, a
// leased number is used.
func (s *Server) accept(prop *telco.Property, p *telco.SendMessageParams) *messageRec {
	st := &s.st
	now := s.now()
	from, leased := p.From, false
	if needsLease(p) {
		from, leased = st.lease(prop.PropertySid, p.To, now), true
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
	}, sendAt: sched, leased: leased}
	if dr {
		m.receiptURL, m.receiptMethod = p.DeliveryReceiptWebhookURI, p.DeliveryReceiptWebhookMethod
	}
	if leased {
		m.leaseURL, m.leaseMethod = p.WebhookURI, p.WebhookMethod
	}
	st.addMessage(m)
	st.pending.push(m)
	s.arm(now)
	return m
}

// validLeases drops the recipient's expired leases and returns the rest.
func (st *store) validLeases(to string, now time.Time) []*leaseRec {
	var valid []*leaseRec
	for _, l := range st.leases[to] {
		if now.Before(l.expires) {
			valid = append(valid, l)
		}
	}
	st.leases[to] = valid
	return valid
}

// needsLease reports whether the send goes from a leased sender: From is
// blank, or alphanumeric to the US or Canada, where those are not
// supported.
func needsLease(p *telco.SendMessageParams) bool {
	return p.From == "" || (!strings.HasPrefix(p.From, "+") && strings.HasPrefix(p.To, "+1"))
}

// senderRefusal checks what only the service can know about From: an E.164
// From must not be a number of another project (the service may own
// numbers the fake has not been told about, such as verified caller IDs,
// so a number no project holds is accepted), and a leased send needs a
// free lease slot. It returns nil when the send may go ahead.
func (st *store) senderRefusal(prop *telco.Property, p *telco.SendMessageParams, now time.Time) error {
	var fe telco.FieldError
	switch {
	case strings.HasPrefix(p.From, "+"):
		n := st.numbers[strings.TrimPrefix(p.From, "+")]
		if n == nil || n.propertySid == prop.PropertySid {
			return nil
		}
		fe = fieldError(telco.CodeNumberBelongsToDifferentProperty, "From", "The number belongs to a different project.")
	case needsLease(p):
		valid := st.validLeases(p.To, now)
		for _, l := range valid {
			if l.propertySid == prop.PropertySid {
				return nil
			}
		}
		if len(valid) < MaxLeasesPerRecipient {
			return nil
		}
		fe = fieldError(telco.CodeLeaseLimitReached, "From",
			fmt.Sprintf("The recipient already has %d leased sender IDs; try again when one expires.", MaxLeasesPerRecipient))
	default:
		return nil
	}
	return &telco.ValidationError{Op: "Messages.Send", Fields: []telco.FieldError{fe}}
}

// lease returns the sender leased to the recipient for the project,
// leasing a new one when there is no valid one. Expired leases are dropped
// first. senderRefusal has checked that the recipient has a free slot. A
// leased sender is a fresh Australian mobile number, never leased to
// another recipient or project.
func (st *store) lease(propertySid, to string, now time.Time) string {
	valid := st.validLeases(to, now)
	for _, l := range valid {
		if l.propertySid == propertySid {
			return l.sender
		}
	}
	var sender string
	for sender == "" || st.leased[sender] {
		n, _ := rand.Int(rand.Reader, big.NewInt(100_000_000))
		sender = fmt.Sprintf("+614%08d", n.Int64())
	}
	st.leased[sender] = true
	st.leases[to] = append(valid, &leaseRec{sender: sender, propertySid: propertySid, expires: now.Add(LeaseValidity)})
	return sender
}

// step moves a sent message to its status at now and reports whether it
// has just reached Delivered or Failed with a receipt asked for, which
// calls for a delivery-receipt webhook.
func (st *store) step(m *messageRec, now time.Time) bool {
	if m.final || m.Direction != telco.DirectionTransmit {
		return false
	}
	submitAt := m.sendAt.Add(SubmitDelay)
	if now.Before(submitAt) {
		return false
	}
	if m.Status == telco.MessageProcessing {
		if st.failTo[m.To] {
			m.Status, m.ErrorCode, m.final = telco.MessageFailed, "UNDELIVERABLE", true
			return m.DeliveryReceipt
		}
		m.Status, m.Submitted = telco.MessageSubmitted, telco.TimestampOf(submitAt)
		if !m.DeliveryReceipt {
			m.final = true
			return false
		}
	}
	deliverAt := submitAt.Add(DeliverDelay)
	if now.Before(deliverAt) {
		return false
	}
	m.Status, m.Delivered, m.final = telco.MessageDelivered, telco.TimestampOf(deliverAt), true
	return true
}

// due is when a pending message next changes status.
func (m *messageRec) due() time.Time {
	if m.Status == telco.MessageProcessing {
		return m.sendAt.Add(SubmitDelay)
	}
	return m.sendAt.Add(SubmitDelay + DeliverDelay)
}

// advanceAll moves every pending message that is due to its status at now,
// earliest due first, and sends the delivery receipts that calls for. The
// caller holds s.mu.
func (s *Server) advanceAll(now time.Time) {
	var again []*messageRec // stepped but not final: due again later
	for m := s.st.pending.popDue(now); m != nil; m = s.st.pending.popDue(now) {
		if s.st.step(m, now) {
			u, method := s.st.receiptTarget(m)
			s.hooks.send(CallbackDeliveryReceipt, u, method, wireOut(m.Message))
		}
		if !m.final {
			again = append(again, m)
		}
	}
	for _, m := range again {
		s.st.pending.push(m)
	}
	s.arm(now)
}

// catchUp brings the messages up to the clock: a Clock calls it when
// moved, and under real time (or a running Clock) a timer calls it when
// the next one is due.
func (s *Server) catchUp() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		// A running clock that jumped ahead leaves the timer set for a
		// real time now too late: arm sets it afresh.
		s.timerAt = time.Time{}
		s.advanceAll(s.now())
	}
}

// arm sets, under real time or a running Clock, the timer that runs
// catchUp when the next pending message is due, so that webhooks go out
// without a read. Under a manual Clock, moving the clock does that. The
// caller holds s.mu.
func (s *Server) arm(now time.Time) {
	if (s.clock != nil && !s.clock.follows()) || s.closed {
		return
	}
	next := s.st.pending.next()
	if next.IsZero() || next.Equal(s.timerAt) {
		return
	}
	if s.timer != nil {
		s.timer.Stop()
	}
	s.timerAt = next
	s.timer = time.AfterFunc(next.Sub(now), s.catchUp)
}

// checkSchedule applies the service's window exactly, on the server's own
// clock rather than the machine's, which Validate uses.
func checkSchedule(p *telco.SendMessageParams, now time.Time) error {
	if p.Schedule.IsZero() {
		return nil
	}
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
// schedule window at the fake's now: the client's Validate checks the
// schedule against the machine's clock, so it sees none here.
func validateSend(p *telco.SendMessageParams, now time.Time) error {
	q := *p
	q.Schedule = time.Time{}
	if err := q.Validate(); err != nil {
		return err
	}
	return checkSchedule(p, now)
}

func (s *Server) sendMessage(w http.ResponseWriter, r *http.Request, pp pathParams) {
	var p *telco.SendMessageParams
	if !readBody(w, r, func(body []byte) (err error) { p, err = readSend(body); return err }) {
		return
	}
	if err := validateSend(p, s.now()); err != nil {
		writeInvalid(w, err)
		return
	}
	s.withProperty(w, r, pp, func(prop *telco.Property) {
		if msg := s.st.smsRefusal(prop); msg != "" {
			writeError(w, http.StatusBadRequest, telco.CodeForbidden, msg)
			return
		}
		if err := s.st.senderRefusal(prop, p, s.now()); err != nil {
			writeInvalid(w, err)
			return
		}
		m := s.accept(prop, p)
		s.hideNew(r, m)
		writeMessage(w, wireOut(m.Message))
	})
}

// wireBatch is the body of a batch send: its elements are read one by
// one with readSend.
type wireBatch struct {
	Messages []json.RawMessage `json:"Messages"`
}

// batchError is a rejected element of a batch answer: ErrorCode, Message
// and Errors[].FieldName, the fields the interface document shows, and no
// others (openapi/telco.yaml checks it).
type batchError struct {
	ErrorCode string       `json:"ErrorCode"`
	Message   string       `json:"Message"`
	Errors    []fieldNames `json:"Errors,omitempty"`
}

type fieldNames struct {
	FieldName string `json:"FieldName"`
}

func (s *Server) sendBatch(w http.ResponseWriter, r *http.Request, pp pathParams) {
	// The batch takes JSON only, as the service documents. An element
	// that cannot be read fails the whole request, as a body that cannot
	// be deserialized does.
	var msgs []*telco.SendMessageParams
	var missing bool
	if !readBody(w, r, func(body []byte) error {
		var batch wireBatch
		if err := json.Unmarshal(body, &batch); err != nil {
			return err
		}
		missing = batch.Messages == nil
		msgs = make([]*telco.SendMessageParams, len(batch.Messages))
		for i, raw := range batch.Messages {
			p, err := readSend(raw)
			if err != nil {
				return fmt.Errorf("element %d of Messages: %w", i, err)
			}
			msgs[i] = p
		}
		return nil
	}) {
		return
	}
	if missing {
		writeField(w, telco.CodeParameterRequired, "Messages", "Messages is required")
		return
	}
	s.withProperty(w, r, pp, func(prop *telco.Property) {
		if msg := s.st.smsRefusal(prop); msg != "" {
			writeError(w, http.StatusBadRequest, telco.CodeForbidden, msg)
			return
		}
		out := make([]any, len(msgs))
		for i, p := range msgs {
			err := validateSend(p, s.now())
			if err == nil {
				err = s.st.senderRefusal(prop, p, s.now())
			}
			if err != nil {
				out[i] = elementError(err)
				continue
			}
			m := s.accept(prop, p)
			s.hideNew(r, m)
			out[i] = wireOut(m.Message)
		}
		writeJSON(w, http.StatusOK, out)
	})
}

func elementError(err error) batchError {
	be := batchError{ErrorCode: telco.ErrorCode(err), Message: err.Error()}
	if ve, ok := err.(*telco.ValidationError); ok {
		be.Message = ve.Fields[0].Message
		for _, f := range ve.Fields {
			be.Errors = append(be.Errors, fieldNames{f.FieldName})
		}
	}
	return be
}

func (s *Server) getMessage(w http.ResponseWriter, r *http.Request, pp pathParams) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.st.message(pp["MessageSid"])
	switch {
	case m == nil:
		notFound(w, "message")
	case m.AccountSid != caller(r):
		forbidden(w, "message")
	default:
		s.advanceAll(s.now())
		writeMessage(w, wireOut(m.Message))
	}
}
