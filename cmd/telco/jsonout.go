package main

// The JSON contract for scripts: every command's -o json output is the
// SDK's types as encoding/json writes them, except that times are RFC 3339
// strings (the SDK keeps the service's wire forms, Unix seconds and
// "/Date(ms)/", so that it round-trips) and enumerations that are numbers
// on the wire (a SIP trunk's Type, a ProvisioningState) are their names.
// encodeJSON walks a value by reflection to make those two changes and
// leaves everything else to encoding/json.
//
// Resources whose shape the SDK inferred (a Number, a Call) carry the
// members it did not understand in an Extra map that encoding/json skips;
// their MarshalJSON writes them back beside the fields. encodeJSON does
// the same, so that a script sees every member the service sent, under
// its own name, with the times converted.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/telcosdk/telco"
)

var (
	timestampType = reflect.TypeFor[telco.Timestamp]()
	dateTimeType  = reflect.TypeFor[telco.DateTime]()
	timeType      = reflect.TypeFor[time.Time]()
	marshalerType = reflect.TypeFor[json.Marshaler]()
	stringerType  = reflect.TypeFor[fmt.Stringer]()
)

// encodeJSON writes v, compact, under the contract above, with times in
// loc (nil: in the zone each carries).
func encodeJSON(v any, loc *time.Location) ([]byte, error) {
	var b bytes.Buffer
	if err := (encoder{loc}).encodeValue(&b, reflect.ValueOf(v)); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// encoder is one encoding's settings: the zone of its times.
type encoder struct{ loc *time.Location }

func (e encoder) encodeValue(b *bytes.Buffer, v reflect.Value) error {
	if !v.IsValid() {
		b.WriteString("null")
		return nil
	}
	t := v.Type()
	switch t {
	case timestampType:
		return e.writeTime(b, v.Interface().(telco.Timestamp).Time())
	case dateTimeType:
		return e.writeTime(b, v.Interface().(telco.DateTime).Time)
	case timeType:
		return e.writeTime(b, v.Interface().(time.Time))
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			b.WriteString("null")
			return nil
		}
		return e.encodeValue(b, v.Elem())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		// A named integer with a String method is an enumeration: its name.
		if t.PkgPath() != "" && t.Implements(stringerType) && !t.Implements(marshalerType) {
			return writeRaw(b, v.Interface().(fmt.Stringer).String())
		}
	case reflect.Struct:
		extra, hasExtra := extraOf(v)
		if !t.Implements(marshalerType) || hasExtra {
			b.WriteByte('{')
			n := 0
			if err := e.encodeFields(b, v, &n, extra); err != nil {
				return err
			}
			if err := writeExtra(b, extra, &n); err != nil {
				return err
			}
			b.WriteByte('}')
			return nil
		}
	case reflect.Slice:
		if v.IsNil() && !t.Implements(marshalerType) {
			b.WriteString("null")
			return nil
		}
		fallthrough
	case reflect.Array:
		if t.Elem().Kind() != reflect.Uint8 && !t.Implements(marshalerType) {
			b.WriteByte('[')
			for i := range v.Len() {
				if i > 0 {
					b.WriteByte(',')
				}
				if err := e.encodeValue(b, v.Index(i)); err != nil {
					return err
				}
			}
			b.WriteByte(']')
			return nil
		}
	case reflect.Map:
		if t.Key().Kind() == reflect.String && !t.Implements(marshalerType) {
			if v.IsNil() {
				b.WriteString("null")
				return nil
			}
			keys := v.MapKeys()
			sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
			b.WriteByte('{')
			for i, k := range keys {
				if i > 0 {
					b.WriteByte(',')
				}
				if err := writeRaw(b, k.String()); err != nil {
					return err
				}
				b.WriteByte(':')
				if err := e.encodeValue(b, v.MapIndex(k)); err != nil {
					return err
				}
			}
			b.WriteByte('}')
			return nil
		}
	}
	out, err := json.Marshal(v.Interface())
	if err != nil {
		return err
	}
	b.Write(out)
	return nil
}

// extraType is the type of an inferred resource's Extra field.
var extraType = reflect.TypeFor[map[string]json.RawMessage]()

// extraOf returns the Extra members of an inferred resource (a struct with
// a field Extra map[string]json.RawMessage tagged json:"-"), and whether v
// is one.
func extraOf(v reflect.Value) (map[string]json.RawMessage, bool) {
	f, ok := v.Type().FieldByName("Extra")
	if !ok || f.Type != extraType || f.Tag.Get("json") != "-" {
		return nil, false
	}
	m, _ := v.FieldByIndex(f.Index).Interface().(map[string]json.RawMessage)
	return m, true
}

// writeExtra writes the members of extra, sorted, after n fields.
func writeExtra(b *bytes.Buffer, extra map[string]json.RawMessage, n *int) error {
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if *n > 0 {
			b.WriteByte(',')
		}
		*n++
		if err := writeRaw(b, k); err != nil {
			return err
		}
		b.WriteByte(':')
		var c bytes.Buffer
		if err := json.Compact(&c, extra[k]); err != nil {
			return err
		}
		b.Write(c.Bytes())
	}
	return nil
}

// encodeFields writes a struct's fields as encoding/json names them,
// inlining embedded structs without a name of their own. A field named as
// a member of skip (an inferred resource's Extra) is left to that member,
// which holds what the service sent under the name.
func (e encoder) encodeFields(b *bytes.Buffer, v reflect.Value, n *int, skip map[string]json.RawMessage) error {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		fv := v.Field(i)
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				if fv.IsNil() {
					continue
				}
				fv, ft = fv.Elem(), ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				if err := e.encodeFields(b, fv, n, skip); err != nil {
					return err
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if _, ok := skip[name]; ok {
			continue
		}
		if strings.Contains(","+opts+",", ",omitempty,") && isEmpty(fv) {
			continue
		}
		if *n > 0 {
			b.WriteByte(',')
		}
		*n++
		if err := writeRaw(b, name); err != nil {
			return err
		}
		b.WriteByte(':')
		if err := e.encodeValue(b, fv); err != nil {
			return err
		}
	}
	return nil
}

// isEmpty is encoding/json's omitempty test.
func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return v.Float() == 0
	case reflect.Interface, reflect.Pointer:
		return v.IsNil()
	}
	return false
}

// writeTime writes t in RFC 3339 in the encoder's zone, or null for the
// zero time.
func (e encoder) writeTime(b *bytes.Buffer, t time.Time) error {
	if t.IsZero() {
		b.WriteString("null")
		return nil
	}
	if e.loc != nil {
		t = t.In(e.loc)
	}
	return writeRaw(b, t.Format(time.RFC3339))
}

func writeRaw(b *bytes.Buffer, s string) error {
	out, err := json.Marshal(s)
	b.Write(out)
	return err
}
