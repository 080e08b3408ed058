// Package smswire reads an SMS send as the service's wire carries it: the
// fields of Send SMS (operation 6 of the interface document), which are
// also the fields of each element of a batch (operation 7), by their wire
// names, into a telco.SendMessageParams. The names and types are taken
// from the interface document, not from the SDK's encoder, so that a
// reader built on this package is a second, independent reading of the
// wire: a field the SDK misspells or mistypes shows up as a refusal.
//
// Two readers share it. telcotest decodes the bodies of Messages.Send and
// Messages.SendBatch with DecodeJSON. The command-line tool's batch reader
// (telco sms batch, cmd/telco/internal/batch), whose CSV columns and
// JSON-lines keys are the same wire names, takes its columns from Fields
// and Lookup, sets them with Field.Set and reads its objects with
// DecodeObject, keeping its own conveniences (a Schedule in RFC 3339, a
// string for any field) as a layer around them. So a field added to the
// service is added here once, for both.
//
// Keys are matched to wire names without regard to case, a decision: the
// interface document calls the names of its answers case-sensitive but
// says nothing of how requests are read, and the service runs on a
// framework whose routes are case-insensitive (its documents write both
// /v2/numberblocks and /v2/NumberBlocks). The fake has always read keys
// so (through encoding/json, whose rule, bytes.EqualFold, this package
// keeps) and so has the CLI. A key is thus never dropped for its case;
// two keys naming one field ("to" and "To") are an error rather than a
// guess at which one is meant.
package smswire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/telcosdk/telco"
)

// Kind is the JSON type the service reads a field as.
type Kind int

const (
	// String is a JSON string.
	String Kind = iota + 1
	// UnixSeconds is a JSON integer of Unix seconds in UTC (Schedule).
	UnixSeconds
	// Bool is a JSON true or false (DeliveryReceipt).
	Bool
)

// String names the kind as the errors do.
func (k Kind) String() string {
	switch k {
	case String:
		return "a JSON string"
	case UnixSeconds:
		return "a whole number of Unix seconds"
	case Bool:
		return "true or false"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Field is one wire field of a send.
type Field struct {
	// Name is the wire name, spelt as the interface document spells it
	// ("DeliveryReceiptWebhookUri").
	Name string
	// Kind is the JSON type the service reads the field as.
	Kind Kind
	// LeaseOnly marks the fields that apply only to a leased send, From
	// empty: the service ignores them next to a From.
	LeaseOnly bool

	set func(p *telco.SendMessageParams, v string) error
	get func(p *telco.SendMessageParams) string
}

// Set sets the field of p from its text form: the text itself for a
// String field, decimal Unix seconds for Schedule (0 is no schedule, as
// the SDK never sends), and true or false (or another spelling
// strconv.ParseBool takes) for DeliveryReceipt. Surrounding space is
// ignored in the last two. Empty text sets the zero value: no schedule,
// DeliveryReceipt nil. A webhook method is stored in upper case when it is
// GET or POST in any case, as the service takes either; any other value is
// stored as given, for the SDK's rules to refuse. A value that cannot be
// read is an *Error and leaves p unchanged.
func (f Field) Set(p *telco.SendMessageParams, raw string) error { return f.set(p, raw) }

// Get is the text form of the field's value in p, which Set reads back;
// "" when it is not set.
func (f Field) Get(p *telco.SendMessageParams) string { return f.get(p) }

// Error is a value that could not be read, naming its field by its wire
// name.
type Error struct {
	// Field is the wire name of the field, as the table spells it; "" when
	// the problem is the whole value (not a JSON object).
	Field string
	// Reason says what is wrong, in lower case.
	Reason string
}

// Error returns the field's wire name and the reason.
func (e *Error) Error() string {
	if e.Field == "" {
		return e.Reason
	}
	return e.Field + ": " + e.Reason
}

func text(name string, leaseOnly bool, dst func(p *telco.SendMessageParams) *string) Field {
	return Field{Name: name, Kind: String, LeaseOnly: leaseOnly,
		set: func(p *telco.SendMessageParams, v string) error { *dst(p) = v; return nil },
		get: func(p *telco.SendMessageParams) string { return *dst(p) },
	}
}

// method is a text field holding a webhook method: GET or POST in any case
// is stored in upper case.
func method(name string, leaseOnly bool, dst func(p *telco.SendMessageParams) *string) Field {
	f := text(name, leaseOnly, dst)
	f.set = func(p *telco.SendMessageParams, v string) error {
		if strings.EqualFold(v, "GET") || strings.EqualFold(v, "POST") {
			v = strings.ToUpper(v)
		}
		*dst(p) = v
		return nil
	}
	return f
}

// fields is the table, in the interface document's order.
var fields = []Field{
	text("From", false, func(p *telco.SendMessageParams) *string { return &p.From }),
	text("To", false, func(p *telco.SendMessageParams) *string { return &p.To }),
	text("Text", false, func(p *telco.SendMessageParams) *string { return &p.Text }),
	{Name: "Schedule", Kind: UnixSeconds, set: setSchedule, get: func(p *telco.SendMessageParams) string {
		if p.Schedule.IsZero() {
			return ""
		}
		return strconv.FormatInt(p.Schedule.Unix(), 10)
	}},
	{Name: "DeliveryReceipt", Kind: Bool, set: setDeliveryReceipt, get: func(p *telco.SendMessageParams) string {
		if p.DeliveryReceipt == nil {
			return ""
		}
		return strconv.FormatBool(*p.DeliveryReceipt)
	}},
	text("DeliveryReceiptWebhookUri", false, func(p *telco.SendMessageParams) *string { return &p.DeliveryReceiptWebhookURI }),
	method("DeliveryReceiptWebhookMethod", false, func(p *telco.SendMessageParams) *string { return &p.DeliveryReceiptWebhookMethod }),
	text("ExternalId", false, func(p *telco.SendMessageParams) *string { return &p.ExternalID }),
	text("ForwardToSms", true, func(p *telco.SendMessageParams) *string { return &p.ForwardToSms }),
	text("ForwardFromSms", true, func(p *telco.SendMessageParams) *string { return &p.ForwardFromSms }),
	text("ForwardToEmail", true, func(p *telco.SendMessageParams) *string { return &p.ForwardToEmail }),
	text("ForwardFromEmail", true, func(p *telco.SendMessageParams) *string { return &p.ForwardFromEmail }),
	text("WebhookUri", true, func(p *telco.SendMessageParams) *string { return &p.WebhookURI }),
	method("WebhookMethod", true, func(p *telco.SendMessageParams) *string { return &p.WebhookMethod }),
}

func setSchedule(p *telco.SendMessageParams, v string) error {
	v = strings.TrimSpace(v)
	if v == "" {
		p.Schedule = time.Time{}
		return nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return &Error{Field: "Schedule", Reason: fmt.Sprintf("%s is not %s", quote(v), UnixSeconds)}
	}
	p.Schedule = time.Time{}
	if n != 0 {
		p.Schedule = time.Unix(n, 0).UTC()
	}
	return nil
}

func setDeliveryReceipt(p *telco.SendMessageParams, v string) error {
	v = strings.TrimSpace(v)
	if v == "" {
		p.DeliveryReceipt = nil
		return nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return &Error{Field: "DeliveryReceipt", Reason: fmt.Sprintf("%s is not %s", quote(v), Bool)}
	}
	p.DeliveryReceipt = &b
	return nil
}

// Fields returns the wire fields of a send, in the interface document's
// order. The slice is the caller's to keep.
func Fields() []Field { return append([]Field(nil), fields...) }

// Lookup finds the field with the wire name, in any case.
func Lookup(name string) (Field, bool) {
	for _, f := range fields {
		if strings.EqualFold(f.Name, name) {
			return f, true
		}
	}
	return Field{}, false
}

// DecodeJSON sets p from one JSON object of a send: the body of Send SMS,
// or one element of a batch's Messages. It reads the object as
// DecodeObject reads its members, with two differences the bytes allow:
// a key given twice in the same spelling is an error too, and the first
// error is the first in the object. Anything but a JSON object is an
// *Error.
//
// It walks the object's bytes rather than build a map of its members:
// the fake reads every send through it, and the map cost it a dozen
// allocations a send.
func DecodeJSON(data []byte, p *telco.SendMessageParams) (unknown []string, err error) {
	if !json.Valid(data) {
		return nil, notObject(data)
	}
	i := skipSpace(data, 0)
	if data[i] != '{' {
		return nil, notObject(data)
	}
	var seen uint64      // bit i: fields[i] was named (the table has fewer than 64)
	var first [64][]byte // the key that named each field, for an error
	for i = skipSpace(data, i+1); data[i] != '}'; {
		if data[i] == ',' {
			i = skipSpace(data, i+1)
		}
		// json.Valid has checked the shape: a key, a colon, a value.
		end := stringEnd(data, i)
		key := data[i:end]
		i = skipSpace(data, skipSpace(data, end)+1)
		vend := valueEnd(data, i)
		val := data[i:vend]
		i = skipSpace(data, vend)

		n := indexKey(key)
		if n < 0 {
			name, _ := jsonString(key)
			unknown = append(unknown, name)
			continue
		}
		f := fields[n]
		if seen&(1<<n) != 0 {
			was, _ := jsonString(first[n])
			now, _ := jsonString(key)
			return sorted(unknown), &Error{Field: f.Name, Reason: fmt.Sprintf("given twice, as %q and %q", was, now)}
		}
		seen |= 1 << n
		first[n] = key
		if err := decodeValue(f, val, p); err != nil {
			return sorted(unknown), err
		}
	}
	return sorted(unknown), nil
}

func notObject(data []byte) error {
	return &Error{Reason: "a message must be a JSON object, not " + describe(data)}
}

func sorted(names []string) []string {
	slices.Sort(names)
	return names
}

// skipSpace is the index of the first byte from i on that is not JSON
// white space. In a valid document one is always found before its end,
// except after the last value.
func skipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\r', '\n':
			i++
		default:
			return i
		}
	}
	return i
}

// stringEnd is the index just past the JSON string that starts at i.
func stringEnd(data []byte, i int) int {
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(data)
}

// valueEnd is the index just past the valid JSON value that starts at i.
func valueEnd(data []byte, i int) int {
	switch data[i] {
	case '"':
		return stringEnd(data, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(data); j++ {
			switch data[j] {
			case '"':
				j = stringEnd(data, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return len(data)
	}
	j := i
	for j < len(data) && !strings.ContainsRune(",}] \t\r\n", rune(data[j])) {
		j++
	}
	return j
}

// indexKey is index for a key as a JSON string, quotes and all, compared
// as encoding/json compares names (bytes.EqualFold); a key without
// escapes costs no allocation.
func indexKey(key []byte) int {
	body := key[1 : len(key)-1]
	if bytes.IndexByte(body, '\\') >= 0 {
		name, _ := jsonString(key)
		return index(name)
	}
	for i := range fields {
		if bytes.EqualFold(fieldNames[i], body) {
			return i
		}
	}
	return -1
}

// fieldNames are the names of fields as bytes, for indexKey.
var fieldNames = func() [][]byte {
	out := make([][]byte, len(fields))
	for i, f := range fields {
		out[i] = []byte(f.Name)
	}
	return out
}()

// DecodeObject sets p from the members of a JSON object, as the service
// reads them. Each key names a field in any case; two keys for one field
// are an error. A String field takes a JSON string, Schedule a JSON
// integer of Unix seconds, DeliveryReceipt a JSON boolean, and null
// leaves any field as it is; another type is an *Error, so that
// {"To": 61400000001} is refused rather than read as digits without
// their +. Keys that name no field are returned, sorted, and otherwise
// ignored: the service ignores them, a stricter reader refuses them.
// Fields the object does not name are left as they are. On an error p may
// be partly set; the error is the first in the order of the sorted keys,
// the same on every run.
func DecodeObject(obj map[string]json.RawMessage, p *telco.SendMessageParams) (unknown []string, err error) {
	var buf [16]string // room for the keys of a send, on the stack
	keys := buf[:0]
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var seen uint64 // bit i: fields[i] was named (the table has fewer than 64)
	for j, k := range keys {
		i := index(k)
		if i < 0 {
			unknown = append(unknown, k)
			continue
		}
		f := fields[i]
		if seen&(1<<i) != 0 {
			first := ""
			for _, e := range keys[:j] {
				if strings.EqualFold(e, k) {
					first = e
					break
				}
			}
			return unknown, &Error{Field: f.Name, Reason: fmt.Sprintf("given twice, as %q and %q", first, k)}
		}
		seen |= 1 << i
		if err := decodeValue(f, obj[k], p); err != nil {
			return unknown, err
		}
	}
	return unknown, nil
}

func index(name string) int {
	for i, f := range fields {
		if strings.EqualFold(f.Name, name) {
			return i
		}
	}
	return -1
}

// decodeValue checks that raw has the field's JSON type and sets it.
func decodeValue(f Field, raw json.RawMessage, p *telco.SendMessageParams) error {
	raw = bytes.TrimSpace(raw)
	if string(raw) == "null" {
		return nil
	}
	wrong := func() error {
		return &Error{Field: f.Name, Reason: "must be " + f.Kind.String() + ", not " + describe(raw)}
	}
	switch f.Kind {
	case String:
		v, ok := jsonString(raw)
		if !ok {
			return wrong()
		}
		return f.set(p, v)
	case UnixSeconds:
		// A JSON number with no fraction or exponent: what the service
		// reads into an integer.
		if _, err := strconv.ParseInt(string(raw), 10, 64); err != nil {
			return wrong()
		}
		return f.set(p, string(raw))
	case Bool:
		if s := string(raw); s != "true" && s != "false" {
			return wrong()
		}
		return f.set(p, string(raw))
	}
	return wrong()
}

// jsonString decodes a JSON string. The common string, without escapes
// or control characters, costs one allocation.
func jsonString(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	plain := utf8.Valid(raw)
	for _, c := range raw[1 : len(raw)-1] {
		if c == '\\' || c == '"' || c < 0x20 {
			plain = false
			break
		}
	}
	if plain && raw[len(raw)-1] == '"' {
		return string(raw[1 : len(raw)-1]), true
	}
	var v string
	if json.Unmarshal(raw, &v) != nil {
		return "", false
	}
	return v, true
}

// describe is a short view of a JSON value for an error.
func describe(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	return cut(string(raw))
}

// quote is strconv.Quote of a short view of v, for an error.
func quote(v string) string { return strconv.Quote(cut(v)) }

// cut shortens s to about 40 bytes, at a rune boundary, so that an error
// quoting a long value stays readable.
func cut(s string) string {
	const limit = 40
	if len(s) <= limit {
		return s
	}
	n := limit
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}
