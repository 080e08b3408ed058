package main

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/telcosdk/telco"
)

func (a *app) smsBatchCmd() *cobra.Command {
	var prop, format string
	var chunk int
	c := &cobra.Command{
		Use:   "batch [FILE|-]",
		Short: "Send many SMS from a CSV or JSON-lines file (or standard input)",
		Long: `Send many SMS in batches. The input is CSV with a header row naming the
columns, or JSON lines (one object per line) or a JSON array of objects,
with the same names (string values; Schedule may be a number and
DeliveryReceipt a boolean):

  From, To, Text, ExternalId, Schedule (Unix seconds or RFC 3339),
  DeliveryReceipt (true/false), DeliveryReceiptWebhookUri,
  DeliveryReceiptWebhookMethod, ForwardToSms, ForwardFromSms, ForwardToEmail,
  ForwardFromEmail, WebhookUri, WebhookMethod

The format is taken from --format, else the file's extension, else the
first character (a '{' means JSON lines, a '[' a JSON array). FILE - or no FILE reads standard
input. Messages go in chunks of --chunk-size; a progress bar is drawn on
standard error when it is a terminal. Every line's result is printed; the
exit status is 1 when any message was rejected, 2 when every line was
refused before sending (invalid parameters: nothing was sent).`,
		Example: `  printf 'To,Text,ExternalId\n+61499999999,Hello,c-1\n' | telco sms batch --property PR... -`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usagef("sms batch takes at most one FILE")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			prop, err := a.property(prop)
			if err != nil {
				return err
			}
			if chunk < 1 {
				return usagef("--chunk-size must be at least 1")
			}
			in, name := a.stdin, "-"
			if len(args) == 1 && args[0] != "-" {
				f, err := os.Open(args[0])
				if err != nil {
					return usagef("%v", err)
				}
				defer f.Close()
				in, name = f, args[0]
			}
			lines, err := readBatch(in, format, name)
			if err != nil {
				return err
			}
			return a.withClient(func(c *telco.Client) error { return a.sendBatch(cmd, c, prop, lines, chunk) })
		},
	}
	fs := c.Flags()
	a.propertyFlag(fs, &prop)
	fs.StringVar(&format, "format", "", "csv or jsonl (default: from the extension or the content)")
	fs.IntVar(&chunk, "chunk-size", 100, "messages per request")
	_ = c.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"csv", "jsonl"}, cobra.ShellCompDirectiveNoFileComp))
	return c
}

// batchLine is one message of a batch file and where it came from.
type batchLine struct {
	line int
	p    telco.SendMessageParams
}

// batchRow is one line's outcome, printed in JSON as the SDK's BatchResult
// with the line number.
type batchRow struct {
	Line int
	telco.BatchResult
	to string // the line's recipient, shown for rejected lines too
}

// batchRowCols show each line's result: accepted, or the code, message
// and fields of its rejection.
var batchRowCols = []column[batchRow]{
	{"LINE", func(r *batchRow) string { return itoa(r.Line) }},
	{"TO", func(r *batchRow) string {
		if r.Message != nil {
			return r.Message.To
		}
		return r.to
	}},
	{"MESSAGE SID", func(r *batchRow) string {
		if r.Message != nil {
			return r.Message.MessageSid
		}
		return ""
	}},
	{"EXTERNAL ID", func(r *batchRow) string {
		if r.Message != nil {
			return r.Message.ExternalID
		}
		return ""
	}},
	{"RESULT", func(r *batchRow) string {
		if r.Err == nil {
			return "accepted"
		}
		s := firstNonEmpty(r.Err.Code, "REJECTED")
		if r.Err.Message != "" {
			s += ": " + r.Err.Message
		}
		var names []string
		for _, f := range r.Err.Fields {
			if f.FieldName != "" {
				names = append(names, f.FieldName)
			}
		}
		if len(names) > 0 {
			s += " [" + strings.Join(names, ", ") + "]"
		}
		return s
	}},
}

// sendBatch sends lines in chunks and prints every line's result. A chunk
// that fails as a whole stops the run: the lines before it are reported,
// and the error says which lines may or may not have been sent.
func (a *app) sendBatch(cmd *cobra.Command, c *telco.Client, prop string, lines []batchLine, chunk int) error {
	bar := a.newProgress("sending", len(lines))
	rows := make([]batchRow, 0, len(lines))
	var failed error
	for start := 0; start < len(lines); start += chunk {
		part := lines[start:min(start+chunk, len(lines))]
		msgs := make([]telco.SendMessageParams, len(part))
		for i := range part {
			msgs[i] = part[i].p
		}
		res, err := c.Messages.SendBatch(cmd.Context(), prop, msgs)
		if err != nil {
			first, last := part[0].line, part[len(part)-1].line
			if errors.Is(err, telco.ErrMaybeSent) {
				failed = fmt.Errorf("lines %d to %d may have been sent (find them by ExternalId before sending again); later lines were not sent: %w", first, last, err)
			} else {
				failed = fmt.Errorf("lines %d to %d and later were not sent: %w", first, last, err)
			}
			break
		}
		for i, r := range res {
			rows = append(rows, batchRow{Line: part[i].line, BatchResult: r, to: part[i].p.To})
		}
		bar.add(len(part))
	}
	bar.finish()

	if a.jsonOut() {
		if err := printJSON(a.stdout, rows); err != nil {
			return err
		}
	} else if len(rows) > 0 {
		if err := printList(a, rows, rows, batchRowCols); err != nil {
			return err
		}
	}
	if failed != nil {
		return failed
	}
	rejected, local := 0, 0
	for i, r := range rows {
		if r.Err != nil {
			rejected++
			// The SDK refuses a line that fails Validate without sending
			// it; rows align with lines, as every chunk's results do.
			if lines[i].p.Validate() != nil {
				local++
			}
		}
	}
	if rejected > 0 && local == len(rows) {
		// Nothing was sent: as with one invalid sms send, a validation error.
		return &exitError{code: exitUsage, msg: fmt.Sprintf("%d of %d messages refused before sending; none was sent", rejected, len(rows))}
	}
	if rejected > 0 {
		return &exitError{code: exitService, msg: fmt.Sprintf("%d of %d messages rejected", rejected, len(rows))}
	}
	fmt.Fprintf(a.stderr, "%d messages accepted\n", len(rows))
	return nil
}

// readBatch reads a batch file in the format given, or detected from the
// file name, or else from its first character.
func readBatch(r io.Reader, format, name string) ([]batchLine, error) {
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
		return nil, usagef("--format must be csv or jsonl, not %q", format)
	}
	var lines []batchLine
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
		return nil, usagef("sms batch: no messages in %s", name)
	}
	return lines, nil
}

// batchFields are the columns a batch file may have, by lower-case name.
var batchFields = map[string]func(p *telco.SendMessageParams, v string) error{
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
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			return fmt.Errorf("the Schedule value %q is neither Unix seconds nor RFC 3339", v)
		}
		p.Schedule = t
		return nil
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

func readCSV(r io.Reader) ([]batchLine, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = 0 // every row as wide as the header
	header, err := cr.Read()
	if err == io.EOF {
		return nil, nil
	}
	if err != nil {
		return nil, usagef("batch CSV: %v", err)
	}
	setters := make([]func(*telco.SendMessageParams, string) error, len(header))
	for i, h := range header {
		h = strings.TrimPrefix(h, "\uFEFF")
		f, ok := batchFields[strings.ToLower(strings.TrimSpace(h))]
		if !ok {
			return nil, usagef("batch CSV: unknown column %q (known: From, To, Text, ExternalId, Schedule, DeliveryReceipt, ...)", h)
		}
		setters[i] = f
	}
	var out []batchLine
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, usagef("batch CSV: %v", err)
		}
		line, _ := cr.FieldPos(0)
		bl := batchLine{line: line}
		for i, v := range rec {
			if err := setters[i](&bl.p, v); err != nil {
				return nil, usagef("batch CSV line %d: %v", line, err)
			}
		}
		out = append(out, bl)
	}
}

// readJSONL reads JSON lines, one object per line, or a JSON array of
// objects (what jq -s and many tools write), detected by its leading '['.
func readJSONL(r *bufio.Reader) ([]batchLine, error) {
	if firstByte(r) == '[' {
		if b, _ := r.Peek(3); string(b) == "\uFEFF" {
			_, _ = r.Discard(3)
		}
		return readJSONArray(r)
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var out []batchLine
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
			return nil, usagef("batch JSON line %d: not a JSON object", n)
		}
		bl := batchLine{line: n}
		if err := setJSONFields(&bl.p, obj); err != nil {
			return nil, usagef("batch JSON line %d: %v", n, err)
		}
		out = append(out, bl)
	}
	if err := sc.Err(); err != nil {
		return nil, usagef("batch JSON: %v", err)
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
func readJSONArray(r io.Reader) ([]batchLine, error) {
	var items []json.RawMessage
	dec := json.NewDecoder(r)
	if err := dec.Decode(&items); err != nil {
		return nil, usagef("batch JSON array: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, usagef("batch JSON array: more input after the array")
	}
	out := make([]batchLine, 0, len(items))
	for i, raw := range items {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
			return nil, usagef("batch JSON array element %d: not a JSON object", i+1)
		}
		bl := batchLine{line: i + 1}
		if err := setJSONFields(&bl.p, obj); err != nil {
			return nil, usagef("batch JSON array element %d: %v", i+1, err)
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
		f, ok := batchFields[strings.ToLower(k)]
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
