package telcotest

import (
	"net/http"
	"strconv"
	"unicode/utf8"
)

// A page of messages is the fake's largest common answer, and encoding/json
// spent most of the fake's time on it. writeMessages writes the page, and
// writeMessage one message, with appendMessageOut instead: the same bytes
// json.NewEncoder writes (TestAppendMessageOutMatchesEncodingJSON and
// FuzzAppendMessageOut hold it to them), in a third of the time.

// writeMessages answers 200 with {"Messages": page}.
func writeMessages(w http.ResponseWriter, page []messageOut) {
	w.Header()["Content-Type"] = jsonContentType
	w.WriteHeader(http.StatusOK)
	var b []byte
	if a, ok := w.(*answer); ok {
		a.body.Grow(64 + 400*len(page))
		b = a.body.AvailableBuffer()
	}
	b = appendMessagesAnswer(b, page)
	_, _ = w.Write(b)
}

// writeMessage answers 200 with {"Message": m}, the answer of a send and
// of a get.
func writeMessage(w http.ResponseWriter, m messageOut) {
	w.Header()["Content-Type"] = jsonContentType
	w.WriteHeader(http.StatusOK)
	var b []byte
	if a, ok := w.(*answer); ok {
		a.body.Grow(512)
		b = a.body.AvailableBuffer()
	}
	b = appendMessageOut(append(b, `{"Message":`...), &m)
	_, _ = w.Write(append(b, "}\n"...))
}

// appendMessagesAnswer appends {"Messages": page} as json.Encoder writes
// it, newline included.
func appendMessagesAnswer(b []byte, page []messageOut) []byte {
	if page == nil {
		return append(b, "{\"Messages\":null}\n"...)
	}
	b = append(b, `{"Messages":[`...)
	for i := range page {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendMessageOut(b, &page[i])
	}
	return append(b, "]}\n"...)
}

// appendMessageOut appends m as encoding/json writes it: its fields in
// order, omitempty honoured, strings escaped as json.Marshal escapes them.
func appendMessageOut(b []byte, m *messageOut) []byte {
	b = append(b, `{"MessageSid":`...)
	b = appendJSONString(b, m.MessageSid)
	b = appendStringField(b, `,"AccountSid":`, m.AccountSid)
	b = appendStringField(b, `,"PropertySid":`, m.PropertySid)
	b = appendStringField(b, `,"From":`, m.From)
	b = appendStringField(b, `,"To":`, m.To)
	b = appendStringField(b, `,"Text":`, m.Text)
	b = append(b, `,"DeliveryReceipt":`...)
	b = strconv.AppendBool(b, m.DeliveryReceipt)
	b = appendIntField(b, `,"NumSegments":`, int64(m.NumSegments))
	b = appendStringField(b, `,"Status":`, string(m.Status))
	b = appendStringField(b, `,"Direction":`, string(m.Direction))
	b = appendIntField(b, `,"Scheduled":`, m.Scheduled)
	b = appendIntField(b, `,"Created":`, m.Created)
	b = appendIntField(b, `,"Submitted":`, m.Submitted)
	b = appendIntField(b, `,"Delivered":`, m.Delivered)
	b = appendIntField(b, `,"Received":`, m.Received)
	b = appendStringField(b, `,"ExternalId":`, m.ExternalID)
	b = append(b, `,"ErrorCode":`...)
	b = appendJSONString(b, m.ErrorCode)
	return append(b, '}')
}

// appendStringField appends an omitempty string member.
func appendStringField(b []byte, key, s string) []byte {
	if s == "" {
		return b
	}
	return appendJSONString(append(b, key...), s)
}

// appendIntField appends an omitempty integer member.
func appendIntField(b []byte, key string, n int64) []byte {
	if n == 0 {
		return b
	}
	return strconv.AppendInt(append(b, key...), n, 10)
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s quoted as json.Marshal quotes it: HTML's
// <, > and & escaped, control characters as \n or \u00XX, invalid UTF-8
// as \ufffd, U+2028 and U+2029 escaped.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
