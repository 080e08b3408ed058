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
//     not silently become 0. intOfText is the rule, for every integer.
//   - Fields match their JSON names exactly, then in any case, as
//     encoding/json matches them; unknown members are ignored; null
//     leaves a field zero. Resources whose fields are guessed (inferred.go)
//     also take aliases, and keep in Extra what no field could hold
//     instead of failing.
//   - A type that decodes itself keeps its own forms: DateTime's
//     "/Date(ms+hhmm)/", Timestamp's seconds or dates, capabilities and
//     scopes as a string or an array.
//
// The policy costs at most two passes over a body, both encoding/json's:
//
//  1. the typed pass: json.Unmarshal into the answer's envelope, a struct
//     built once per shape (reflect.StructOf) with a field per documented
//     key; the documented answer ends here;
//  2. the tolerant pass, when the first found nothing or met a value of
//     another type: the body is parsed once into a tree (parseTree, numbers
//     kept as written), and the envelope, the fields and the integers are
//     read from the tree by assign, the policy's one field walk.
//
// Each service declares the shape of its answers beside its types
// (resourceOf, listOf): the keys, in order of preference, and for a
// resource the field only the bare object has. A service does not write a
// tolerant decoder of its own.
//
// A 2xx answer may still be a refusal: the service's documents show a
// whole-request failure as {"ResponseStatus": {"ErrorCode": ..., "Message":
// ...}} without naming its status, and a ServiceStack service can send that
// with 200. When a body holds no resource and such an ErrorCode, a decoder
// returns a *refusal, and request.go turns it into the *APIError the
// service meant, with the answer's status; the same check runs for calls
// that expect no body.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"sync"
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
	tree, err := parseTree(b)
	if err != nil {
		return nil
	}
	return refusedInTree(tree)
}

// refusedInTree is refusedIn for a body already parsed.
func refusedInTree(tree any) error {
	m, ok := tree.(map[string]any)
	if !ok {
		return nil
	}
	var w wireError
	if assignObject(m, reflect.ValueOf(&w).Elem()) != nil {
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
	env  reflect.Type // struct { K0 *T `json:"keys[0]"`; ... }
}

// resourceOf declares the shape of a resource answer.
func resourceOf[T any](id string, keys ...string) *resourceShape[T] {
	return &resourceShape[T]{keys: keys, id: id, env: envelopeType(reflect.TypeFor[*T](), keys, false)}
}

// listShape is where a listing of T travels: its array under one of keys,
// or a bare array.
type listShape[T any] struct {
	keys []string
	env  reflect.Type // struct { K0 []T `json:"keys[0]"`; ...; listMeta }
}

// listOf declares the shape of a listing answer.
func listOf[T any](keys ...string) *listShape[T] {
	return &listShape[T]{keys: keys, env: envelopeType(reflect.TypeFor[[]T](), keys, true)}
}

// listMeta is what a listing carries beside its array, each field read by
// the policy for listing metadata: it never fails.
type listMeta struct {
	TotalCount    looseCount  `json:"TotalCount"`
	NextPageToken looseString `json:"NextPageToken"`
	// The number-block searches page by index and say how they sorted.
	PageIndex looseCount  `json:"PageIndex"`
	PageSize  looseCount  `json:"PageSize"`
	SortBy    looseString `json:"SortBy"`
	SortDir   looseString `json:"SortDir"`
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

// oneAnswer decodes a single resource.
type oneAnswer[T any] struct {
	shape *resourceShape[T]
	val   *T // non-nil when ok
	ok    bool
}

func (o *oneAnswer[T]) decodeBody(b []byte) error {
	if o.typed(b) {
		return nil
	}
	tree, err := parseTree(b)
	if err != nil {
		return err
	}
	return o.tolerant(tree)
}

// typed is the first pass: it reports whether the envelope held the
// resource. A type error means some key held another shape (a bare number
// configuration has a string named Number) or a field another type (an
// integer as a string): the tolerant pass sorts it out.
func (o *oneAnswer[T]) typed(b []byte) bool {
	env := reflect.New(o.shape.env)
	if json.Unmarshal(b, env.Interface()) != nil {
		return false
	}
	for i := range o.shape.keys {
		if v := env.Elem().Field(i).Interface().(*T); v != nil {
			o.val, o.ok = v, true
			return true
		}
	}
	return false
}

// tolerant is the second pass, over the parsed body.
func (o *oneAnswer[T]) tolerant(tree any) error {
	m, err := objectOrNull(tree)
	if err != nil {
		return err
	}
	for _, k := range o.shape.keys {
		// Only an object is an envelope: a bare number configuration has a
		// string field named Number, its own envelope key.
		if node, ok := member(m, k); ok {
			if inner, isObj := node.(map[string]any); isObj {
				return o.take(inner)
			}
		}
	}
	if node, ok := member(m, o.shape.id); o.shape.id != "" && ok && node != nil {
		return o.take(m)
	}
	return refusedInTree(m)
}

func (o *oneAnswer[T]) take(node any) error {
	o.val, o.ok = new(T), true
	return assign(node, reflect.ValueOf(o.val).Elem())
}

// idAnswer reads an answer that only names the resource acted on, such as
// {"SipTrunkSid": "..."}; id is "" when the key is absent or null.
type idAnswer struct {
	key string
	id  string
}

func (a *idAnswer) decodeBody(b []byte) error {
	tree, err := parseTree(b)
	if err != nil {
		return err
	}
	m, err := objectOrNull(tree)
	if err != nil {
		return err
	}
	if node, ok := member(m, a.key); ok {
		return assign(node, reflect.ValueOf(&a.id).Elem())
	}
	return refusedInTree(m)
}

// listAnswer decodes a listing {"Key": [...], "TotalCount": n, "NextPageToken": s}
// or a bare array.
type listAnswer[T any] struct {
	shape *listShape[T]
	items []T
	meta  listMeta
	ok    bool
}

func (l *listAnswer[T]) decodeBody(b []byte) error {
	if l.typed(b) {
		return nil
	}
	tree, err := parseTree(b)
	if err != nil {
		return err
	}
	return l.tolerant(tree)
}

// typed is the first pass: it reports whether it found the array.
func (l *listAnswer[T]) typed(b []byte) bool {
	if b = trimJSONSpace(b); len(b) > 0 && b[0] == '[' {
		var items []T
		if json.Unmarshal(b, &items) != nil {
			return false
		}
		l.items, l.ok = items, true
		return true
	}
	env := reflect.New(l.shape.env).Elem()
	if json.Unmarshal(b, env.Addr().Interface()) != nil {
		return false
	}
	for i := range l.shape.keys {
		if items := env.Field(i).Interface().([]T); items != nil {
			l.items, l.ok = items, true
			l.meta = env.Field(len(l.shape.keys)).Interface().(listMeta)
			return true
		}
	}
	return false
}

// tolerant is the second pass, over the parsed body.
func (l *listAnswer[T]) tolerant(tree any) error {
	items := reflect.ValueOf(&l.items).Elem()
	if _, isArr := tree.([]any); isArr {
		l.ok = true
		return assign(tree, items)
	}
	m, err := objectOrNull(tree)
	if err != nil {
		return err
	}
	_ = assignObject(m, reflect.ValueOf(&l.meta).Elem()) // listMeta's fields never fail
	for _, k := range l.shape.keys {
		// null is no array, as on the first pass.
		if node, ok := member(m, k); ok && node != nil {
			l.ok = true
			return assign(node, items)
		}
	}
	return refusedInTree(m)
}

func (l *listAnswer[T]) page() *Page[T] {
	return &Page[T]{Items: l.items, TotalCount: int(l.meta.TotalCount), NextPageToken: string(l.meta.NextPageToken)}
}

// decodeLoose decodes the JSON value b into what v points to by the
// policy, in at most the two passes: encoding/json, and where it fails
// on anything but the syntax, the tree.
func decodeLoose(b []byte, v any) error {
	err := json.Unmarshal(b, v)
	var se *json.SyntaxError
	if err == nil || errors.As(err, &se) {
		return err
	}
	tree, err := parseTree(b)
	if err != nil {
		return err
	}
	return assign(tree, reflect.ValueOf(v).Elem())
}

// parseTree parses b, one JSON value, into maps, slices, strings, bools,
// nil and json.Numbers (numbers as written, so that no integer is
// rounded through a float).
func parseTree(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("invalid JSON: data after the top-level value")
	}
	return tree, nil
}

// objectOrNull returns the object tree is; null is an empty one, an answer
// that holds nothing.
func objectOrNull(tree any) (map[string]any, error) {
	switch m := tree.(type) {
	case map[string]any:
		return m, nil
	case nil:
		return nil, nil
	}
	return nil, fmt.Errorf("want a JSON object, got %s", nodeKind(tree))
}

// treeDecoder is a type that reads itself from a parsed body (the
// resources of inferred.go), sparing assign a round trip through bytes.
type treeDecoder interface {
	decodeTree(node any) error
}

var (
	treeDecoderType = reflect.TypeFor[treeDecoder]()
	unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
)

// assign sets v, which is addressable, from node by the policy: the one
// field walk of the tolerant pass. A type that decodes itself gets its
// value as JSON.
func assign(node any, v reflect.Value) error {
	switch pt := v.Addr().Type(); {
	case pt.Implements(treeDecoderType):
		return v.Addr().Interface().(treeDecoder).decodeTree(node)
	case pt.Implements(unmarshalerType):
		return v.Addr().Interface().(json.Unmarshaler).UnmarshalJSON(marshalNode(node))
	}
	if node == nil {
		switch v.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
			v.SetZero()
		}
		return nil // null leaves any other field as it is
	}
	switch v.Kind() {
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		if err := assign(node, p.Elem()); err != nil {
			return err
		}
		v.Set(p)
		return nil
	case reflect.Struct:
		if m, ok := node.(map[string]any); ok {
			return assignObject(m, v)
		}
	case reflect.Slice:
		if arr, ok := node.([]any); ok {
			s := reflect.MakeSlice(v.Type(), len(arr), len(arr))
			for i, e := range arr {
				if err := assign(e, s.Index(i)); err != nil {
					return err
				}
			}
			v.Set(s)
			return nil
		}
	case reflect.Map:
		if m, ok := node.(map[string]any); ok && v.Type().Key().Kind() == reflect.String {
			out := reflect.MakeMapWithSize(v.Type(), len(m))
			for k, e := range m {
				ev := reflect.New(v.Type().Elem()).Elem()
				if err := assign(e, ev); err != nil {
					return err
				}
				out.SetMapIndex(reflect.ValueOf(k).Convert(v.Type().Key()), ev)
			}
			v.Set(out)
			return nil
		}
	case reflect.String:
		if s, ok := node.(string); ok {
			v.SetString(s)
			return nil
		}
	case reflect.Bool:
		if b, ok := node.(bool); ok {
			v.SetBool(b)
			return nil
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := intOfNode(node)
		if err != nil {
			return err
		}
		if v.OverflowInt(n) {
			return fmt.Errorf("integer %d out of range", n)
		}
		v.SetInt(n)
		return nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, err := intOfNode(node)
		if err != nil {
			return err
		}
		if n < 0 || v.OverflowUint(uint64(n)) {
			return fmt.Errorf("integer %d out of range", n)
		}
		v.SetUint(uint64(n))
		return nil
	case reflect.Float32, reflect.Float64:
		if n, ok := node.(json.Number); ok {
			f, err := strconv.ParseFloat(string(n), 64)
			if err != nil || v.OverflowFloat(f) {
				return fmt.Errorf("number %s out of range", n)
			}
			v.SetFloat(f)
			return nil
		}
	case reflect.Interface:
		if v.NumMethod() == 0 {
			v.Set(reflect.ValueOf(node))
			return nil
		}
	}
	return fmt.Errorf("want %s, got %s", v.Type(), nodeKind(node))
}

// assignObject sets the struct rv from the object m, member by member.
func assignObject(m map[string]any, rv reflect.Value) error {
	_, err := assignFields(m, rv, false)
	return err
}

// assignFields sets the struct rv's fields from the members of m, each
// found by the field's JSON name, then its aliases, exactly, then in any
// case, and returns the members no field took (with keep only). A member
// a field cannot hold fails the decode, or, with keep (a resource whose
// fields are guessed), leaves the field zero and is returned with the
// others.
func assignFields(m map[string]any, rv reflect.Value, keep bool) (map[string]json.RawMessage, error) {
	rv.SetZero()
	taken := make(map[string]bool, len(m))
	for _, f := range wireFields(rv.Type()) {
		for _, name := range f.names {
			key, ok := memberKey(m, name)
			if !ok || taken[key] {
				continue
			}
			fv := rv.FieldByIndex(f.index)
			if err := assign(m[key], fv); err != nil {
				fv.SetZero()
				if !keep {
					return nil, inField(name, err)
				}
				continue // kept with the members no field took
			}
			taken[key] = true
			break
		}
	}
	if !keep {
		return nil, nil
	}
	var rest map[string]json.RawMessage
	for k, node := range m {
		if !taken[k] {
			if rest == nil {
				rest = map[string]json.RawMessage{}
			}
			rest[k] = marshalNode(node)
		}
	}
	return rest, nil
}

// marshalNode writes a parsed value back as JSON: the same value, written
// compactly, without HTML escapes.
func marshalNode(node any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(node) != nil {
		return json.RawMessage("null") // a parsed tree always encodes
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// nodeKind names a parsed value's JSON type, for errors.
func nodeKind(node any) string {
	switch node.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	}
	return fmt.Sprintf("%T", node)
}

// fieldError names the member a tolerant decode failed on, as a path of
// JSON names ("AnalyticsDynamicNumbers.Id").
type fieldError struct {
	path string
	err  error
}

func (e *fieldError) Error() string { return "telco: reading " + e.path + ": " + e.err.Error() }
func (e *fieldError) Unwrap() error { return e.err }

// inField is err, met reading the member name, as a fieldError whose
// path begins with name.
func inField(name string, err error) *fieldError {
	if fe, ok := err.(*fieldError); ok {
		return &fieldError{path: name + "." + fe.path, err: fe.err}
	}
	return &fieldError{path: name, err: err}
}

// intOfText reads an integer by the policy from the text of a JSON number
// or string: spaces around it and a leading + allowed; "" is 0.
func intOfText(s string) (int64, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, nil
	}
	if len(t) > 1 && t[0] == '+' && t[1] >= '0' && t[1] <= '9' {
		t = t[1:]
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("want an integer, got %.40q", s)
	}
	return n, nil
}

// intOfNode reads an integer by the policy from a parsed value.
func intOfNode(node any) (int64, error) {
	switch n := node.(type) {
	case nil:
		return 0, nil
	case json.Number:
		return intOfText(string(n))
	case string:
		return intOfText(n)
	}
	return 0, fmt.Errorf("want an integer, got %s", nodeKind(node))
}

// intOf reads an integer by the policy from a JSON value: a number, a
// string holding one, or null.
func intOf(b []byte) (int64, error) {
	b = trimJSONSpace(b)
	switch {
	case string(b) == "null":
		return 0, nil
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return 0, err
		}
		return intOfText(s)
	}
	return intOfText(string(b)) // a number's text; anything else is not an integer
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

// flexInt is an integer field of a wire type read by intOf on the typed
// pass: for a field the service may send either way in every element of
// a long answer (a lookup's e164), where the tolerant pass would cost the
// whole answer. null leaves it as it was.
type flexInt int64

func (n *flexInt) UnmarshalJSON(b []byte) error {
	if string(trimJSONSpace(b)) == "null" {
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
	var v string
	if json.Unmarshal(b, &v) == nil {
		*s = looseString(v)
	}
	return nil
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

// member finds the member named name exactly, else in any case.
func member(m map[string]any, name string) (any, bool) {
	if key, ok := memberKey(m, name); ok {
		return m[key], true
	}
	return nil, false
}

// memberKey finds the member named name exactly, else in any case, and
// returns its key as sent. Of several members spelt in other cases it
// takes the least, so that the same body always reads the same.
func memberKey[V any](m map[string]V, name string) (string, bool) {
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

// trimJSONSpace trims the whitespace JSON allows around a value (space,
// tab, CR, LF) and nothing else: bytes.TrimSpace would also take a
// vertical tab or a no-break space and make a body that is not JSON read
// as one.
func trimJSONSpace(b []byte) []byte { return bytes.Trim(b, " \t\r\n") }
