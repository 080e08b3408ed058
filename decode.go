package telco

// Envelopes: where the resource is in a 2xx answer.
//
// The service's documents disagree on some envelope names, so answers are
// decoded tolerantly: a resource is found under any of its documented keys
// or, failing that, as the bare object; a listing's array under any of its
// documented keys or as a bare array. Unknown fields are ignored.
//
// The core names no resource and no key. Each service declares the shape
// of its answers beside its types (resourceOf, listOf): the keys, in order
// of preference, and for a resource the field only the bare object has.
// Declaring a shape builds, once, a struct type with one field per key
// (reflect.StructOf), so the common answer costs one json.Unmarshal that
// fills the right field directly. Whenever that pass finds nothing (an
// unexpected shape, a key in another case, a field of another type) the
// tolerant path reads the body as a map and looks again: a key the fast
// pass does not know costs speed, never an empty page.
//
// A 2xx answer may still be a refusal: the service's documents show a
// whole-request failure as {"ResponseStatus": {"ErrorCode": ..., "Message":
// ...}} without naming its status, and a ServiceStack service can send that
// with 200. When a body holds no resource and such an ErrorCode, a decoder
// returns a *refusal, and request.go turns it into the *APIError the
// service meant, with the answer's status; the same check runs for calls
// that expect no body.
//
// Decoders are handed the body itself (bodyDecoder) rather than going
// through json.Unmarshal, which would validate the body once more before
// calling UnmarshalJSON. The body's buffer is reused once decoding ends,
// so nothing a decoder keeps may alias it: encoding/json copies strings and
// json.RawMessage values.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// bodyDecoder reads a 2xx body.
type bodyDecoder interface {
	decodeBody(data []byte) error
}

// refusal is the service's error envelope found in a 2xx body that carried
// no resource.
type refusal struct{ s wireStatus }

func (r *refusal) Error() string { return "the service refused the request: " + r.s.ErrorCode }

// refusedIn returns a *refusal when b holds the service's error envelope
// with an ErrorCode, under ResponseStatus or at the top level, and nil
// otherwise. Only an ErrorCode counts: ServiceStack also attaches an empty
// ResponseStatus to successes, and a message alone does not say the request
// was refused.
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

// resourceShape is where a resource of type T travels: under one of keys,
// in order of preference, or bare, recognised by id.
type resourceShape[T any] struct {
	keys []string
	id   string       // a field only the bare resource has, e.g. "MessageSid"
	fast reflect.Type // struct { K0 *T `json:"keys[0]"`; ... }
}

// resourceOf declares the shape of a resource answer.
func resourceOf[T any](id string, keys ...string) *resourceShape[T] {
	return &resourceShape[T]{keys: keys, id: id, fast: envelopeType(reflect.TypeFor[*T](), keys, nil)}
}

// listShape is where a listing of T travels: its array under one of keys,
// or a bare array.
type listShape[T any] struct {
	keys []string
	fast reflect.Type // struct { K0 []T `json:"keys[0]"`; ...; listMeta fields }
}

// listOf declares the shape of a listing answer.
func listOf[T any](keys ...string) *listShape[T] {
	return &listShape[T]{keys: keys, fast: envelopeType(reflect.TypeFor[[]T](), keys, listMeta)}
}

// listMeta are the fields a listing carries beside its array. The last two
// are only seen when the service refused the request.
var listMeta = []reflect.StructField{
	{Name: "TotalCount", Type: reflect.TypeFor[looseCount](), Tag: `json:"TotalCount"`},
	{Name: "NextPageToken", Type: reflect.TypeFor[looseString](), Tag: `json:"NextPageToken"`},
	{Name: "ResponseStatus", Type: reflect.TypeFor[json.RawMessage](), Tag: `json:"ResponseStatus"`},
	{Name: "ErrorCode", Type: reflect.TypeFor[json.RawMessage](), Tag: `json:"ErrorCode"`},
}

// envelopeType builds a struct with a field of type t for each key, then
// the extra fields.
func envelopeType(t reflect.Type, keys []string, extra []reflect.StructField) reflect.Type {
	fields := make([]reflect.StructField, 0, len(keys)+len(extra))
	for i, k := range keys {
		fields = append(fields, reflect.StructField{Name: "K" + strconv.Itoa(i), Type: t,
			Tag: reflect.StructTag(`json:"` + k + `"`)})
	}
	return reflect.StructOf(append(fields, extra...))
}

// one decodes a single resource. val is the value encoding/json allocated
// for the envelope's field, handed to the caller as it is: copying it out
// would cost a copy of the resource and a second allocation.
type one[T any] struct {
	shape *resourceShape[T]
	val   *T // non-nil when ok
	ok    bool
}

func (o *one[T]) decodeBody(b []byte) error {
	if o.decodeFast(b) {
		return nil
	}
	return o.decodeSlow(b)
}

// decodeFast reports whether the one-pass envelope found the resource. A
// type error means some key held another shape (a bare number
// configuration has a string named Number): the slow path sorts it out.
func (o *one[T]) decodeFast(b []byte) bool {
	env := reflect.New(o.shape.fast)
	if json.Unmarshal(b, env.Interface()) != nil {
		return false
	}
	e := env.Elem()
	for i := range o.shape.keys {
		if v, _ := e.Field(i).Interface().(*T); v != nil {
			o.val, o.ok = v, true
			return true
		}
	}
	return false
}

func (o *one[T]) decodeSlow(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	for _, k := range o.shape.keys {
		// Only an object is an envelope: a bare number configuration has a
		// string field named Number, its own envelope key.
		if raw, ok := field(m, k); ok && isObject(raw) {
			o.val, o.ok = new(T), true
			return json.Unmarshal(raw, o.val)
		}
	}
	if raw, ok := field(m, o.shape.id); o.shape.id != "" && ok && !isNull(raw) {
		o.val, o.ok = new(T), true
		return json.Unmarshal(b, o.val)
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
	shape *listShape[T]
	items []T
	total int
	next  string
	ok    bool
}

func (l *list[T]) decodeBody(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '[' {
		l.ok = true
		return json.Unmarshal(b, &l.items)
	}
	found, err := l.decodeFast(b)
	if found || err != nil {
		return err
	}
	// Nothing under a key the fast pass knows: look again, tolerantly,
	// before calling the listing empty.
	return l.decodeSlow(b)
}

// decodeFast reads the listing in one pass. It reports whether it found
// the array, or returns the refusal the body holds instead.
func (l *list[T]) decodeFast(b []byte) (found bool, err error) {
	env := reflect.New(l.shape.fast)
	if json.Unmarshal(b, env.Interface()) != nil {
		return false, nil // an unexpected shape: the slow path finds the array by hand
	}
	e := env.Elem()
	n := len(l.shape.keys)
	for i := 0; i < n; i++ {
		if items := *e.Field(i).Addr().Interface().(*[]T); items != nil {
			l.items, l.ok = items, true
			break
		}
	}
	if !l.ok {
		if len(e.Field(n+2).Bytes()) > 0 || len(e.Field(n+3).Bytes()) > 0 {
			if err := refusedIn(b); err != nil {
				return false, err
			}
		}
		return false, nil
	}
	l.total = int(e.Field(n).Interface().(looseCount))
	l.next = string(e.Field(n + 1).Interface().(looseString))
	return true, nil
}

func (l *list[T]) decodeSlow(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	for _, k := range l.shape.keys {
		// null is no array, as on the fast path.
		if raw, ok := field(m, k); ok && !isNull(raw) {
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
