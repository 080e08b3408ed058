package telco

// Resources whose fields the service's documentation does not show.
//
// The pages of Get Numbers and Get Calls describe the requests but not the
// answers, so the fields of Number and Call are educated guesses (the
// names of the number configuration, the columns a data-export product
// shows). A wrong guess must not cost the user the data: these types are
// decoded field by field (decodeInferred) rather than by json.Unmarshal
// as a whole: by the policy at the top of decode.go, through its field
// walk (assign), with one difference: a member no field can hold is kept, not
// refused. So
//
//   - a field is found under its JSON name, any of its aliases (an
//     `alias:"A,B"` tag) or either spelt in another case;
//   - an integer field reads a numeric string, as every resource does;
//   - a field whose value has another type than guessed (a duration sent
//     as "1m30s") is left zero instead of failing the whole answer;
//   - every member of the object that did not land in a typed field, for
//     either reason, is kept in the type's Extra map, as it was sent.
//
// marshalInferred writes such a value back with its Extra members at the
// top level, so that `-o json` output and a round trip show what the
// service sent.

import (
	"encoding/json"
	"fmt"
	"reflect"
)

// decodeInferred decodes the parsed JSON object node into the struct v
// points to, field by field, by the policy at the top of decode.go, and
// returns the members no typed field took, nil when there are none. It
// fails only when node is not an object.
func decodeInferred(node, v any) (map[string]json.RawMessage, error) {
	m, ok := node.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("want a JSON object, got %s", nodeKind(node))
	}
	return assignFields(m, reflect.ValueOf(v).Elem(), true)
}

// unmarshalInferred is decodeInferred of JSON text, for UnmarshalJSON.
func unmarshalInferred(b []byte, v any) (map[string]json.RawMessage, error) {
	tree, err := parseTree(b)
	if err != nil {
		return nil, err
	}
	return decodeInferred(tree, v)
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
