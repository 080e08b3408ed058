package telco

// Reading answers: where the resource is in a 2xx body, and how
// tolerantly it is read. One policy serves every answer of the service;
// this comment is its one statement.
//
// The service's documents disagree with each other and leave shapes out,
// so an answer is read for what it means rather than for one spelling:
//
//   - Envelopes. A resource is found under any of its documented keys or,
//     failing that, bare (recognised by a field only the bare object
//     has); a listing's array under any of its keys or as a bare array.
//     Keys match exactly, then in any case; a null envelope is no
//     envelope.
//   - Listing metadata never costs a page: a count (TotalCount, and a
//     number-block page's PageIndex and PageSize) that is not an integer
//     is 0, unknown; a token or sort field that is not a string is "".
//   - Integers. Every integer field of every resource is read from a JSON
//     number or from a string holding one (" 12 ", "+61299999999"); ""
//     and null are 0. Anything else fails the answer: an identifier must
//     not silently become 0. intOf is the rule, for every integer.
//   - Fields match their JSON names exactly, then in any case, as
//     encoding/json matches them; unknown members are ignored; null
//     leaves a field zero. Resources whose fields are guessed (inferred.go)
//     also take aliases, and keep in Extra what no field could hold
//     instead of failing.
//   - A type that decodes itself keeps its own forms: DateTime's
//     "/Date(ms+hhmm)/", Timestamp's seconds or dates, capabilities and
//     scopes as a string or an array.
//
// Passes apply the policy at the cost of one in the common case. The
// core names no resource and no key: each service declares the shape of
// its answers beside its types (resourceOf, listOf), that is the keys, in
// order of preference, and for a resource the field only the bare object
// has. For a resource whose fields are all strings, booleans, integers
// and types that decode themselves (a Message, a Property), a scanner
// (flatjson.go) reads the documented envelope first, several times faster
// than encoding/json; it gives up, to the passes below, on anything it
// would read differently from them.
// Declaring a shape builds, once, a struct type with one field per key
// plus listMeta (reflect.StructOf), so the documented answer costs one
// json.Unmarshal that fills the right field directly. Whenever that pass
// finds nothing or meets a value of another type (an unexpected shape, a
// key the shape does not declare, an integer sent as a string), the
// tolerant pass reads the body as a map, looks for the envelope again and
// decodes the resource with decodeLoose: encoding/json first, then, where
// that fails on a type, field by field (decodeObject), with intOf for
// integers. A key the fast pass does not know costs speed, never an empty
// page.
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
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
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
	flat *flatType    // T's fields for the scanner (flatjson.go); nil: none
	// envs holds zeroed envelopes (pointers to fast) between answers:
	// the envelope is scaffolding, only the *T it finds is kept.
	envs sync.Pool
}

// resourceOf declares the shape of a resource answer.
func resourceOf[T any](id string, keys ...string) *resourceShape[T] {
	return &resourceShape[T]{keys: keys, id: id, fast: envelopeType(reflect.TypeFor[*T](), keys, false),
		flat: flatShape[T](keys, nil)}
}

// listShape is where a listing of T travels: its array under one of keys,
// or a bare array.
type listShape[T any] struct {
	keys []string
	fast reflect.Type // struct { K0 []T `json:"keys[0]"`; ...; listMeta }
	flat *flatType    // T's fields for the scanner (flatjson.go); nil: none
}

// listOf declares the shape of a listing answer.
func listOf[T any](keys ...string) *listShape[T] {
	return &listShape[T]{keys: keys, fast: envelopeType(reflect.TypeFor[[]T](), keys, true),
		flat: flatShape[T](keys, listMetaNames)}
}

// flatShape returns T's field table for the scanner, or nil when T is not
// flat or the envelope's keys are more than it reads (four), or two of
// them, or one of them and a metadata member, are equal in any case.
func flatShape[T any](keys, meta []string) *flatType {
	if len(keys) > 4 {
		return nil
	}
	names := append(append([]string(nil), keys...), meta...)
	for i, a := range names {
		for _, b := range names[i+1:] {
			if foldEqual(a, b) {
				return nil
			}
		}
	}
	return flatTypeOf(reflect.TypeFor[T]())
}

// listMeta is what a listing carries beside its array, each field read by
// the policy for listing metadata: it never fails. The last two are only
// seen when the service refused the request.
type listMeta struct {
	TotalCount    looseCount  `json:"TotalCount"`
	NextPageToken looseString `json:"NextPageToken"`
	// The number-block searches page by index and say how they sorted.
	PageIndex      looseCount      `json:"PageIndex"`
	PageSize       looseCount      `json:"PageSize"`
	SortBy         looseString     `json:"SortBy"`
	SortDir        looseString     `json:"SortDir"`
	ResponseStatus json.RawMessage `json:"ResponseStatus"`
	ErrorCode      json.RawMessage `json:"ErrorCode"`
}

// envelopeType builds a struct with a field of type t for each key, then,
// for a listing, listMeta embedded so that its fields sit beside the keys.
func envelopeType(t reflect.Type, keys []string, meta bool) reflect.Type {
	fields := make([]reflect.StructField, 0, len(keys)+1)
	for i, k := range keys {
		fields = append(fields, reflect.StructField{Name: "K" + strconv.Itoa(i), Type: t,
			Tag: reflect.StructTag(`json:"` + k + `"`)})
	}
	if meta {
		fields = append(fields, reflect.StructField{Name: "ListMeta", Type: reflect.TypeFor[listMeta](), Anonymous: true})
	}
	return reflect.StructOf(fields)
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
	if o.shape.flat != nil {
		if v, ok := flatOne(b, o.shape); ok {
			o.val, o.ok = v, true
			return nil
		}
	}
	if o.decodeFast(b) {
		return nil
	}
	return o.decodeSlow(b)
}

// decodeFast reports whether the one-pass envelope found the resource. A
// type error means some key held another shape (a bare number
// configuration has a string named Number) or a field another type (an
// integer as a string): the tolerant pass sorts it out.
func (o *one[T]) decodeFast(b []byte) bool {
	p := o.shape.envs.Get()
	if p == nil {
		p = reflect.New(o.shape.fast).Interface()
	}
	e := reflect.ValueOf(p).Elem()
	defer func() {
		e.SetZero() // the envelope keeps no pointer to the answer
		o.shape.envs.Put(p)
	}()
	if json.Unmarshal(b, p) != nil {
		return false
	}
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
			return decodeLoose(raw, o.val)
		}
	}
	if raw, ok := field(m, o.shape.id); o.shape.id != "" && ok && !isNull(raw) {
		o.val, o.ok = new(T), true
		return decodeLoose(b, o.val)
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
	meta  listMeta
	ok    bool
}

func (l *list[T]) decodeBody(b []byte) error {
	b = trimJSONSpace(b)
	if len(b) > 0 && b[0] == '[' {
		l.ok = true
		if l.shape.flat != nil {
			if items, ok := flatBare[T](b, l.shape.flat); ok {
				l.items = items
				return nil
			}
		}
		return decodeLoose(b, &l.items)
	}
	if l.shape.flat != nil {
		if items, meta, ok := flatList(b, l.shape); ok {
			l.items, l.meta, l.ok = items, meta, true
			return nil
		}
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
	// Through a pointer: boxing the struct itself would allocate a copy.
	meta := e.Field(n).Addr().Interface().(*listMeta)
	if !l.ok {
		if len(meta.ResponseStatus) > 0 || len(meta.ErrorCode) > 0 {
			if err := refusedIn(b); err != nil {
				return false, err
			}
		}
		return false, nil
	}
	l.meta = *meta
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
			if err := decodeLoose(raw, &l.items); err != nil {
				return err
			}
			break
		}
	}
	_ = json.Unmarshal(b, &l.meta) // an object, and listMeta's fields never fail
	if !l.ok {
		return refusedIn(b)
	}
	return nil
}

func (l *list[T]) page() *Page[T] {
	return &Page[T]{Items: l.items, TotalCount: int(l.meta.TotalCount), NextPageToken: string(l.meta.NextPageToken)}
}

// intOf reads an integer by the policy: a JSON number, or a string
// holding one, spaces around it and a leading + allowed; "" and null are
// 0. The common forms are read without allocating.
func intOf(b []byte) (int64, error) {
	b = bytes.TrimSpace(b)
	if len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' {
		if b = bytes.TrimSpace(b[1 : len(b)-1]); len(b) == 0 {
			return 0, nil
		}
	} else if string(b) == "null" {
		return 0, nil
	}
	if len(b) > 1 && b[0] == '+' && b[1] >= '0' && b[1] <= '9' {
		b = b[1:]
	}
	if n, ok := fastInt(b); ok {
		return n, nil
	}
	n, err := strconv.ParseInt(string(b), 10, 64) // 19 digits, or not a number
	if err != nil {
		return 0, fmt.Errorf("want an integer, got %.40s", b)
	}
	return n, nil
}

// looseCount is a count of listing metadata: an integer by intOf, and 0
// (unknown) for anything else, never an error.
type looseCount int

func (c *looseCount) UnmarshalJSON(b []byte) error {
	n, err := intOf(b)
	if err != nil || int64(int(n)) != n {
		n = 0
	}
	*c = looseCount(n)
	return nil
}

// flexInt is an integer field of a wire type read by intOf on the fast
// pass: for a field the service may send either way in every element of
// a long answer (a lookup's e164), where a second, tolerant pass would
// cost the whole answer. null leaves it as it was.
type flexInt int64

func (n *flexInt) UnmarshalJSON(b []byte) error {
	if isNull(b) {
		return nil
	}
	v, err := intOf(b)
	if err != nil {
		return fmt.Errorf("telco: %w", err)
	}
	*n = flexInt(v)
	return nil
}

// looseString reads a string; null or any other value is "".
type looseString string

func (s *looseString) UnmarshalJSON(b []byte) error {
	// A valid UTF-8 string without escapes, the common case, is read
	// without encoding/json's second pass over it.
	if n := len(b); n >= 2 && b[0] == '"' && b[n-1] == '"' && bytes.IndexByte(b, '\\') < 0 && utf8.Valid(b) {
		*s = looseString(b[1 : n-1])
		return nil
	}
	var v string
	if json.Unmarshal(b, &v) == nil {
		*s = looseString(v)
	}
	return nil
}

// decodeLoose decodes the JSON value b into what v points to by the
// policy: encoding/json first, and, where it fails on a value of another
// type, the value again piece by piece, so that an integer sent as a
// string is read and only what the policy refuses fails. Other errors (b
// is not JSON, a type's own decoder refused its value) are returned as
// they are.
func decodeLoose(b []byte, v any) error {
	return decodeValue(b, reflect.ValueOf(v).Elem())
}

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// decodeValue decodes raw into v, which is addressable, by the policy.
func decodeValue(raw []byte, v reflect.Value) error {
	err := json.Unmarshal(raw, v.Addr().Interface())
	var te *json.UnmarshalTypeError
	if err == nil || !errors.As(err, &te) || v.Addr().Type().Implements(unmarshalerType) {
		return err // a type that decodes itself keeps its own rules
	}
	switch v.Kind() {
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		if err := decodeValue(raw, p.Elem()); err != nil {
			return err
		}
		v.Set(p)
		return nil
	case reflect.Struct:
		_, err := decodeObject(raw, v, false)
		return err
	case reflect.Slice:
		var elems []json.RawMessage
		if json.Unmarshal(raw, &elems) != nil {
			return err
		}
		s := reflect.MakeSlice(v.Type(), len(elems), len(elems))
		for i, e := range elems {
			if err := decodeValue(e, s.Index(i)); err != nil {
				return err
			}
		}
		v.Set(s)
		return nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := intOf(raw)
		if err != nil {
			return err
		}
		if v.OverflowInt(n) {
			return fmt.Errorf("integer %d out of range", n)
		}
		v.SetInt(n)
		return nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, err := intOf(raw)
		if err != nil {
			return err
		}
		if n < 0 || v.OverflowUint(uint64(n)) {
			return fmt.Errorf("integer %d out of range", n)
		}
		v.SetUint(uint64(n))
		return nil
	}
	return err
}

// fieldError names the member a tolerant decode failed on, as a path of
// JSON names ("AnalyticsDynamicNumbers.Id").
type fieldError struct {
	path string
	err  error
}

func (e *fieldError) Error() string { return "telco: reading " + e.path + ": " + e.err.Error() }
func (e *fieldError) Unwrap() error { return e.err }

// decodeObject decodes the JSON object b into the struct rv field by
// field, each member by decodeValue, and returns the members no field
// took, nil when there are none. A member a field cannot hold fails the
// decode, or, with keep (a resource whose fields are guessed), leaves the
// field zero and is returned with the others. It fails when b is not a
// JSON object.
func decodeObject(b []byte, rv reflect.Value, keep bool) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	rv.SetZero()
	taken := make(map[string]bool, len(m))
	for _, f := range wireFields(rv.Type()) {
		for _, name := range f.names {
			key, ok := memberKey(m, name)
			if !ok || taken[key] {
				continue
			}
			fv := rv.FieldByIndex(f.index)
			if err := decodeValue(m[key], fv); err != nil {
				fv.SetZero()
				if !keep {
					if fe, ok := err.(*fieldError); ok {
						return nil, &fieldError{path: name + "." + fe.path, err: fe.err}
					}
					return nil, &fieldError{path: name, err: err}
				}
				continue // kept with the members no field took
			}
			taken[key] = true
			break
		}
	}
	var rest map[string]json.RawMessage
	for k, raw := range m {
		if !taken[k] {
			if rest == nil {
				rest = map[string]json.RawMessage{}
			}
			rest[k] = raw
		}
	}
	return rest, nil
}

// wireField is one field of a wire struct: its JSON names (the tag's
// first, then any `alias:"A,B"`) and its index for FieldByIndex.
type wireField struct {
	names []string
	index []int
}

// wireFieldsOf caches wireFields.
var wireFieldsOf sync.Map // reflect.Type -> []wireField

// wireFields lists the JSON fields of struct type t as encoding/json sees
// them, those of embedded structs included, leaving out Extra and fields
// tagged "-".
func wireFields(t reflect.Type) []wireField {
	if v, ok := wireFieldsOf.Load(t); ok {
		return v.([]wireField)
	}
	var out []wireField
	var walk func(t reflect.Type, prefix []int)
	walk = func(t reflect.Type, prefix []int) {
		for i := range t.NumField() {
			f := t.Field(i)
			index := append(append([]int(nil), prefix...), i)
			tag := f.Tag.Get("json")
			if f.Anonymous && f.Type.Kind() == reflect.Struct && tag == "" {
				walk(f.Type, index)
				continue
			}
			if !f.IsExported() || f.Name == "Extra" || tag == "-" {
				continue
			}
			name, _, _ := strings.Cut(tag, ",")
			if name == "" {
				name = f.Name
			}
			names := []string{name}
			if a := f.Tag.Get("alias"); a != "" {
				names = append(names, strings.Split(a, ",")...)
			}
			out = append(out, wireField{names: names, index: index})
		}
	}
	walk(t, nil)
	wireFieldsOf.Store(t, out)
	return out
}

// field finds a member exactly, then in any case.
func field(m map[string]json.RawMessage, k string) (json.RawMessage, bool) {
	if key, ok := memberKey(m, k); ok {
		return m[key], true
	}
	return nil, false
}

// memberKey finds the member named name exactly, else in any case, and
// returns its key as sent. Of several members spelt in other cases it
// takes the least, so that the same body always reads the same.
func memberKey(m map[string]json.RawMessage, name string) (string, bool) {
	if _, ok := m[name]; ok {
		return name, true
	}
	best, found := "", false
	for k := range m {
		if strings.EqualFold(k, name) && (!found || k < best) {
			best, found = k, true
		}
	}
	return best, found
}

func isNull(raw []byte) bool { return string(trimJSONSpace(raw)) == "null" }

func isObject(raw json.RawMessage) bool {
	raw = trimJSONSpace(raw)
	return len(raw) > 0 && raw[0] == '{'
}

// trimJSONSpace trims the whitespace JSON allows around a value (space,
// tab, CR, LF) and nothing else: bytes.TrimSpace would also take a
// vertical tab or a no-break space and make a body that is not JSON read
// as one.
func trimJSONSpace(b []byte) []byte { return bytes.Trim(b, " \t\r\n") }
