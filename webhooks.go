package telco

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DefaultMaxWebhookBody is the largest callback body WebhookHandler reads
// when MaxBodyBytes is 0. A callback is one resource: a few hundred bytes,
// a few KiB for a porting request with many numbers.
const DefaultMaxWebhookBody = 64 << 10

// DefaultWebhookReadTimeout bounds reading a callback's body when
// WebhookHandler.ReadTimeout is 0. A callback is a few KiB: a sender that
// needs longer is broken or is holding the handler on purpose.
const DefaultWebhookReadTimeout = 10 * time.Second

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

// WebhookHandler is an http.Handler for the service's callbacks: it
// decodes each into a MessageEvent or a PortingEvent and calls the
// function set for its kind; set those you use, nil ones are fine.
//
// The service documents when it calls back but not what it sends, so the
// handler reads the resources' own fields (those of Message or of
// PortingRequest) from a GET query, a JSON body or a form, tolerantly, and
// tells the kinds apart by their fields: a PortingNo is a porting update,
// a MessageSid with Direction Receive an inbound message (or a lease
// response, when InboundMessage is nil), any other MessageSid a delivery
// receipt. Give each kind a URL of its own (DeliveryReceiptHandler and the
// others) when you can. CONTRIBUTING.md records the decoding rules in full.
//
// A callback can arrive more than once: each distinct one's function runs
// once (see Once). The service signs nothing, so set Authorize.
//
// It answers 204 when the function returned nil, now or for an earlier
// delivery; 500 when it failed or panicked (the detail goes to OnError,
// never in the body); 503 when Once could not claim the callback; 401 when
// Authorize refused it, 404 when no function is set for its kind, 400 when
// it cannot be decoded or is of no known kind, 405 for a method other than
// GET or POST (any case), 408 when the body is too slow (ReadTimeout), 413
// or 414 when it is too large (MaxBodyBytes), 415 for a body neither JSON
// nor a form.
//
// It is safe for concurrent use once serving, and must not be copied then;
// the functions may be called concurrently for distinct callbacks.
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

	// ReadTimeout bounds reading the body, from the moment the handler
	// starts, so that a sender trickling bytes cannot hold a handler; 0
	// means DefaultWebhookReadTimeout, a negative value sets no deadline of
	// the handler's own. It is set with http.ResponseController, which
	// net/http's own ResponseWriter supports (and wrappers with an Unwrap
	// method); a shorter ReadTimeout of the server's is kept, and the
	// deadline is cleared once the body is read, so that a slow function
	// is not cut off.
	// Set the server's ReadHeaderTimeout too: headers arrive before any
	// handler runs.
	ReadTimeout time.Duration

	// Authorize, when set, decides whether to take the callback. It runs
	// before anything is read or decoded; false answers 401. It gets the
	// handler's own shallow copy of the request, whose URL it may change
	// (WebhookQuerySecret removes the secret), and the functions' events
	// carry that copy. Compare secrets in constant time.
	Authorize func(*http.Request) bool

	// Once runs each distinct callback's function once, however many times
	// it is delivered: by default with a memory of the handler's own
	// (NewMemoryCallbackOnce(0, 0)), which serves one process; behind a
	// load balancer give the replicas one CallbackOnce on a store they
	// share; EveryDelivery runs the function for every delivery. A message
	// callback is told from another by its kind, MessageSid, Status, the
	// time of that Status and ErrorCode; a porting callback by PortingNo,
	// Status and each number's Status and latest history entry; one
	// without a MessageSid or PortingNo runs every time. A function that
	// fails gives up its claim, so the redelivery runs it again; a
	// delivery arriving while the same callback's function runs waits for
	// it. On by default, because a duplicate costs a second SMS to a
	// customer, while a replay skipped on purpose is seen at once.
	Once CallbackOnce

	// OnError, when set, is told of every callback not answered 2xx: the
	// status given and why (the function's own error for a 500). Use it to
	// log; the response body carries no detail. It is also told, with 204,
	// when Once failed to record a callback whose function succeeded: the
	// work is done, so the sender is told so, but a redelivery may run it
	// again.
	OnError func(r *http.Request, status int, err error)

	only WebhookKind // set by the per-kind constructors: no classification

	memoryInit sync.Once
	memory     CallbackOnce // when Once is nil
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

// WebhookQuerySecret returns a function for WebhookHandler.Authorize that
// takes a callback whose URL query carries one of secrets under the
// parameter param ("secret" when empty): put
// ?secret=<long random value> in every callback URL you configure. During
// a rotation pass the new secret and the old one, configure the new one
// everywhere, then drop the old. Empty secrets are ignored; with none
// left, every call is refused.
//
// Only the first value of param counts, as with any other key. Each
// comparison takes the same time whatever the value sent, and every secret
// is compared, so timing does not tell which matched or how much of one.
// The parameter is removed from the request's URL (RawQuery and
// RequestURI) whether it matched or not, so that the events and OnError
// never show it.
func WebhookQuerySecret(param string, secrets ...string) func(*http.Request) bool {
	if param == "" {
		param = "secret"
	}
	var sums [][sha256.Size]byte
	for _, s := range secrets {
		if s != "" {
			sums = append(sums, sha256.Sum256([]byte(s)))
		}
	}
	return func(r *http.Request) bool {
		got, found := stripQueryParam(r, param)
		// Hashes have one length, so the comparison does not end early on
		// a length that differs.
		sum := sha256.Sum256([]byte(got))
		ok := 0
		for i := range sums {
			ok |= subtle.ConstantTimeCompare(sum[:], sums[i][:])
		}
		return found && ok == 1
	}
}

// stripQueryParam removes every occurrence of param from r's query and
// returns the first one's value, leaving the rest of the query as sent.
func stripQueryParam(r *http.Request, param string) (string, bool) {
	if r.URL == nil || r.URL.RawQuery == "" {
		return "", false
	}
	var first string
	found := false
	parts := strings.Split(r.URL.RawQuery, "&")
	kept := parts[:0]
	for _, part := range parts {
		k, v, _ := strings.Cut(part, "=")
		if key, err := url.QueryUnescape(k); err != nil || key != param {
			kept = append(kept, part)
			continue
		}
		if !found {
			first, _ = url.QueryUnescape(v)
			found = true
		}
	}
	if found {
		r.URL.RawQuery = strings.Join(kept, "&")
		r.URL.ForceQuery = false
		if r.RequestURI != "" {
			r.RequestURI = r.URL.RequestURI()
		}
	}
	return first, found
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
	// A copy whose URL Authorize may change without touching the server's
	// request (handlers must not modify it).
	r2 := *r
	u := *r.URL
	r2.URL = &u
	werr := h.serveRecovering(w, &r2)
	if werr == nil {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if werr.status == http.StatusNoContent { // done, but not recorded
		w.WriteHeader(http.StatusNoContent)
		if h.OnError != nil {
			h.OnError(&r2, werr.status, werr.err)
		}
		return
	}
	if werr.status == http.StatusMethodNotAllowed {
		w.Header().Set("Allow", "GET, POST")
	}
	msg := http.StatusText(werr.status)
	if werr.status < http.StatusInternalServerError {
		msg = werr.err.Error() // about the request, never about the user's code or store
	}
	http.Error(w, msg, werr.status)
	if h.OnError != nil { // after the answer, which a panic here cannot take back
		h.OnError(&r2, werr.status, werr.err)
	}
}

// serveRecovering is serve, with a panic in the user's code (or ours)
// answered 500 instead of dropping the connection without an answer.
// http.ErrAbortHandler, the sanctioned way to abort, is let through.
func (h *WebhookHandler) serveRecovering(w http.ResponseWriter, r *http.Request) (werr *webhookError) {
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			werr = &webhookError{http.StatusInternalServerError, fmt.Errorf("telco: webhook: panic: %v", v)}
		}
	}()
	return h.serve(w, r)
}

func (h *WebhookHandler) serve(w http.ResponseWriter, r *http.Request) *webhookError {
	if h.Authorize != nil && !h.Authorize(r) {
		return reject(http.StatusUnauthorized, "callback not authorized")
	}
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
		return h.runOnce(r, portingCallbackKey(&ev.PortingRequest), func() error {
			return h.PortingUpdate(r.Context(), ev)
		})
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
	return h.runOnce(r, messageCallbackKey(kind, &ev.Message), func() error {
		return f(r.Context(), ev)
	})
}

// runOnce calls run unless the callback with key is done; see Once.
func (h *WebhookHandler) runOnce(r *http.Request, key string, run func() error) (werr *webhookError) {
	if key == "" {
		return userResult(run())
	}
	once := h.once()
	claimed, err := once.Claim(r.Context(), key)
	if err != nil {
		return reject(http.StatusServiceUnavailable, "claiming the callback: %w", err)
	}
	if !claimed {
		return nil // done before
	}
	ok := false
	defer func() { // also when run panics: the claim is given up
		err := once.Done(context.WithoutCancel(r.Context()), key, ok)
		if err == nil {
			return
		}
		err = fmt.Errorf("telco: webhook: recording the callback: %w", err)
		switch {
		case werr != nil:
			werr.err = errors.Join(werr.err, err)
		case ok:
			werr = &webhookError{http.StatusNoContent, err}
		}
	}()
	err = run()
	ok = err == nil
	return userResult(err)
}

// once is Once, or the handler's own memory.
func (h *WebhookHandler) once() CallbackOnce {
	if h.Once != nil {
		return h.Once
	}
	h.memoryInit.Do(func() { h.memory = NewMemoryCallbackOnce(0, 0) })
	return h.memory
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

	body, err := h.readBody(w, r, max)
	if err != nil {
		var tooBig *http.MaxBytesError
		switch {
		case errors.As(err, &tooBig):
			return nil, reject(http.StatusRequestEntityTooLarge, "body over %d bytes", max)
		case errors.Is(err, os.ErrDeadlineExceeded):
			return nil, reject(http.StatusRequestTimeout, "body not read in time")
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
	return jsonFields(body)
}

func (h *WebhookHandler) readTimeout() time.Duration {
	if h.ReadTimeout == 0 {
		return DefaultWebhookReadTimeout
	}
	return h.ReadTimeout
}

// readBody reads the body up to max bytes within the read timeout.
func (h *WebhookHandler) readBody(w http.ResponseWriter, r *http.Request, max int64) ([]byte, error) {
	deadline := false
	rc := http.NewResponseController(w)
	if d := h.readTimeout(); d > 0 {
		// Never later than the server's own ReadTimeout would end the
		// read (counted from now, which is after the headers came).
		if srv, ok := r.Context().Value(http.ServerContextKey).(*http.Server); ok && srv.ReadTimeout > 0 {
			d = min(d, srv.ReadTimeout)
		}
		// Not supported (a ResponseRecorder, a wrapper without Unwrap):
		// the server's own deadlines are all there is.
		deadline = rc.SetReadDeadline(time.Now().Add(d)) == nil
	}
	// With w, the server closes the connection after an oversized body
	// instead of reading the rest of it.
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, max))
	if deadline && err == nil {
		// Cleared once the body is in: net/http keeps reading the
		// connection in the background while the handler runs, and a
		// deadline passing then would cancel the request's context under
		// the user's function. After a failed read it stays, so that the
		// server does not go on reading the rest of a trickled body.
		_ = rc.SetReadDeadline(time.Time{})
	}
	return body, err
}

// jsonFields reads one JSON object's members, each as raw JSON. A member
// given twice counts at its first occurrence, as in a form or a query
// (encoding/json alone would keep the last).
func jsonFields(body []byte) (map[string]json.RawMessage, *webhookError) {
	notObject := reject(http.StatusBadRequest, "body is not one JSON object")
	dec := json.NewDecoder(bytes.NewReader(body))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, notObject
	}
	fields := map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, notObject
		}
		key, ok := tok.(string)
		if !ok {
			return nil, notObject
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, notObject
		}
		if _, dup := fields[key]; !dup {
			fields[key] = v
		}
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return nil, notObject
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, reject(http.StatusBadRequest, "data after the JSON object")
	}
	return fields, nil
}

// formFields turns query or form values into JSON strings, the first value
// of each key (url.ParseQuery keeps them in order of appearance).
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
// Of several keys that differ only in case, memberKey chooses one.
func webhookField(fields map[string]json.RawMessage, name string) (string, bool) {
	if k, ok := memberKey(fields, name); ok {
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
		k, present := memberKey(fields, name)
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
