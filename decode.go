package telco

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// The service's documents disagree on some envelope names, so responses are
// decoded tolerantly: a resource is found under any of its documented keys
// or, failing that, as the bare object; a listing's array under any of its
// documented keys or as a bare array. Unknown fields are ignored.
//
// The common case costs one pass: every envelope key the service uses is a
// typed field of one struct, so encoding/json fills the right one directly.
// Only an answer in an unexpected shape takes the slower generic path.

// A 2xx answer may still be a refusal: the service's documents show a
// whole-request failure as {"ResponseStatus": {"ErrorCode": ..., "Message":
// ...}} without naming its status, and a ServiceStack service can send that
// with 200. When a body holds no resource and such an ErrorCode, the
// envelopes below return a *refusal; doDecode turns it into the *APIError the
// service meant, with the answer's status.

// refusal is the service's error envelope found in a 2xx body that carried
// no resource.
type refusal struct{ s wireStatus }

func (r *refusal) Error() string { return "the service refused the request: " + r.s.ErrorCode }

// refusedIn returns a *refusal when b holds the service's error envelope
// with an ErrorCode, under ResponseStatus or at the top level, and nil
// otherwise. Only an ErrorCode counts: ServiceStack also attaches an empty
// ResponseStatus to successes, and a message alone does not say the request
// was refused. Callers use it only once no resource was found.
func refusedIn(b []byte) error {
	var w wireError
	if json.Unmarshal(b, &w) != nil {
		return nil
	}
	if w.ResponseStatus != nil && w.ResponseStatus.ErrorCode != "" {
		return &refusal{*w.ResponseStatus}
	}
	if w.ErrorCode != "" {
		return &refusal{w.wireStatus}
	}
	return nil
}

// doDecode is do for a call whose answer one of the envelopes in this file
// reads. do reports a decoder's error as an undecodable body (which, for a
// non-idempotent call, matches ErrMaybeSent); a refusal is instead the
// service's own error with the answer's status, and does not match
// ErrMaybeSent: the service says it did not act on the request.
func (c *Client) doDecode(ctx context.Context, r *call, out bodyDecoder) error {
	err := c.do(ctx, r, out)
	// do returns a decoder's error as an *APIError itself, unwrapped. A type
	// assertion, unlike errors.As, costs the common path no allocation.
	if ae, ok := err.(*APIError); ok {
		if rf, ok := ae.err.(*refusal); ok {
			return &APIError{Op: r.op, StatusCode: ae.StatusCode,
				Code: rf.s.ErrorCode, Message: rf.s.Message, Fields: rf.s.Errors}
		}
	}
	return err
}

// bodyDecoder is implemented by the envelopes below; do hands them the body
// itself rather than going through json.Unmarshal, which would validate the
// body once more before calling UnmarshalJSON.
type bodyDecoder interface {
	decodeBody(data []byte) error
}

// one decodes a single resource wrapped as {"Key": {...}}.
type one[T any] struct {
	keys []string // envelope keys, in order of preference
	id   string   // a field only the bare resource has, e.g. "MessageSid"
	val  T
	ok   bool
}

// oneEnvelope holds every single-resource key the service uses.
type oneEnvelope[T any] struct {
	Message             *T `json:"Message"`
	Property            *T `json:"Property"`
	Project             *T `json:"Project"`
	OnlineLogin         *T `json:"OnlineLogin"`
	PortingRequest      *T `json:"PortingRequest"`
	SipTrunk            *T `json:"SipTrunk"`
	Address             *T `json:"Address"`
	Number              *T `json:"Number"`
	NumberConfiguration *T `json:"NumberConfiguration"`
}

func (e *oneEnvelope[T]) pick(key string) *T {
	switch key {
	case "Message":
		return e.Message
	case "Property":
		return e.Property
	case "Project":
		return e.Project
	case "OnlineLogin":
		return e.OnlineLogin
	case "PortingRequest":
		return e.PortingRequest
	case "SipTrunk":
		return e.SipTrunk
	case "Address":
		return e.Address
	case "Number":
		return e.Number
	case "NumberConfiguration":
		return e.NumberConfiguration
	}
	return nil
}

func (o *one[T]) decodeBody(b []byte) error {
	var env oneEnvelope[T]
	// A type error means some key held another shape (a bare number
	// configuration has a string named Number): the slow path sorts it out.
	if json.Unmarshal(b, &env) == nil {
		for _, k := range o.keys {
			if v := env.pick(k); v != nil {
				o.val, o.ok = *v, true
				return nil
			}
		}
	}
	return o.decodeSlow(b)
}

func (o *one[T]) decodeSlow(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	for _, k := range o.keys {
		// Only an object is an envelope: a bare number configuration has a
		// string field named Number, its own envelope key.
		if raw, ok := field(m, k); ok && isObject(raw) {
			o.ok = true
			return json.Unmarshal(raw, &o.val)
		}
	}
	if raw, ok := field(m, o.id); o.id != "" && ok && !isNull(raw) {
		o.ok = true
		return json.Unmarshal(b, &o.val)
	}
	return refusedIn(b)
}

// idAnswer reads an answer that only names the resource acted on, such as
// {"SipTrunkSid": "..."}; id is "" when the key is absent or null.
type idAnswer struct {
	key string
	id  string
}

func (a *idAnswer) decodeBody(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	if raw, ok := field(m, a.key); ok {
		return json.Unmarshal(raw, &a.id)
	}
	return refusedIn(b)
}

// list decodes a listing {"Key": [...], "TotalCount": n, "NextPageToken": s}
// or a bare array.
type list[T any] struct {
	keys  []string
	items []T
	total int
	next  string
	ok    bool
}

// listEnvelope holds every plural key the service's listings use.
type listEnvelope[T any] struct {
	Messages        []T         `json:"Messages"`
	Properties      []T         `json:"Properties"`
	Projects        []T         `json:"Projects"`
	OnlineLogins    []T         `json:"OnlineLogins"`
	SipTrunks       []T         `json:"SipTrunks"`
	PortingRequests []T         `json:"PortingRequests"`
	Numbers         []T         `json:"numbers"`
	Results         []T         `json:"Results"`
	TotalCount      looseCount  `json:"TotalCount"`
	NextPageToken   looseString `json:"NextPageToken"`
	// Only seen when the service refused the request (see refusedIn).
	ResponseStatus json.RawMessage `json:"ResponseStatus"`
	ErrorCode      json.RawMessage `json:"ErrorCode"`
}

func (e *listEnvelope[T]) pick(key string) []T {
	switch key {
	case "Messages":
		return e.Messages
	case "Properties":
		return e.Properties
	case "Projects":
		return e.Projects
	case "OnlineLogins":
		return e.OnlineLogins
	case "SipTrunks":
		return e.SipTrunks
	case "PortingRequests":
		return e.PortingRequests
	case "numbers":
		return e.Numbers
	case "Results":
		return e.Results
	}
	return nil
}

func (l *list[T]) decodeBody(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '[' {
		l.ok = true
		return json.Unmarshal(b, &l.items)
	}
	var env listEnvelope[T]
	if json.Unmarshal(b, &env) != nil {
		return l.decodeSlow(b) // an unexpected shape: find the array by hand
	}
	for _, k := range l.keys {
		if items := env.pick(k); items != nil {
			l.items, l.ok = items, true
			break
		}
	}
	if !l.ok && (env.ResponseStatus != nil || env.ErrorCode != nil) {
		if err := refusedIn(b); err != nil {
			return err
		}
	}
	l.total, l.next = int(env.TotalCount), string(env.NextPageToken)
	return nil
}

func (l *list[T]) decodeSlow(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	for _, k := range l.keys {
		if raw, ok := field(m, k); ok {
			l.ok = true
			if err := json.Unmarshal(raw, &l.items); err != nil {
				return err
			}
			break
		}
	}
	if raw, ok := field(m, "TotalCount"); ok {
		l.total = looseInt(raw)
	}
	if raw, ok := field(m, "NextPageToken"); ok {
		_ = json.Unmarshal(raw, &l.next) // null or a non-string leaves it empty
	}
	if !l.ok {
		return refusedIn(b)
	}
	return nil
}

func (l *list[T]) page() *Page[T] {
	return &Page[T]{Items: l.items, TotalCount: l.total, NextPageToken: l.next}
}

// looseCount reads a count sent as a number or a numeric string; anything
// else is 0 (unknown), never an error.
type looseCount int

func (c *looseCount) UnmarshalJSON(b []byte) error {
	*c = looseCount(looseInt(b))
	return nil
}

// flexInt reads an integer field of a resource sent as a JSON number or,
// tolerantly, as a string holding one; "" and null are 0. Anything else is
// an error: unlike a count, an identifier must not silently become 0.
type flexInt int

func (n *flexInt) UnmarshalJSON(b []byte) error {
	s := string(bytes.TrimSpace(b))
	if s == "null" {
		return nil
	}
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		if s = strings.TrimSpace(s[1 : len(s)-1]); s == "" {
			*n = 0
			return nil
		}
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("telco: want an integer, got %.40s", b)
	}
	*n = flexInt(v)
	return nil
}

// looseString reads a string; null or any other value is "".
type looseString string

func (s *looseString) UnmarshalJSON(b []byte) error {
	var v string
	if json.Unmarshal(b, &v) == nil {
		*s = looseString(v)
	}
	return nil
}

// field finds a key exactly, then case-insensitively.
func field(m map[string]json.RawMessage, k string) (json.RawMessage, bool) {
	if v, ok := m[k]; ok {
		return v, true
	}
	for mk, v := range m {
		if strings.EqualFold(mk, k) {
			return v, true
		}
	}
	return nil, false
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

func isObject(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{'
}

// looseInt reads a count sent as a number or a numeric string; anything
// else is 0 (unknown).
func looseInt(raw json.RawMessage) int {
	s := strings.Trim(string(bytes.TrimSpace(raw)), `"`)
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0
	}
	return n
}

// batchKeys are the envelope keys of a batch answer, which may also be a
// bare array.
var batchKeys = []string{"Messages", "Results"}

// batchElement is one element of a batch answer as the common case has it:
// a message resource. The extra fields only serve to tell the other shapes
// apart (a wrapped {"Message": {...}} or an error element), which then take
// the general path.
type batchElement struct {
	Message
	Wrapped        json.RawMessage `json:"Message"`
	Errors         json.RawMessage `json:"Errors"`
	ResponseStatus json.RawMessage `json:"ResponseStatus"`
}

// batchAnswer decodes a batch answer into one BatchResult per element.
//
// A batch of accepted messages, the common case, costs one pass: every
// element is decoded straight into a message. An answer with any other
// element (an error, a wrapped message, a field of an unexpected type) is
// decoded again element by element by decodeBatchElement, so that the
// result is the same as if every answer took that path.
type batchAnswer struct {
	op      string
	results []BatchResult
}

// errNoBatchResults is a batch answer with neither an array of results nor
// the service's error envelope: an undecodable body.
var errNoBatchResults = errors.New("no array of batch results")

func (a *batchAnswer) decodeBody(b []byte) error {
	fast := list[batchElement]{keys: batchKeys}
	if fast.decodeBody(b) == nil && fast.ok && allMessages(fast.items) {
		a.results = make([]BatchResult, len(fast.items))
		for i := range fast.items {
			a.results[i].Message = &fast.items[i].Message
		}
		return nil
	}
	slow := list[json.RawMessage]{keys: batchKeys}
	if err := slow.decodeBody(b); err != nil {
		return err // a *refusal when the service refused the whole batch
	}
	if !slow.ok {
		return errNoBatchResults
	}
	a.results = make([]BatchResult, len(slow.items))
	for i, raw := range slow.items {
		a.results[i] = decodeBatchElement(a.op, raw)
	}
	return nil
}

// allMessages reports whether every element is a bare message resource.
func allMessages(items []batchElement) bool {
	for i := range items {
		if items[i].MessageSid == "" {
			return false
		}
	}
	return true
}
