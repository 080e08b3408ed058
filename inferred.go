package telco

// Resources whose fields the service's documentation does not show.
//
// The pages of Get Numbers and Get Calls describe the requests but not the
// answers, so the fields of Number and Call are educated guesses (the
// names of the number configuration, the columns a data-export product
// shows). A wrong guess must not cost the user the data: these types are
// decoded field by field (decodeInferred) rather than by json.Unmarshal
// as a whole, so that
//
//   - a field is found under its JSON name, any of its aliases (an
//     `alias:"A,B"` tag) or either spelt in another case;
//   - a field whose value has another type than guessed (a duration sent
//     as a string) is left zero instead of failing the whole answer;
//   - every member of the object that did not land in a typed field, for
//     either reason, is kept in the type's Extra map, as it was sent.
//
// marshalInferred writes such a value back with its Extra members at the
// top level, so that `-o json` output and a round trip show what the
// service sent.

import (
	"encoding/json"
	"reflect"
	"strings"
	"sync"
)

// inferredField is one typed field of an inferred resource: its JSON names
// (the first is the tag's) and its index for FieldByIndex.
type inferredField struct {
	names []string
	index []int
}

// inferredFieldsOf caches the fields of each inferred type.
var inferredFieldsOf sync.Map // reflect.Type -> []inferredField

// inferredFields lists the JSON fields of struct type t, those of embedded
// structs included, leaving out Extra and fields tagged "-".
func inferredFields(t reflect.Type) []inferredField {
	if v, ok := inferredFieldsOf.Load(t); ok {
		return v.([]inferredField)
	}
	var out []inferredField
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
			out = append(out, inferredField{names: names, index: index})
		}
	}
	walk(t, nil)
	inferredFieldsOf.Store(t, out)
	return out
}

// decodeInferred decodes the JSON object b into the struct v points to,
// field by field (see the top of this file), and returns the members no
// typed field took, nil when there are none. It fails only when b is not
// a JSON object.
func decodeInferred(b []byte, v any) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	rv := reflect.ValueOf(v).Elem()
	rv.SetZero()
	taken := make(map[string]bool, len(m))
	for _, f := range inferredFields(rv.Type()) {
		for _, name := range f.names {
			key, ok := memberKey(m, name)
			if !ok || taken[key] {
				continue
			}
			fv := rv.FieldByIndex(f.index)
			if json.Unmarshal(m[key], fv.Addr().Interface()) != nil {
				fv.SetZero() // kept in Extra instead
				continue
			}
			taken[key] = true
			break
		}
	}
	var extra map[string]json.RawMessage
	for k, raw := range m {
		if !taken[k] {
			if extra == nil {
				extra = map[string]json.RawMessage{}
			}
			extra[k] = raw
		}
	}
	return extra, nil
}

// memberKey finds the member named name exactly, else without regard to
// case, and returns its key as sent.
func memberKey(m map[string]json.RawMessage, name string) (string, bool) {
	if _, ok := m[name]; ok {
		return name, true
	}
	for k := range m {
		if strings.EqualFold(k, name) {
			return k, true
		}
	}
	return "", false
}

// marshalInferred writes plain (a value of a method-less copy of an
// inferred type) with the members of extra beside its fields. A member of
// extra named as a field replaces it: it is what the service sent under
// that name, which the field could not hold.
func marshalInferred(plain any, extra map[string]json.RawMessage) ([]byte, error) {
	b, err := json.Marshal(plain)
	if err != nil || len(extra) == 0 {
		return b, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	for k, v := range extra {
		m[k] = v
	}
	return json.Marshal(m)
}
