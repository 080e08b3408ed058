package batch

// The input of a batch: CSV with a header row, JSON lines, or a JSON array
// of objects, read into the SDK's SendMessageParams.

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/telcosdk/telco"
)

// Line is one message of a batch file and where it came from.
type Line struct {
	Num    int // the line number in a CSV or JSON-lines file, the position in a JSON array
	Params telco.SendMessageParams
}

// InputError is a mistake in the input or the command line: nothing was
// sent.
type InputError struct{ msg string }

func (e *InputError) Error() string { return e.msg }

func inputErrorf(format string, args ...any) error {
	return &InputError{fmt.Sprintf(format, args...)}
}

// Read reads a batch file in the format given (csv or jsonl), or
// detected from the file name, or else from its first character. name is
// for messages ("-" for standard input).
func Read(r io.Reader, format, name string) ([]Line, error) {
	br := bufio.NewReaderSize(r, 64<<10) // room for firstByte to look ahead
	switch strings.ToLower(format) {
	case "csv", "jsonl":
	case "":
		switch strings.ToLower(filepath.Ext(name)) {
		case ".csv":
			format = "csv"
		case ".jsonl", ".ndjson", ".json":
			format = "jsonl"
		default:
			format = "csv"
			if c := firstByte(br); c == '{' || c == '[' {
				format = "jsonl"
			}
		}
	default:
		return nil, inputErrorf("--format must be csv or jsonl, not %q", format)
	}
	var lines []Line
	var err error
	if strings.EqualFold(format, "jsonl") {
		lines, err = readJSONL(br)
	} else {
		lines, err = readCSV(br)
	}
	if err != nil {
		return nil, err
	}
	if len(lines) == 0 {
		return nil, inputErrorf("sms batch: no messages in %s", name)
	}
	return lines, nil
}

// batchFields are the columns a batch file may have, by lower-case name.
var fields = map[string]func(p *telco.SendMessageParams, v string) error{
	"from":                         func(p *telco.SendMessageParams, v string) error { p.From = v; return nil },
	"to":                           func(p *telco.SendMessageParams, v string) error { p.To = v; return nil },
	"text":                         func(p *telco.SendMessageParams, v string) error { p.Text = v; return nil },
	"externalid":                   func(p *telco.SendMessageParams, v string) error { p.ExternalID = v; return nil },
	"deliveryreceiptwebhookuri":    func(p *telco.SendMessageParams, v string) error { p.DeliveryReceiptWebhookURI = v; return nil },
	"deliveryreceiptwebhookmethod": func(p *telco.SendMessageParams, v string) error { p.DeliveryReceiptWebhookMethod = v; return nil },
	"forwardtosms":                 func(p *telco.SendMessageParams, v string) error { p.ForwardToSms = v; return nil },
	"forwardfromsms":               func(p *telco.SendMessageParams, v string) error { p.ForwardFromSms = v; return nil },
	"forwardtoemail":               func(p *telco.SendMessageParams, v string) error { p.ForwardToEmail = v; return nil },
	"forwardfromemail":             func(p *telco.SendMessageParams, v string) error { p.ForwardFromEmail = v; return nil },
	"webhookuri":                   func(p *telco.SendMessageParams, v string) error { p.WebhookURI = v; return nil },
	"webhookmethod":                func(p *telco.SendMessageParams, v string) error { p.WebhookMethod = v; return nil },
	"schedule": func(p *telco.SendMessageParams, v string) error {
		if v = strings.TrimSpace(v); v == "" {
			return nil
		}
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			p.Schedule = time.Unix(n, 0)
			return nil
		}
		if t, err := time.Parse(time.RFC3339, v); err == nil {
			p.Schedule = t
			return nil
		}
		// Without a zone: the user's, as on the command line.
		for _, layout := range []string{"2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02T15:04", "2006-01-02 15:04"} {
			if t, err := time.ParseInLocation(layout, v, time.Local); err == nil {
				p.Schedule = t
				return nil
			}
		}
		return fmt.Errorf("the Schedule value %q is not Unix seconds, RFC 3339, or YYYY-MM-DD HH:MM[:SS] in the local zone", v)
	},
	"deliveryreceipt": func(p *telco.SendMessageParams, v string) error {
		if v = strings.TrimSpace(v); v == "" {
			return nil
		}
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("DeliveryReceipt %q is not true or false", v)
		}
		p.DeliveryReceipt = &b
		return nil
	},
}

func readCSV(r io.Reader) ([]Line, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = 0 // every row as wide as the header
	header, err := cr.Read()
	if err == io.EOF {
		return nil, nil
	}
	if err != nil {
		return nil, inputErrorf("batch CSV: %v", err)
	}
	setters := make([]func(*telco.SendMessageParams, string) error, len(header))
	for i, h := range header {
		h = strings.TrimPrefix(h, "\uFEFF")
		f, ok := fields[strings.ToLower(strings.TrimSpace(h))]
		if !ok {
			return nil, inputErrorf("batch CSV: unknown column %q (known: From, To, Text, ExternalId, Schedule, DeliveryReceipt, ...)", h)
		}
		setters[i] = f
	}
	var out []Line
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, inputErrorf("batch CSV: %v", err)
		}
		line, _ := cr.FieldPos(0)
		bl := Line{Num: line}
		for i, v := range rec {
			if err := setters[i](&bl.Params, v); err != nil {
				return nil, inputErrorf("batch CSV line %d: %v", line, err)
			}
		}
		out = append(out, bl)
	}
}

// readJSONL reads JSON lines, one object per line, or a JSON array of
// objects (what jq -s and many tools write), detected by its leading '['.
func readJSONL(r *bufio.Reader) ([]Line, error) {
	if firstByte(r) == '[' {
		if b, _ := r.Peek(3); string(b) == "\uFEFF" {
			_, _ = r.Discard(3)
		}
		return readJSONArray(r)
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var out []Line
	for n := 1; sc.Scan(); n++ {
		text := bytes.TrimSpace(sc.Bytes())
		if n == 1 {
			text = bytes.TrimPrefix(text, []byte("\uFEFF"))
		}
		if len(text) == 0 {
			continue
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(text, &obj); err != nil || obj == nil {
			return nil, inputErrorf("batch JSON line %d: not a JSON object", n)
		}
		bl := Line{Num: n}
		if err := setJSONFields(&bl.Params, obj); err != nil {
			return nil, inputErrorf("batch JSON line %d: %v", n, err)
		}
		out = append(out, bl)
	}
	if err := sc.Err(); err != nil {
		return nil, inputErrorf("batch JSON: %v", err)
	}
	return out, nil
}

// firstByte is the first byte of r after blank space and a UTF-8
// byte-order mark, looked at without reading it (so that line numbers
// still count from the start), or 0 when there is none in the first 64 KiB.
func firstByte(r *bufio.Reader) byte {
	b, _ := r.Peek(64 << 10)
	b = bytes.TrimPrefix(b, []byte("\uFEFF"))
	if t := bytes.TrimLeft(b, " \t\r\n"); len(t) > 0 {
		return t[0]
	}
	return 0
}

// readJSONArray reads one JSON array of message objects; a message's line
// number is its position in the array, from 1.
func readJSONArray(r io.Reader) ([]Line, error) {
	var items []json.RawMessage
	dec := json.NewDecoder(r)
	if err := dec.Decode(&items); err != nil {
		return nil, inputErrorf("batch JSON array: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, inputErrorf("batch JSON array: more input after the array")
	}
	out := make([]Line, 0, len(items))
	for i, raw := range items {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
			return nil, inputErrorf("batch JSON array element %d: not a JSON object", i+1)
		}
		bl := Line{Num: i + 1}
		if err := setJSONFields(&bl.Params, obj); err != nil {
			return nil, inputErrorf("batch JSON array element %d: %v", i+1, err)
		}
		out = append(out, bl)
	}
	return out, nil
}

// setJSONFields sets p from one JSON object. Every field is a JSON string,
// except that Schedule may also be a number (Unix seconds) and
// DeliveryReceipt a boolean; null leaves a field unset. A number where
// text is expected is an error rather than its digits, so that {"To": 61400000001}
// does not quietly become a recipient without its +.
func setJSONFields(p *telco.SendMessageParams, obj map[string]json.RawMessage) error {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys) // the first error found is the same on every run
	for _, k := range keys {
		raw := obj[k]
		f, ok := fields[strings.ToLower(k)]
		if !ok {
			return fmt.Errorf("unknown field %q", k)
		}
		if string(raw) == "null" {
			continue
		}
		var v string
		if err := json.Unmarshal(raw, &v); err != nil {
			var num json.Number
			var b bool
			switch lk := strings.ToLower(k); {
			case lk == "schedule" && json.Unmarshal(raw, &num) == nil:
				v = num.String()
			case lk == "deliveryreceipt" && json.Unmarshal(raw, &b) == nil:
				v = strconv.FormatBool(b)
			default:
				return fmt.Errorf("field %q must be a JSON string, not %s", k, raw)
			}
		}
		if err := f(p, v); err != nil {
			return err
		}
	}
	return nil
}
