package telco

// The first pass over an answer, for resources whose fields are all
// strings, booleans, integers or types that decode themselves (Message,
// Property, ...): a scanner that reads the documented envelope and its
// resources in one pass over the bytes, where encoding/json makes two (it
// validates the whole body before decoding it) and runs a state machine
// per byte. A page of 200 messages decodes in about a quarter of the time.
//
// It is not a second policy. For every body it accepts it produces what
// the json.Unmarshal pass (decode.go) would, and it gives up, leaving the
// body to that pass, on anything it is not sure of: a key that matches a
// field only in another case or has escapes, a value of another type than
// its field's, a number json.Unmarshal would refuse for the field, an
// envelope given twice, JSON it cannot read, an envelope it does not
// find. Strings
// with escapes or invalid UTF-8 are decoded by encoding/json itself, one
// string at a time. FuzzFlatDecode holds the two passes to the same
// results.

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
)

// flatKind is how a flat field is read.
type flatKind uint8

const (
	flatString flatKind = iota
	flatBool
	flatInt
	flatSelf // the field's type decodes itself (json.Unmarshaler)
)

type flatField struct {
	name  string
	index int
	kind  flatKind
	bits  int // an integer's size
}

// flatType is the field table of a struct type the scanner can decode.
type flatType struct {
	fields []flatField
	names  []string       // the fields' JSON names, in order
	byName map[string]int // exact JSON name to position in fields
}

var (
	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// flatTypeOf returns t's field table, or nil when t is not a struct of
// flat fields as encoding/json sees them: no embedded fields, no ",string"
// option, no two names equal in any case, no decoding method of its own.
func flatTypeOf(t reflect.Type) *flatType {
	if t.Kind() != reflect.Struct || reflect.PointerTo(t).Implements(jsonUnmarshalerType) ||
		reflect.PointerTo(t).Implements(textUnmarshalerType) {
		return nil
	}
	ft := &flatType{byName: map[string]int{}}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous {
			return nil
		}
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts := tag, ""
		for j := 0; j < len(tag); j++ {
			if tag[j] == ',' {
				name, opts = tag[:j], tag[j:]
				break
			}
		}
		if containsOption(opts, "string") {
			return nil
		}
		if name == "" {
			name = f.Name
		}
		if !plainName(name) {
			return nil
		}
		ff := flatField{name: name, index: i}
		switch pt := reflect.PointerTo(f.Type); {
		case pt.Implements(jsonUnmarshalerType):
			ff.kind = flatSelf
		case pt.Implements(textUnmarshalerType):
			return nil
		default:
			switch k := f.Type.Kind(); k {
			case reflect.String:
				ff.kind = flatString
			case reflect.Bool:
				ff.kind = flatBool
			case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
				ff.kind, ff.bits = flatInt, f.Type.Bits()
			default:
				return nil
			}
		}
		for _, g := range ft.fields {
			if foldEqual(g.name, name) {
				return nil // encoding/json's rules for such a pair are not worth copying
			}
		}
		ft.byName[name] = len(ft.fields)
		ft.fields = append(ft.fields, ff)
		ft.names = append(ft.names, name)
	}
	return ft
}

// containsOption reports whether the tag options opts (",a,b") hold o.
func containsOption(opts, o string) bool {
	for opts != "" {
		opts = opts[1:] // the comma
		next := len(opts)
		for j := 0; j < len(opts); j++ {
			if opts[j] == ',' {
				next = j
				break
			}
		}
		if opts[:next] == o {
			return true
		}
		opts = opts[next:]
	}
	return false
}

// plainName reports whether a JSON name is ASCII letters, digits and
// underscores, which every name of the service is.
func plainName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	return s != ""
}

// foldEqual reports whether the ASCII name a equals b in any case.
func foldEqual(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// mayMatch reports whether encoding/json could match key to one of names
// other than by an exact match: in another case, or through Unicode case
// folding, which a non-ASCII key may allow.
func mayMatch(key []byte, names []string) bool {
	for _, c := range key {
		if c >= utf8.RuneSelf {
			return true
		}
	}
	for _, n := range names {
		if foldEqual(string(key), n) {
			return true
		}
	}
	return false
}

// maxFlatDepth bounds the nesting of values the scanner skips; deeper
// bodies go to encoding/json, which has its own bound.
const maxFlatDepth = 1000

// flatScanner reads JSON from b at i. Every method returns false, leaving
// i anywhere, when the input is not what it reads.
type flatScanner struct {
	b []byte
	i int
}

func (s *flatScanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// peek returns the next byte, 0 at the end.
func (s *flatScanner) peek() byte {
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// end reports whether only whitespace is left.
func (s *flatScanner) end() bool {
	s.ws()
	return s.i == len(s.b)
}

// str reads a string: its bytes between the quotes, and whether they are
// its value as they stand (no escapes, valid UTF-8).
func (s *flatScanner) str() (raw []byte, plain, ok bool) {
	if s.peek() != '"' {
		return nil, false, false
	}
	start := s.i + 1
	plain, ascii := true, true
	for i := start; i < len(s.b); i++ {
		switch c := s.b[i]; {
		case c == '"':
			s.i = i + 1
			raw = s.b[start:i]
			if !ascii && !utf8.Valid(raw) {
				plain = false
			}
			return raw, plain, true
		case c == '\\':
			plain = false
			i++
			if i >= len(s.b) {
				return nil, false, false
			}
			switch s.b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(s.b) {
					return nil, false, false
				}
				for _, h := range s.b[i+1 : i+5] {
					if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
						return nil, false, false
					}
				}
				i += 4
			default:
				return nil, false, false
			}
		case c < 0x20:
			return nil, false, false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return nil, false, false
}

// number reads a number by JSON's grammar and reports whether it is an
// integer (no fraction, no exponent).
func (s *flatScanner) number() (tok []byte, integer, ok bool) {
	start, i := s.i, s.i
	b := s.b
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	default:
		return nil, false, false
	}
	integer = true
	if i < len(b) && b[i] == '.' {
		integer = false
		i++
		d := i
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
		if i == d {
			return nil, false, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		integer = false
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		d := i
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
		if i == d {
			return nil, false, false
		}
	}
	s.i = i
	return b[start:i], integer, true
}

// literal reads true, false or null.
func (s *flatScanner) literal(word string) bool {
	if len(s.b)-s.i >= len(word) && string(s.b[s.i:s.i+len(word)]) == word {
		s.i += len(word)
		return true
	}
	return false
}

// value reads any value and returns its bytes.
func (s *flatScanner) value(depth int) ([]byte, bool) {
	start := s.i
	switch c := s.peek(); {
	case c == '"':
		if _, _, ok := s.str(); !ok {
			return nil, false
		}
	case c == '-' || '0' <= c && c <= '9':
		if _, _, ok := s.number(); !ok {
			return nil, false
		}
	case c == 't':
		if !s.literal("true") {
			return nil, false
		}
	case c == 'f':
		if !s.literal("false") {
			return nil, false
		}
	case c == 'n':
		if !s.literal("null") {
			return nil, false
		}
	case c == '[' || c == '{':
		if depth >= maxFlatDepth || !s.composite(depth+1) {
			return nil, false
		}
	default:
		return nil, false
	}
	return s.b[start:s.i], true
}

// composite reads an array or an object, with any keys.
func (s *flatScanner) composite(depth int) bool {
	value := func() bool { _, ok := s.value(depth); return ok }
	if s.peek() == '[' {
		return s.elements(value)
	}
	return s.entries(func([]byte, bool) bool { return value() })
}

// elements reads an array, calling element with the scanner at each
// element, which element reads.
func (s *flatScanner) elements(element func() bool) bool {
	if s.peek() != '[' {
		return false
	}
	s.i++
	s.ws()
	if s.peek() == ']' {
		s.i++
		return true
	}
	for {
		if !element() {
			return false
		}
		s.ws()
		switch s.peek() {
		case ',':
			s.i++
			s.ws()
		case ']':
			s.i++
			return true
		default:
			return false
		}
	}
}

// members reads an object, calling member for each key with the scanner
// at the key's value, after whitespace; member reads the value. Keys
// with escapes or invalid UTF-8 are refused.
func (s *flatScanner) members(member func(key []byte) bool) bool {
	return s.entries(func(key []byte, plain bool) bool { return plain && member(key) })
}

// entries reads an object, calling entry for each key, raw, and whether
// it is its value as it stands (str's plain), with the scanner at the
// key's value, after whitespace; entry reads the value. It is the loop of
// every object the scanner reads, so a resource's fields cost one call
// each.
func (s *flatScanner) entries(entry func(key []byte, plain bool) bool) bool {
	if s.peek() != '{' {
		return false
	}
	s.i++
	s.ws()
	if s.peek() == '}' {
		s.i++
		return true
	}
	for {
		key, plain, ok := s.str()
		if !ok {
			return false
		}
		s.ws()
		if s.peek() != ':' {
			return false
		}
		s.i++
		s.ws()
		if !entry(key, plain) {
			return false
		}
		s.ws()
		switch s.peek() {
		case ',':
			s.i++
			s.ws()
		case '}':
			s.i++
			return true
		default:
			return false
		}
	}
}

// object reads an object into the struct v of type ft, as json.Unmarshal
// would into a zero v. The field after the last one named is tried before
// the map: the service writes its fields in one order.
func (s *flatScanner) object(ft *flatType, v reflect.Value) bool {
	next := 0
	return s.entries(func(key []byte, plain bool) bool {
		if !plain {
			return false
		}
		k := -1
		if next < len(ft.fields) && ft.fields[next].name == string(key) {
			k = next
		} else if j, found := ft.byName[string(key)]; found {
			k = j
		}
		if k < 0 {
			if mayMatch(key, ft.names) {
				return false
			}
			_, ok := s.value(0)
			return ok
		}
		// A key given twice is read twice, the later value over the
		// earlier, as encoding/json does.
		next = k + 1
		return s.field(&ft.fields[k], v.Field(ft.fields[k].index))
	})
}

// field reads a value into the field v as json.Unmarshal would, or
// reports false where json.Unmarshal would fail.
func (s *flatScanner) field(f *flatField, v reflect.Value) bool {
	c := s.peek()
	if c == 'n' && f.kind != flatSelf {
		return s.literal("null") // leaves the field as it was, as json does
	}
	switch f.kind {
	case flatString:
		start := s.i
		raw, plain, ok := s.str()
		if !ok {
			return false
		}
		if plain {
			v.SetString(string(raw))
			return true
		}
		var str string
		if json.Unmarshal(s.b[start:s.i], &str) != nil {
			return false
		}
		v.SetString(str)
	case flatBool:
		switch {
		case s.literal("true"):
			v.SetBool(true)
		case s.literal("false"):
			v.SetBool(false)
		default:
			return false
		}
	case flatInt:
		tok, integer, ok := s.number()
		if !ok || !integer {
			return false
		}
		n, err := strconv.ParseInt(string(tok), 10, f.bits)
		if err != nil {
			return false
		}
		v.SetInt(n)
	case flatSelf:
		tok, ok := s.value(0)
		if !ok {
			return false
		}
		if v.Addr().Interface().(json.Unmarshaler).UnmarshalJSON(tok) != nil {
			return false
		}
	}
	return true
}

// flatArray reads an array of objects of type ft into a new, non-nil
// slice of T, or null into nil.
func flatArray[T any](s *flatScanner, ft *flatType) ([]T, bool) {
	if s.literal("null") {
		return nil, true
	}
	items := make([]T, 0, 8)
	if !s.elements(func() bool {
		items = append(items, *new(T))
		return s.literal("null") || s.object(ft, reflect.ValueOf(&items[len(items)-1]).Elem())
	}) {
		return nil, false
	}
	return items, true
}

// listMetaNames are listMeta's members by their JSON names, in field
// order, read from its tags so that a member added there is read here
// too; listMetaIndex maps each to its field. Each field decodes itself
// (TestListMetaFieldsDecodeThemselves).
var listMetaNames, listMetaIndex = func() ([]string, map[string]int) {
	t := reflect.TypeFor[listMeta]()
	names, index := make([]string, t.NumField()), make(map[string]int, t.NumField())
	for i := range names {
		names[i], _, _ = strings.Cut(t.Field(i).Tag.Get("json"), ",")
		index[names[i]] = i
	}
	return names, index
}()

// meta reads the listing metadata member key, if it is one, into m.
func (s *flatScanner) meta(key []byte, m *listMeta) (isMeta, ok bool) {
	i, found := listMetaIndex[string(key)]
	if !found {
		return false, true
	}
	u, _ := reflect.ValueOf(m).Elem().Field(i).Addr().Interface().(json.Unmarshaler)
	tok, ok := s.value(0)
	return true, ok && u != nil && u.UnmarshalJSON(tok) == nil
}

// flatList reads a listing's envelope and its array as list.decodeFast
// would, reporting false when it found no array or gave up.
func flatList[T any](b []byte, shape *listShape[T]) (items []T, meta listMeta, ok bool) {
	s := flatScanner{b: b}
	s.ws()
	var slots [4][]T // by key; a shape has at most a few keys
	var seen uint64
	if len(shape.keys) > len(slots) {
		return nil, meta, false
	}
	if !s.members(func(key []byte) bool {
		for i, k := range shape.keys {
			if k == string(key) {
				if seen&(1<<i) != 0 {
					return false
				}
				seen |= 1 << i
				a, ok := flatArray[T](&s, shape.flat)
				slots[i] = a
				return ok
			}
		}
		if isMeta, ok := s.meta(key, &meta); isMeta {
			return ok
		}
		if mayMatch(key, shape.keys) || mayMatch(key, listMetaNames) {
			return false
		}
		_, ok := s.value(0)
		return ok
	}) || !s.end() {
		return nil, meta, false
	}
	for i := range shape.keys {
		if slots[i] != nil {
			return slots[i], meta, true
		}
	}
	return nil, meta, false
}

// flatBare reads a bare array of objects, as decodeLoose would.
func flatBare[T any](b []byte, ft *flatType) ([]T, bool) {
	s := flatScanner{b: b}
	s.ws()
	items, ok := flatArray[T](&s, ft)
	if !ok || !s.end() {
		return nil, false
	}
	return items, true
}

// flatOne reads a resource's envelope as one.decodeFast would, reporting
// false when it found no resource or gave up.
func flatOne[T any](b []byte, shape *resourceShape[T]) (*T, bool) {
	s := flatScanner{b: b}
	s.ws()
	var slots [4]*T
	var seen uint64
	if len(shape.keys) > len(slots) {
		return nil, false
	}
	if !s.members(func(key []byte) bool {
		for i, k := range shape.keys {
			if k == string(key) {
				if seen&(1<<i) != 0 {
					return false
				}
				seen |= 1 << i
				if s.literal("null") {
					return true
				}
				v := new(T)
				slots[i] = v
				return s.object(shape.flat, reflect.ValueOf(v).Elem())
			}
		}
		if mayMatch(key, shape.keys) {
			return false
		}
		_, ok := s.value(0)
		return ok
	}) || !s.end() {
		return nil, false
	}
	for i := range shape.keys {
		if slots[i] != nil {
			return slots[i], true
		}
	}
	return nil, false
}
