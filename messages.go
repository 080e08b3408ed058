package telco

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"reflect"
	"strings"
	"time"

	"github.com/telcosdk/telco/internal/rules"
)

// MessagesService sends, finds and reads SMS.
type MessagesService service

// MessagesAPI is the method set of MessagesService, for code that wants to
// substitute a fake.
type MessagesAPI interface {
	Send(ctx context.Context, propertySid string, p *SendMessageParams) (*Message, error)
	SendBatch(ctx context.Context, propertySid string, msgs []SendMessageParams) ([]BatchResult, error)
	Find(ctx context.Context, propertySid string, p *FindMessagesParams) (*Page[Message], error)
	FindAll(ctx context.Context, propertySid string, p *FindMessagesParams) iter.Seq2[Message, error]
	Get(ctx context.Context, messageSid string) (*Message, error)
	SendOnce(ctx context.Context, propertySid string, p *SendMessageParams) (*Message, error)
	SendBatchOnce(ctx context.Context, propertySid string, msgs []SendMessageParams) ([]BatchResult, error)
	FindByExternalID(ctx context.Context, propertySid string, since time.Time, externalIDs ...string) (map[string]Message, error)
	ListByExternalID(ctx context.Context, propertySid string, since time.Time, externalIDs ...string) (map[string][]Message, error)
	FillLedger(ctx context.Context, propertySid string, from, to time.Time) (int, error)
	SendAll(ctx context.Context, propertySid string, msgs iter.Seq[SendMessageParams], opts *SendAllOptions) iter.Seq2[BatchResult, error]
}

var _ MessagesAPI = (*MessagesService)(nil)

// MessageStatus is where a message is in its life. Values the SDK does not
// know are kept as sent.
type MessageStatus string

// Message statuses.
const (
	MessageProcessing MessageStatus = "Processing" // received by the service, being processed
	MessageSubmitted  MessageStatus = "Submitted"  // submitted to the SMS center
	MessageDelivered  MessageStatus = "Delivered"  // delivered, when delivery receipts are on
	MessageFailed     MessageStatus = "Failed"     // could not be submitted in reasonable time
	MessageReceived   MessageStatus = "Received"   // an inbound message
)

// Known reports whether s is one of the statuses the service documents.
func (s MessageStatus) Known() bool {
	switch s {
	case MessageProcessing, MessageSubmitted, MessageDelivered, MessageFailed, MessageReceived:
		return true
	}
	return false
}

// Direction says whether a message was sent or received.
type Direction string

// Message directions.
const (
	DirectionTransmit Direction = "Transmit"
	DirectionReceive  Direction = "Receive"
)

// Known reports whether d is one of the directions the service documents.
func (d Direction) Known() bool { return d == DirectionTransmit || d == DirectionReceive }

// Message is an SMS, sent or received.
type Message struct {
	MessageSid  string `json:"MessageSid"`
	AccountSid  string `json:"AccountSid,omitempty"`
	PropertySid string `json:"PropertySid,omitempty"`
	// From is the alphanumeric or E.164 sender; for a leased send, the E.164
	// sender the service allocated.
	From            string        `json:"From,omitempty"`
	To              string        `json:"To,omitempty"`
	Text            string        `json:"Text,omitempty"`
	DeliveryReceipt bool          `json:"DeliveryReceipt"`
	NumSegments     int           `json:"NumSegments,omitempty"`
	Status          MessageStatus `json:"Status,omitempty"`
	Direction       Direction     `json:"Direction,omitempty"`
	Scheduled       Timestamp     `json:"Scheduled,omitempty"`
	Created         Timestamp     `json:"Created,omitempty"`
	Submitted       Timestamp     `json:"Submitted,omitempty"`
	Delivered       Timestamp     `json:"Delivered,omitempty"`
	Received        Timestamp     `json:"Received,omitempty"`
	// ErrorCode is set when submission or delivery failed, empty otherwise.
	ErrorCode  string `json:"ErrorCode,omitempty"`
	ExternalID string `json:"ExternalId,omitempty"`
}

// SendMessageParams is one SMS to send. The rules are listed on Validate.
type SendMessageParams struct {
	// From is an E.164 number with +, an alphanumeric sender ID (1 to 11 of
	// A-Z a-z 0-9 and space, at least one letter; not in the US or Canada),
	// or "" for a leased sender ID, assigned per recipient for 30 days.
	From string
	To   string // E.164 with +
	Text string
	// Schedule delays the send; zero sends now. At most 14 days ahead; a time
	// less than 1 hour past is sent at once, an older one is refused.
	Schedule time.Time
	// DeliveryReceipt requests a delivery receipt; nil leaves the service
	// default (true).
	DeliveryReceipt              *bool
	DeliveryReceiptWebhookURI    string // called on the receipt, only when DeliveryReceipt is true
	DeliveryReceiptWebhookMethod string // "POST" (default) or "GET"
	ExternalID                   string // your own id, returned on the message

	// Lease-only: they apply only when From is "". Next to a From the
	// service ignores them and client-side validation refuses them.
	ForwardToSms     string // forward responses to this E.164 number
	ForwardFromSms   string // sender for the forward: E.164 or alphanumeric; default the responder
	ForwardToEmail   string // forward responses to this address
	ForwardFromEmail string // sender address of the forward; default a no-reply address
	WebhookURI       string // called on a response
	WebhookMethod    string // "POST" (default) or "GET"
}

// wireMessage is SendMessageParams as the service reads it.
type wireMessage struct {
	From                         string `json:"From,omitempty"`
	To                           string `json:"To"`
	Text                         string `json:"Text"`
	Schedule                     int64  `json:"Schedule,omitempty"`
	DeliveryReceipt              *bool  `json:"DeliveryReceipt,omitempty"`
	DeliveryReceiptWebhookURI    string `json:"DeliveryReceiptWebhookUri,omitempty"`
	DeliveryReceiptWebhookMethod string `json:"DeliveryReceiptWebhookMethod,omitempty"`
	ExternalID                   string `json:"ExternalId,omitempty"`
	ForwardToSms                 string `json:"ForwardToSms,omitempty"`
	ForwardFromSms               string `json:"ForwardFromSms,omitempty"`
	ForwardToEmail               string `json:"ForwardToEmail,omitempty"`
	ForwardFromEmail             string `json:"ForwardFromEmail,omitempty"`
	WebhookURI                   string `json:"WebhookUri,omitempty"`
	WebhookMethod                string `json:"WebhookMethod,omitempty"`
}

func (p *SendMessageParams) wire() wireMessage {
	w := wireMessage{
		From: p.From, To: p.To, Text: p.Text,
		DeliveryReceipt:              p.DeliveryReceipt,
		DeliveryReceiptWebhookURI:    p.DeliveryReceiptWebhookURI,
		DeliveryReceiptWebhookMethod: strings.ToUpper(p.DeliveryReceiptWebhookMethod),
		ExternalID:                   p.ExternalID,
		ForwardToSms:                 p.ForwardToSms,
		ForwardFromSms:               p.ForwardFromSms,
		ForwardToEmail:               p.ForwardToEmail,
		ForwardFromEmail:             p.ForwardFromEmail,
		WebhookURI:                   p.WebhookURI,
		WebhookMethod:                strings.ToUpper(p.WebhookMethod),
	}
	if !p.Schedule.IsZero() {
		w.Schedule = p.Schedule.Unix()
	}
	return w
}

// wireBatch is the body of a batch send.
type wireBatch struct {
	Messages []wireMessage `json:"Messages"`
}

// The shapes of the answers: a message under Message or bare, a search
// under Messages or as a bare array.
var (
	messageShape = resourceOf[Message]("MessageSid", "Message")
	messagesList = listOf[Message]("Messages")
)

// Send sends one SMS from the project: POST
// /v2/Properties/{PropertySid}/Messages. The account and the
// project must be enabled for SMS. Send is not retried once the request may
// have reached the service; such a failure matches ErrMaybeSent.
func (s *MessagesService) Send(ctx context.Context, propertySid string, p *SendMessageParams) (*Message, error) {
	const op = "Messages.Send"
	if err := s.client.precheck(op, "PropertySid", propertySid, p != nil, func() fieldErrs { return p.check(time.Now()) }); err != nil {
		return nil, err
	}
	return s.send(ctx, propertySid, p, false)
}

// send is Send once its params are checked; SendOnce calls it too, with
// once set: its sends are never retried blindly, whatever
// RetryPolicy.RetryUnsafe says, since a look-up replaces that.
func (s *MessagesService) send(ctx context.Context, propertySid string, p *SendMessageParams, once bool) (*Message, error) {
	return getOne(ctx, s.client, &call{op: "Messages.Send", method: http.MethodPost, noUnsafeRetry: once,
		path: escapedPath("/v2/Properties/{PropertySid}/Messages", propertySid), body: p.wire()}, messageShape)
}

// BatchResult is the outcome of one message of a batch, in input order:
// exactly one of Message and Err is set.
type BatchResult struct {
	Message *Message  // set when this element was accepted
	Err     *APIError // set when this element was rejected (StatusCode 0)
}

// SendBatch sends several SMS in one request: POST
// /v2/Properties/{PropertySid}/BatchMessages. The results
// align with msgs, one per message. A message that fails client-side
// validation is not sent: its Err carries the code the service would use
// (INVALID_PHONENUMBER_FORMAT for a bad To) and the field name. The service
// rejects messages one by one in the same way, with 200 for the batch. The
// returned error is for the batch as a whole: a whole-request failure, or a
// transport failure (matching ErrMaybeSent once the batch may have been
// received, since a batch is never retried after that). A whole-request
// failure is an *APIError with the service's code even when it comes with
// a 2xx status, and does not match ErrMaybeSent: nothing was sent.
func (s *MessagesService) SendBatch(ctx context.Context, propertySid string, msgs []SendMessageParams) ([]BatchResult, error) {
	return s.sendBatch(ctx, propertySid, msgs, false)
}

// sendBatch is SendBatch; SendBatchOnce calls it with once set (see send).
func (s *MessagesService) sendBatch(ctx context.Context, propertySid string, msgs []SendMessageParams, once bool) ([]BatchResult, error) {
	const op = "Messages.SendBatch"
	if err := pathParam(op, "PropertySid", propertySid); err != nil {
		return nil, err
	}
	if len(msgs) == 0 {
		return nil, &ValidationError{Op: op, Fields: []FieldError{{Code: CodeParameterRequired,
			FieldName: "Messages", Message: "Messages needs at least one message"}}}
	}
	results := make([]BatchResult, len(msgs))
	send := make([]wireMessage, 0, len(msgs))
	sent := make([]int, 0, len(msgs)) // index in msgs of each element of send
	now := time.Now()
	for i := range msgs {
		if s.client.validate {
			if f := msgs[i].check(now); len(f) > 0 {
				results[i].Err = &APIError{Op: op, Code: f[0].Code, Message: f[0].Message, Fields: f}
				continue
			}
		}
		send = append(send, msgs[i].wire())
		sent = append(sent, i)
	}
	if len(send) == 0 {
		return results, nil
	}
	out := batchAnswer{op: op}
	r := &call{op: op, method: http.MethodPost, noUnsafeRetry: once,
		path: escapedPath("/v2/Properties/{PropertySid}/BatchMessages", propertySid),
		body: wireBatch{send}}
	if err := s.client.do(ctx, r, &out); err != nil {
		return nil, err
	}
	if len(out.results) != len(send) {
		return nil, &APIError{Op: op, StatusCode: http.StatusOK, maybeSent: true,
			Message: fmt.Sprintf("batch answered %s for %s", countOf(len(out.results), "result"), countOf(len(send), "message"))}
	}
	for j, res := range out.results {
		if res.Err != nil {
			// A rejection inside a 200 is an error answer all the same:
			// it may echo the request.
			s.client.redactAPIError(r, res.Err)
		}
		results[sent[j]] = res
	}
	return results, nil
}

// decodeBatchElement reads one parsed element of a batch answer: a
// message resource (it has a MessageSid, possibly wrapped as
// {"Message": {...}}), or an error element {ErrorCode, Message, Errors}.
func decodeBatchElement(op string, node any) BatchResult {
	if m, ok := node.(map[string]any); ok {
		sid, _ := member(m, "MessageSid")
		inner, _ := member(m, "Message")
		if s, _ := sid.(string); s != "" {
			inner = m
		}
		if im, ok := inner.(map[string]any); ok {
			var msg Message
			if assignObject(im, reflect.ValueOf(&msg).Elem()) == nil && msg.MessageSid != "" {
				return BatchResult{Message: &msg}
			}
		}
	}
	ae := decodeAPIError(op, 0, marshalNode(node))
	if ae.Code == "" && ae.Message == "" {
		ae.Message = "unrecognised batch result element"
	}
	return BatchResult{Err: ae}
}

// FindMessagesParams selects sent and received messages (Messages.Find).
type FindMessagesParams struct {
	// DateFrom (inclusive) and DateTo (exclusive) are required; sent as Unix
	// seconds (Date_From, Date_To).
	DateFrom, DateTo time.Time
	Status           MessageStatus // "" for any
	Direction        Direction     // "" for both
	ListParams                     // Results_Count default 200; Results_Skip
}

// wireFindMessages is FindMessagesParams as the query carries it.
type wireFindMessages struct {
	DateFrom  int64         `url:"Date_From"`
	DateTo    int64         `url:"Date_To"`
	Status    MessageStatus `url:"Status,omitempty"`
	Direction Direction     `url:"Direction,omitempty"`
	ListParams
}

// wire sends DateFrom rounded down to its second and DateTo, exclusive,
// rounded up: a message created in the second of time.Now() is before a
// DateTo of time.Now(), and truncating would leave it out.
func (p *FindMessagesParams) wire() *wireFindMessages {
	return &wireFindMessages{DateFrom: p.DateFrom.Unix(), DateTo: ceilUnix(p.DateTo),
		Status: p.Status, Direction: p.Direction, ListParams: p.ListParams}
}

// ceilUnix is t in Unix seconds, rounded up.
func ceilUnix(t time.Time) int64 {
	s := t.Unix()
	if t.Nanosecond() > 0 {
		s++
	}
	return s
}

// defaultFindCount is the service's page size for message searches.
const defaultFindCount = 200

// Find returns one page of the project's messages, sent and received, in
// the window: GET /v2/Properties/{PropertySid}/Messages. The answer is read
// as {"Messages": [...]} or as a bare array; the service gives no
// TotalCount here.
func (s *MessagesService) Find(ctx context.Context, propertySid string, p *FindMessagesParams) (*Page[Message], error) {
	const op = "Messages.Find"
	if err := s.client.precheck(op, "PropertySid", propertySid, p != nil, p.check); err != nil {
		return nil, err
	}
	return getList(ctx, s.client, &call{op: op, method: http.MethodGet, idempotent: true,
		path: escapedPath("/v2/Properties/{PropertySid}/Messages", propertySid), query: p.wire()}, messagesList)
}

// FindAll iterates over every message Find would return, page by page,
// starting at p.Skip, until an empty page or one shorter than the page
// size (p.Count, else 200). p is copied; the caller's value is not
// changed. With WithParallelPages(n), up to n pages are requested at once
// and the messages come in the same order.
func (s *MessagesService) FindAll(ctx context.Context, propertySid string, p *FindMessagesParams) iter.Seq2[Message, error] {
	const op = "Messages.FindAll"
	q := deref(p)
	find := func(ctx context.Context, lp ListParams) (*Page[Message], error) {
		r := q
		r.ListParams = lp
		return s.Find(ctx, propertySid, &r)
	}
	if s.client.parallelPages < 2 {
		return skipIterate(ctx, op, q.ListParams, defaultFindCount, find)
	}
	size := q.Count
	if size <= 0 {
		size = defaultFindCount
	}
	return func(yield func(Message, error) bool) {
		var prev []Message
		var failed error
		err := readAhead(ctxOrBackground(ctx), s.client.parallelPages, func(ctx context.Context, k int) ([]Message, error) {
			page, err := find(ctx, ListParams{Count: q.Count, Skip: q.Skip + k*size})
			if err != nil {
				return nil, err
			}
			return page.Items, nil
		}, func(k int, items []Message) bool {
			if k > 0 && len(items) > 0 && samePage(items, prev) {
				failed = fmt.Errorf("telco: %s: page %d repeats the previous page; the service ignored the page position", op, k+1)
				return false
			}
			for _, m := range items {
				if !yield(m, nil) {
					return false
				}
			}
			prev = items
			return len(items) == size
		})
		if err == nil {
			err = failed
		}
		if err != nil {
			yield(Message{}, err)
		}
	}
}

// Get reads one message back: GET /v2/Messages/{MessageSid}.
func (s *MessagesService) Get(ctx context.Context, messageSid string) (*Message, error) {
	const op = "Messages.Get"
	if err := pathParam(op, "MessageSid", messageSid); err != nil {
		return nil, err
	}
	return getOne(ctx, s.client, &call{op: op, method: http.MethodGet, idempotent: true,
		path: escapedPath("/v2/Messages/{MessageSid}", messageSid)}, messageShape)
}

// A batch answer is an array under Messages or Results, or a bare array.
// The typed pass reads it as messages, which is what it is when every
// element has a MessageSid (allMessages); the tolerant pass reads it
// element by element otherwise. The keys of the other shapes (a wrapped
// {"Message": {...}}, an error element's Errors) are not fields of
// Message, so the typed pass skips them, and an element without its own
// MessageSid sends the answer down the tolerant path.
var (
	batchMessages = listOf[Message]("Messages", "Results")
	batchElements = listOf[any]("Messages", "Results")
)

// batchAnswer decodes a batch answer into one BatchResult per element.
type batchAnswer struct {
	op      string
	results []BatchResult
}

// errNoBatchResults is a batch answer with neither an array of results nor
// the service's error envelope: an undecodable body.
var errNoBatchResults = errors.New("no array of batch results")

func (a *batchAnswer) decodeBody(b []byte) error {
	msgs := listAnswer[Message]{shape: batchMessages}
	if msgs.typed(b) && allMessages(msgs.items) {
		a.results = make([]BatchResult, len(msgs.items))
		for i := range msgs.items {
			a.results[i].Message = &msgs.items[i]
		}
		return nil
	}
	tree, err := parseTree(b)
	if err != nil {
		return err
	}
	elems := listAnswer[any]{shape: batchElements}
	if err := elems.tolerant(tree); err != nil {
		return err // a *refusal when the service refused the whole batch
	}
	if !elems.ok {
		return errNoBatchResults
	}
	a.results = make([]BatchResult, len(elems.items))
	for i, node := range elems.items {
		a.results[i] = decodeBatchElement(a.op, node)
	}
	return nil
}

// allMessages reports whether every element is a bare message resource.
func allMessages(items []Message) bool {
	for i := range items {
		if items[i].MessageSid == "" {
			return false
		}
	}
	return true
}

// Validation rules of this file's operations: each params type's Validate
// and the check its methods run before sending. validate.go holds the
// shared machinery, internal/rules the rule primitives.

// Schedule window of an SMS send, from the interface document.
const (
	MaxScheduleAhead = 14 * 24 * time.Hour
	MaxScheduleAgo   = time.Hour
)

// Validate checks p against the rules of the send operations, at the
// current time. See check for the rules.
func (p *SendMessageParams) Validate() error {
	if p == nil {
		return nilParams("Messages.Send")
	}
	return p.check(time.Now()).err("Messages.Send")
}

// check applies the SMS rules:
//   - To is required and E.164 with a leading +;
//   - From is empty (a leased sender ID), E.164 with +, or an alphanumeric
//     sender ID of 1 to 11 of A-Z a-z 0-9 and space with at least one letter;
//   - Text is required;
//   - Schedule, when set, is at most 14 days ahead and less than 1 hour in
//     the past (an earlier time is sent now by the service);
//   - webhook methods are GET or POST, webhook URIs absolute http(s) URLs;
//   - the lease-only fields (ForwardToSms, ForwardFromSms, ForwardToEmail,
//     ForwardFromEmail, WebhookURI, WebhookMethod) are set only when From is
//     empty, and hold numbers, sender IDs and e-mail addresses as named.
//     Next to a From the service ignores them, so a send that sets them
//     would not do what it says; like every rule here, the refusal is off
//     under WithClientValidation(false), and they are then sent as given.
func (p *SendMessageParams) check(now time.Time) fieldErrs {
	var f fieldErrs
	if f.required("To", p.To) {
		f.phone("To", p.To)
	}
	switch {
	case p.From == "", rules.IsE164(p.From), rules.IsSenderID(p.From):
	case rules.LooksLikeNumber(p.From):
		f.add(CodeInvalidPhoneNumberFormat, "From", "From must be an E.164 number with a leading +, an alphanumeric sender ID, or empty for a leased sender ID")
	default:
		f.invalid("From", "From as an alphanumeric sender ID must be 1 to 11 of A-Z, a-z, 0-9 and space, with at least one letter")
	}
	f.required("Text", p.Text)
	if !p.Schedule.IsZero() {
		switch {
		case p.Schedule.After(now.Add(MaxScheduleAhead)):
			f.invalid("Schedule", "Schedule must be at most 14 days ahead")
		case !p.Schedule.After(now.Add(-MaxScheduleAgo)):
			f.invalid("Schedule", "Schedule must not be 1 hour or more in the past")
		}
	}
	f.url("DeliveryReceiptWebhookUri", p.DeliveryReceiptWebhookURI)
	f.webhookMethod("DeliveryReceiptWebhookMethod", p.DeliveryReceiptWebhookMethod)

	if p.From != "" {
		for _, lf := range [...]struct{ name, v string }{
			{"ForwardToSms", p.ForwardToSms}, {"ForwardFromSms", p.ForwardFromSms},
			{"ForwardToEmail", p.ForwardToEmail}, {"ForwardFromEmail", p.ForwardFromEmail},
			{"WebhookUri", p.WebhookURI}, {"WebhookMethod", p.WebhookMethod},
		} {
			if lf.v != "" {
				f.add(CodeConflictingParameters, lf.name, lf.name+" applies only to a leased sender ID (From empty); the service would ignore it")
			}
		}
		return f
	}
	f.phone("ForwardToSms", p.ForwardToSms)
	if v := p.ForwardFromSms; v != "" && !rules.IsE164(v) && !rules.IsSenderID(v) {
		f.invalid("ForwardFromSms", "ForwardFromSms must be an E.164 number with + or an alphanumeric sender ID")
	}
	f.email("ForwardToEmail", p.ForwardToEmail)
	f.email("ForwardFromEmail", p.ForwardFromEmail)
	f.url("WebhookUri", p.WebhookURI)
	f.webhookMethod("WebhookMethod", p.WebhookMethod)
	return f
}

// Validate checks that DateFrom and DateTo are set with DateFrom before
// DateTo, that Status and Direction are values the service lists, and that
// the page position is not negative.
func (p *FindMessagesParams) Validate() error {
	if p == nil {
		return nilParams("Messages.Find")
	}
	return p.check().err("Messages.Find")
}

func (p *FindMessagesParams) check() fieldErrs {
	var f fieldErrs
	if p.DateFrom.IsZero() {
		f.add(CodeParameterRequired, "Date_From", "Date_From is required")
	}
	if p.DateTo.IsZero() {
		f.add(CodeParameterRequired, "Date_To", "Date_To is required")
	}
	if !p.DateFrom.IsZero() && !p.DateTo.IsZero() && !p.DateFrom.Before(p.DateTo) {
		f.invalid("Date_To", "Date_To (exclusive) must be after Date_From")
	}
	if p.Status != "" && !p.Status.Known() {
		f.invalid("Status", "Status must be Processing, Submitted, Delivered, Failed or Received")
	}
	if p.Direction != "" && !p.Direction.Known() {
		f.invalid("Direction", "Direction must be Transmit or Receive")
	}
	f.list(p.ListParams)
	return f
}
