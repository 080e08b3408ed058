package batch

// The input of a batch: CSV with a header row, JSON lines, or a JSON array
// of objects, read into the SDK's SendMessageParams.

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/internal/smswire"
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
// for messages ("-" for standard input); a Schedule without a zone is
// read in loc (nil for the local zone).
func Read(r io.Reader, format, name string, loc *time.Location) ([]Line, error) {
	if loc == nil {
		loc = time.Local
	}
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
		lines, err = readJSONL(br, loc)
	} else {
		lines, err = readCSV(br, loc)
	}
	if err != nil {
		return nil, err
	}
	if len(lines) == 0 {
		return nil, inputErrorf("sms batch: no messages in %s", name)
	}
	return lines, nil
}

// A batch file names its fields as the service's wire does (From, To,
// Text, ExternalId, Schedule, ...): internal/smswire holds them, the one
// table of an SMS send's fields that the fake service reads its bodies
// with too, and sets each with its Field.Set. What the tool adds is a
// layer around that table: a field's name in any case, with a byte-order
// mark or blanks around a CSV header; a Schedule given as RFC 3339 or as a
// date and time without a zone (read in the user's zone) besides Unix
// seconds; and, in JSON, a string for any field (a Schedule or a
// DeliveryReceipt in quotes), as a CSV file gives them.

// FieldNames are the fields a batch file may name, in the interface
// document's order, for help and errors.
func FieldNames() []string {
	fs := smswire.Fields()
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Name
	}
	return out
}

// field finds the field a CSV column or JSON key names.
func field(name string) (smswire.Field, bool) {
	return smswire.Lookup(strings.TrimSpace(strings.TrimPrefix(name, "\uFEFF")))
}

// setField sets f of p from its text in a batch file: as smswire reads
// it, except that a Schedule may be RFC 3339 or a date and time in loc.
func setField(f smswire.Field, p *telco.SendMessageParams, v string, loc *time.Location) error {
	if f.Kind == smswire.UnixSeconds {
		secs, err := scheduleSeconds(v, loc)
		if err != nil {
			return err
		}
		v = secs
	}
	if err := f.Set(p, v); err != nil {
		var we *smswire.Error
		if errors.As(err, &we) && we.Field != "" {
			return fmt.Errorf("field %q: %s", we.Field, we.Reason)
		}
		return err
	}
	return nil
}

// scheduleSeconds is a Schedule as Unix seconds: given so, or in RFC 3339,
// or as a date and time without a zone, read in loc as on the command
// line. "" stays "" (no schedule).
func scheduleSeconds(v string, loc *time.Location) (string, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return "", nil
	}
	if _, err := strconv.ParseInt(v, 10, 64); err == nil {
		return v, nil
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return strconv.FormatInt(t.Unix(), 10), nil
	}
	for _, layout := range []string{"2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02T15:04", "2006-01-02 15:04"} {
		if t, err := time.ParseInLocation(layout, v, loc); err == nil {
			return strconv.FormatInt(t.Unix(), 10), nil
		}
	}
	return "", fmt.Errorf("the Schedule value %q is not Unix seconds, RFC 3339, or YYYY-MM-DD HH:MM[:SS] in the local zone", v)
}

func readCSV(r io.Reader, loc *time.Location) ([]Line, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = 0 // every row as wide as the header
	header, err := cr.Read()
	if err == io.EOF {
		return nil, nil
	}
	if err != nil {
		return nil, inputErrorf("batch CSV: %v", err)
	}
	cols := make([]smswire.Field, len(header))
	for i, h := range header {
		f, ok := field(h)
		if !ok {
			return nil, inputErrorf("batch CSV: unknown column %q (known: %s)", strings.TrimPrefix(h, "\uFEFF"), strings.Join(FieldNames(), ", "))
		}
		for _, g := range cols[:i] {
			if g.Name == f.Name {
				return nil, inputErrorf("batch CSV: two columns name %s", f.Name)
			}
		}
		cols[i] = f
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
			if err := setField(cols[i], &bl.Params, v, loc); err != nil {
				return nil, inputErrorf("batch CSV line %d: %v", line, err)
			}
		}
		out = append(out, bl)
	}
}

// readJSONL reads JSON lines, one object per line, or a JSON array of
// objects (what jq -s and many tools write), detected by its leading '['.
func readJSONL(r *bufio.Reader, loc *time.Location) ([]Line, error) {
	if firstByte(r) == '[' {
		if b, _ := r.Peek(3); string(b) == "\uFEFF" {
			_, _ = r.Discard(3)
		}
		return readJSONArray(r, loc)
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
		if err := setJSONFields(&bl.Params, obj, loc); err != nil {
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
func readJSONArray(r io.Reader, loc *time.Location) ([]Line, error) {
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
		if err := setJSONFields(&bl.Params, obj, loc); err != nil {
			return nil, inputErrorf("batch JSON array element %d: %v", i+1, err)
		}
		out = append(out, bl)
	}
	return out, nil
}

// setJSONFields sets p from one JSON object with smswire.DecodeObject,
// which reads each field as the service does (a JSON string; Schedule
// Unix seconds, DeliveryReceipt a boolean; null leaves a field unset),
// once the object's strings for Schedule and DeliveryReceipt are turned
// into those. A number where text is expected is an error rather than its
// digits, so that {"To": 61400000001} does not quietly become a recipient
// without its +; so is a key that names no field.
func setJSONFields(p *telco.SendMessageParams, obj map[string]json.RawMessage, loc *time.Location) error {
	for k, raw := range obj {
		f, ok := field(k)
		var s string
		if !ok || f.Kind == smswire.String || json.Unmarshal(raw, &s) != nil {
			continue
		}
		switch f.Kind {
		case smswire.UnixSeconds:
			secs, err := scheduleSeconds(s, loc)
			if err != nil {
				return err
			}
			obj[k] = json.RawMessage(secs)
			if secs == "" {
				obj[k] = json.RawMessage("null")
			}
		case smswire.Bool:
			b, err := strconv.ParseBool(strings.TrimSpace(s))
			switch {
			case strings.TrimSpace(s) == "":
				obj[k] = json.RawMessage("null")
			case err != nil:
				return fmt.Errorf("field %q: %q is not true or false", f.Name, s)
			default:
				obj[k] = json.RawMessage(strconv.FormatBool(b))
			}
		}
	}
	unknown, err := smswire.DecodeObject(obj, p)
	var we *smswire.Error
	switch {
	case errors.As(err, &we) && we.Field != "":
		return fmt.Errorf("field %q %s", we.Field, we.Reason)
	case err != nil:
		return err
	case len(unknown) > 0:
		return fmt.Errorf("unknown field %q (known: %s)", unknown[0], strings.Join(FieldNames(), ", "))
	}
	return nil
}
