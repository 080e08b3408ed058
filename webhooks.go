package telco

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
)

// DefaultMaxWebhookBody is the largest callback body WebhookHandler reads
// when MaxBodyBytes is 0. A callback is one resource: a few hundred bytes,
// a few KiB for a porting request with many numbers.
const DefaultMaxWebhookBody = 64 << 10

// WebhookKind is the kind of a callback.
type WebhookKind int

// Callback kinds.
const (
	// WebhookUnknown is the zero value: the kind could not be told.
	WebhookUnknown WebhookKind = iota
	// WebhookDeliveryReceipt is a sent message whose status reached
	// Delivered or Failed, sent when the message asked for a receipt.
	WebhookDeliveryReceipt
	// WebhookInboundMessage is an SMS received on a number configured with
	// a WebHookUrl.
	WebhookInboundMessage
	// WebhookLeaseResponse is an SMS answering a message sent from a leased
	// sender, sent to the WebhookUri given on that send.
	WebhookLeaseResponse
	// WebhookPortingUpdate is a porting request whose status changed.
	WebhookPortingUpdate
)

// String names the kind, e.g. "delivery receipt".
func (k WebhookKind) String() string {
	switch k {
	case WebhookDeliveryReceipt:
		return "delivery receipt"
	case WebhookInboundMessage:
		return "inbound message"
	case WebhookLeaseResponse:
		return "lease response"
	case WebhookPortingUpdate:
		return "porting update"
	}
	return "unknown"
}

// MessageEvent is a message callback: a delivery receipt, an inbound SMS or
// a response to a leased message.
type MessageEvent struct {
	Kind WebhookKind
	// Message is the message as the callback describes it. Fields the
	// callback did not carry are zero.
	Message Message
	// Request is the callback request, its body already read. The service
	// does not sign callbacks: a secret you put in the callback URL's query
	// is how you can tell the callback came from your own configuration.
	Request *http.Request
}

// PortingEvent is a porting status update.
type PortingEvent struct {
	// PortingRequest is the request as the callback describes it, with its
	// new Status.
	PortingRequest PortingRequest
	// Request is the callback request, its body already read.
	Request *http.Request
}

// WebhookHandler is an http.Handler for the service's callbacks. It decodes
// each callback into a MessageEvent or a PortingEvent and calls the
// function set for its kind. Any nil function is fine; set those you use.
//
// The service's interface document lists when it calls back but shows
// neither the bodies nor the query parameters of those calls, and names no
// event type in them. The handler decodes what the resources themselves
// are called:
//   - message callbacks carry the fields of Message (MessageSid,
//     AccountSid, PropertySid, From, To, Text, DeliveryReceipt,
//     NumSegments, Status, Direction, Scheduled, Created, Submitted,
//     Delivered, Received, ErrorCode, ExternalId);
//   - porting callbacks carry the fields of PortingRequest (PortingNo,
//     Status, PortingNumbers, ...).
//
// They may arrive as a GET query string, a JSON object POSTed (with
// Content-Type application/json, or none), or a form POSTed with
// application/x-www-form-urlencoded (a POST with an empty body is read from
// its query string). Names match without regard to case,
// as encoding/json matches them; when several keys differ only in case
// (Text and text), the one spelled as the field is read, else the first in
// sorted order. Unknown fields are ignored; an empty or null value counts
// as absent (a string of spaces is kept: it is a real SMS text); Status
// and Direction are given as the SDK's constants when they match one
// without regard to case ("delivered" is MessageDelivered); numbers and
// booleans may be quoted (a query string has nothing else); timestamps are
// Unix seconds; a list in a query or form (PortingNumbers) is JSON text.
//
// Because the service sends no event-type field, one URL for every kind
// relies on telling them apart by their fields:
//   - a PortingNo: a porting update;
//   - a MessageSid with Direction Receive (or Status Received): an inbound
//     message, given to InboundMessage, or to LeaseResponse when
//     InboundMessage is nil (the two look the same on the wire);
//   - a MessageSid with Direction Transmit, or a sent message's status
//     (Processing, Submitted, Delivered, Failed): a delivery receipt.
//
// Give inbound messages and lease responses URLs of their own (with
// InboundMessageHandler and LeaseResponseHandler) when you need both.
//
// Answers: 204 when the function returned nil; 500 with a body that gives
// no detail when it returned an error (the error goes to OnError); 404 when
// no function is set for the callback's kind, so that a callback sent to
// the wrong URL shows as failed instead of being dropped quietly; 400 for a
// body or query that cannot be decoded or a callback of no known kind; 405
// for a method other than GET or POST (matched case-insensitively, as the
// service's own SDKs send "Get" and "Post"); 413 for a body over
// MaxBodyBytes, 414 for a longer query; 415 for a body neither JSON nor a
// form. Unknown fields are ignored.
//
// A WebhookHandler is safe for concurrent use once serving; the functions
// may be called concurrently.
type WebhookHandler struct {
	// DeliveryReceipt is called with a sent message whose status reached
	// Delivered or Failed.
	DeliveryReceipt func(context.Context, *MessageEvent) error
	// InboundMessage is called with an SMS received on a configured number.
	InboundMessage func(context.Context, *MessageEvent) error
	// LeaseResponse is called with a response to a message sent from a
	// leased sender.
	LeaseResponse func(context.Context, *MessageEvent) error
	// PortingUpdate is called with a porting request whose status changed.
	PortingUpdate func(context.Context, *PortingEvent) error

	// MaxBodyBytes caps the body (and the query string of a GET); 0 means
	// DefaultMaxWebhookBody.
	MaxBodyBytes int64

	// OnError, when set, is told of every callback not answered 2xx: the
	// status given and why (the function's own error for a 500). Use it to
	// log; the response body carries no detail.
	OnError func(r *http.Request, status int, err error)

	only WebhookKind // set by the per-kind constructors: no classification
}

var _ http.Handler = (*WebhookHandler)(nil)

// DeliveryReceiptHandler returns a handler that treats every message
// callback it receives as a delivery receipt. Set MaxBodyBytes or OnError
// on the result as needed.
func DeliveryReceiptHandler(f func(context.Context, *MessageEvent) error) *WebhookHandler {
	return &WebhookHandler{DeliveryReceipt: f, only: WebhookDeliveryReceipt}
}

// InboundMessageHandler returns a handler that treats every message
// callback it receives as an SMS received on a configured number.
func InboundMessageHandler(f func(context.Context, *MessageEvent) error) *WebhookHandler {
	return &WebhookHandler{InboundMessage: f, only: WebhookInboundMessage}
}

// LeaseResponseHandler returns a handler that treats every message callback
// it receives as a response to a message sent from a leased sender.
func LeaseResponseHandler(f func(context.Context, *MessageEvent) error) *WebhookHandler {
	return &WebhookHandler{LeaseResponse: f, only: WebhookLeaseResponse}
}

// PortingUpdateHandler returns a handler that treats every callback it
// receives as a porting status update.
func PortingUpdateHandler(f func(context.Context, *PortingEvent) error) *WebhookHandler {
	return &WebhookHandler{PortingUpdate: f, only: WebhookPortingUpdate}
}

// webhookError is a rejected callback: the status to answer and why.
type webhookError struct {
	status int
	err    error
}

func (e *webhookError) Error() string { return e.err.Error() }

func reject(status int, format string, args ...any) *webhookError {
	return &webhookError{status, fmt.Errorf("telco: webhook: "+format, args...)}
}

// ServeHTTP decodes the callback, calls the function for its kind and
// answers as WebhookHandler describes.
func (h *WebhookHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if werr := h.serve(w, r); werr != nil {
		if h.OnError != nil {
			h.OnError(r, werr.status, werr.err)
		}
		if werr.status == http.StatusMethodNotAllowed {
			w.Header().Set("Allow", "GET, POST")
		}
		msg := http.StatusText(werr.status)
		if werr.status != http.StatusInternalServerError {
			msg = werr.err.Error() // about the request, never about the user's code
		}
		http.Error(w, msg, werr.status)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (h *WebhookHandler) serve(w http.ResponseWriter, r *http.Request) *webhookError {
	fields, werr := h.readFields(w, r)
	if werr != nil {
		return werr
	}
	kind := h.only
	if kind == WebhookUnknown {
		kind = classifyWebhook(fields)
		if kind == WebhookInboundMessage && h.InboundMessage == nil {
			kind = WebhookLeaseResponse
		}
	}
	if kind == WebhookUnknown {
		return reject(http.StatusBadRequest, "not a message or porting callback (no MessageSid with a Direction or Status, no PortingNo)")
	}
	if kind == WebhookPortingUpdate {
		if h.PortingUpdate == nil {
			return reject(http.StatusNotFound, "no function set for a %s", kind)
		}
		ev := &PortingEvent{Request: r}
		if err := decodeFields(fields, &ev.PortingRequest); err != nil {
			return &webhookError{http.StatusBadRequest, err}
		}
		if ev.PortingRequest.PortingNo == "" {
			return reject(http.StatusBadRequest, "porting callback without PortingNo")
		}
		return userResult(h.PortingUpdate(r.Context(), ev))
	}
	var f func(context.Context, *MessageEvent) error
	switch kind {
	case WebhookDeliveryReceipt:
		f = h.DeliveryReceipt
	case WebhookInboundMessage:
		f = h.InboundMessage
	case WebhookLeaseResponse:
		f = h.LeaseResponse
	}
	if f == nil {
		return reject(http.StatusNotFound, "no function set for a %s", kind)
	}
	ev := &MessageEvent{Kind: kind, Request: r}
	if err := decodeFields(fields, &ev.Message); err != nil {
		return &webhookError{http.StatusBadRequest, err}
	}
	if ev.Message.MessageSid == "" {
		return reject(http.StatusBadRequest, "message callback without MessageSid")
	}
	canonicalMessage(&ev.Message)
	return userResult(f(r.Context(), ev))
}

func userResult(err error) *webhookError {
	if err != nil {
		return &webhookError{http.StatusInternalServerError, err}
	}
	return nil
}

func (h *WebhookHandler) limit() int64 {
	if h.MaxBodyBytes > 0 {
		return h.MaxBodyBytes
	}
	return DefaultMaxWebhookBody
}

// readFields reads the callback's fields, each as raw JSON: values from a
// query string or a form arrive as JSON strings and are converted per field
// by decodeFields.
func (h *WebhookHandler) readFields(w http.ResponseWriter, r *http.Request) (map[string]json.RawMessage, *webhookError) {
	max := h.limit()
	switch {
	case strings.EqualFold(r.Method, http.MethodGet):
		if int64(len(r.URL.RawQuery)) > max {
			return nil, reject(http.StatusRequestURITooLong, "query over %d bytes", max)
		}
		q, err := url.ParseQuery(r.URL.RawQuery)
		if err != nil {
			return nil, reject(http.StatusBadRequest, "bad query: %v", err)
		}
		return formFields(q), nil
	case strings.EqualFold(r.Method, http.MethodPost):
	default:
		return nil, reject(http.StatusMethodNotAllowed, "method %s not allowed", r.Method)
	}

	// With w, the server closes the connection after an oversized body
	// instead of reading the rest of it.
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, max))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, reject(http.StatusRequestEntityTooLarge, "body over %d bytes", max)
		}
		return nil, reject(http.StatusBadRequest, "reading body: %v", err)
	}
	body = bytes.TrimSpace(body)
	isJSON := len(body) > 0 && body[0] == '{' // sniffed when no type is given
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		switch {
		case err != nil:
			return nil, reject(http.StatusUnsupportedMediaType, "bad Content-Type %.60q", ct)
		case mt == "application/json" || strings.HasSuffix(mt, "+json") || mt == "text/json":
			isJSON = true
		case mt == "application/x-www-form-urlencoded":
			isJSON = false
		default:
			return nil, reject(http.StatusUnsupportedMediaType, "Content-Type %s is neither JSON nor a form", mt)
		}
	}
	if len(body) == 0 {
		if r.URL.RawQuery != "" && int64(len(r.URL.RawQuery)) <= max {
			// A POST carrying its fields in the query, as a GET would.
			if q, err := url.ParseQuery(r.URL.RawQuery); err == nil {
				return formFields(q), nil
			}
		}
		return nil, reject(http.StatusBadRequest, "empty body")
	}
	if !isJSON {
		q, err := url.ParseQuery(string(body))
		if err != nil {
			return nil, reject(http.StatusBadRequest, "bad form body: %v", err)
		}
		return formFields(q), nil
	}
	var fields map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&fields); err != nil || fields == nil {
		return nil, reject(http.StatusBadRequest, "body is not one JSON object")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, reject(http.StatusBadRequest, "data after the JSON object")
	}
	return fields, nil
}

// formFields turns query or form values into JSON strings, the first value
// of each key.
func formFields(q url.Values) map[string]json.RawMessage {
	out := make(map[string]json.RawMessage, len(q))
	for k, v := range q {
		if len(v) > 0 {
			b, _ := json.Marshal(v[0]) // a string always marshals
			out[k] = b
		}
	}
	return out
}

// webhookField returns the value of a field named case-insensitively, as the JSON
// decoder matches names, and whether it is present and not empty or null.
// Of several keys that differ only in case, pickKey chooses one.
func webhookField(fields map[string]json.RawMessage, name string) (string, bool) {
	if k, ok := pickKey(fields, name); ok {
		v := fields[k]
		var s string
		if json.Unmarshal(v, &s) != nil {
			s = string(v) // a number or a literal
		}
		if s = strings.TrimSpace(s); s == "" || s == "null" {
			return "", false
		}
		return s, true
	}
	return "", false
}

// pickKey chooses which of the keys equal to name without regard to case
// to read, so that a callback with both "Text" and "text" decodes the same
// on every run: the key spelled exactly as name wins, else the first of
// them in sorted order (upper case sorts before lower).
func pickKey(fields map[string]json.RawMessage, name string) (string, bool) {
	if _, ok := fields[name]; ok {
		return name, true
	}
	best, found := "", false
	for k := range fields {
		if strings.EqualFold(k, name) && (!found || k < best) {
			best, found = k, true
		}
	}
	return best, found
}

// canonicalMessage spells Status and Direction as the SDK's constants when
// they name one without regard to case or surrounding space ("delivered"
// in a query string is MessageDelivered), so that callers can compare
// with ==. Other values are left as sent.
func canonicalMessage(m *Message) {
	for _, c := range []MessageStatus{MessageProcessing, MessageSubmitted, MessageDelivered, MessageFailed, MessageReceived} {
		if strings.EqualFold(strings.TrimSpace(string(m.Status)), string(c)) {
			m.Status = c
		}
	}
	for _, c := range []Direction{DirectionTransmit, DirectionReceive} {
		if strings.EqualFold(strings.TrimSpace(string(m.Direction)), string(c)) {
			m.Direction = c
		}
	}
}

// classifyWebhook tells a callback's kind from its fields; see WebhookHandler.
func classifyWebhook(fields map[string]json.RawMessage) WebhookKind {
	if _, ok := webhookField(fields, "PortingNo"); ok {
		return WebhookPortingUpdate
	}
	if _, ok := webhookField(fields, "MessageSid"); !ok {
		return WebhookUnknown
	}
	dir, _ := webhookField(fields, "Direction")
	status, _ := webhookField(fields, "Status")
	switch {
	case strings.EqualFold(dir, string(DirectionReceive)):
		return WebhookInboundMessage
	case strings.EqualFold(dir, string(DirectionTransmit)):
		return WebhookDeliveryReceipt
	case dir != "":
		return WebhookUnknown
	case strings.EqualFold(status, string(MessageReceived)):
		return WebhookInboundMessage
	}
	for _, s := range []MessageStatus{MessageProcessing, MessageSubmitted, MessageDelivered, MessageFailed} {
		if strings.EqualFold(status, string(s)) {
			return WebhookDeliveryReceipt
		}
	}
	return WebhookUnknown
}

// decodeFields decodes fields into the struct v points to, tolerantly: an
// empty or null value is absent; a string holding a number or a boolean is
// read as one where the field is not a string (so that query strings, forms
// and JSON that quotes numbers all decode); a number or boolean where a
// string is expected is kept as its text.
func decodeFields(fields map[string]json.RawMessage, v any) error {
	kinds := jsonKinds(reflect.TypeOf(v).Elem())
	fixed := make(map[string]json.RawMessage, len(kinds))
	for name, kind := range kinds { // unknown fields are ignored
		k, present := pickKey(fields, name)
		if !present {
			continue
		}
		raw := bytes.TrimSpace(fields[k])
		if len(raw) == 0 || string(raw) == "null" {
			continue
		}
		var s string
		isString := raw[0] == '"'
		if isString {
			if err := json.Unmarshal(raw, &s); err != nil {
				return reject(http.StatusBadRequest, "field %.40s: %v", k, err)
			}
			if s == "" {
				continue
			}
			// Space around a number or a boolean is noise; in a string
			// field it is the value (an SMS of "  " is a real SMS).
			if kind != reflect.String {
				if s = strings.TrimSpace(s); s == "" {
					continue
				}
			}
		}
		switch {
		case kind == reflect.String && !isString && raw[0] != '{' && raw[0] != '[':
			raw, _ = json.Marshal(string(raw))
		case kind == reflect.Bool && isString:
			b, err := strconv.ParseBool(s)
			if err != nil {
				return reject(http.StatusBadRequest, "field %.40s: %.40q is not a boolean", k, s)
			}
			raw = []byte(strconv.FormatBool(b))
		case kind != reflect.String && isString && json.Valid([]byte(s)):
			raw = []byte(s) // "3", "1700000000", or JSON text for a list in a form
		case isString && (kind == reflect.Slice || kind == reflect.Struct || kind == reflect.Map || kind == reflect.Pointer):
			// A list flattened some other way in a query or form: the
			// callback's news (its Status) still counts, so drop the list
			// rather than refuse the callback.
			continue
		}
		fixed[name] = raw
	}
	b, err := json.Marshal(fixed)
	if err != nil {
		return reject(http.StatusBadRequest, "%v", err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return reject(http.StatusBadRequest, "decoding %s: %v", reflect.TypeOf(v).Elem().Name(), err)
	}
	return nil
}

// jsonKinds maps the JSON names of a struct's fields, as the struct spells
// them, to their kinds.
func jsonKinds(t reflect.Type) map[string]reflect.Kind {
	out := make(map[string]reflect.Kind, t.NumField())
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type.Kind()
	}
	return out
}
