package telco

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// The service's documents disagree on some envelope names, so responses are
// decoded tolerantly: a resource is found under any of its documented keys
// or, failing that, as the bare object; a listing's array under any of its
// documented keys or as a bare array. Unknown fields are ignored.

// one decodes a single resource wrapped as {"Key": {...}}.
type one[T any] struct {
	keys []string // envelope keys, in order of preference
	id   string   // a field only the bare resource has, e.g. "MessageSid"
	val  T
	ok   bool
}

func (o *one[T]) UnmarshalJSON(b []byte) error {
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
	return nil
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

func (l *list[T]) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '[' {
		l.ok = true
		return json.Unmarshal(b, &l.items)
	}
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
	return nil
}

func (l *list[T]) page() *Page[T] {
	return &Page[T]{Items: l.items, TotalCount: l.total, NextPageToken: l.next}
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
