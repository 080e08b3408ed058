package telco

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// DateTime is a point in time as number-block responses carry it:
// "/Date(1577836800000+1000)/", epoch milliseconds in UTC followed by an
// optional UTC offset (±hhmm) that names the zone the value was written in.
//
// Decoding also accepts the escaped form "\/Date(...)\/", negative epochs,
// RFC 3339 strings, the empty string and JSON null (the last two give the
// zero DateTime, as does .NET's DateTime.MinValue, /Date(-62135596800000)/).
// The offset is kept: Location is a fixed zone of that offset, and
// MarshalJSON writes the same "/Date(ms±hhmm)/" form back. A value without
// an offset is in UTC and is written without one. The zero DateTime
// marshals as null.
type DateTime struct{ time.Time }

// MarshalJSON writes the "/Date(ms±hhmm)/" form, or null for the zero value.
func (d DateTime) MarshalJSON() ([]byte, error) {
	if d.IsZero() {
		return []byte("null"), nil
	}
	b := make([]byte, 0, 32)
	b = append(b, `"/Date(`...)
	b = d.appendWire(b)
	b = append(b, `)/"`...)
	return b, nil
}

// String returns the wire form without quotes, e.g. "/Date(1577836800000+1000)/".
func (d DateTime) String() string {
	if d.IsZero() {
		return ""
	}
	return "/Date(" + string(d.appendWire(nil)) + ")/"
}

func (d DateTime) appendWire(b []byte) []byte {
	b = strconv.AppendInt(b, d.UnixMilli(), 10)
	if d.Location() == time.UTC {
		return b
	}
	_, off := d.Zone()
	sign := byte('+')
	if off < 0 {
		sign, off = '-', -off
	}
	off /= 60
	return append(b, sign,
		byte('0'+off/600), byte('0'+off/60%10),
		byte('0'+off%60/10), byte('0'+off%10))
}

// UnmarshalJSON reads every form listed on DateTime.
func (d *DateTime) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if string(data) == "null" {
		*d = DateTime{}
		return nil
	}
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("telco: DateTime: want a string or null, got %.40q", data)
	}
	t, err := ParseDateTime(s)
	if err != nil {
		return err
	}
	*d = t
	return nil
}

// ParseDateTime parses the forms DateTime reads from JSON, given as the
// decoded string (without JSON quotes).
func ParseDateTime(s string) (DateTime, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return DateTime{}, nil
	}
	// Some encoders escape the slashes twice, leaving "\/Date(...)\/".
	w := strings.ReplaceAll(s, `\/`, `/`)
	if inner, ok := strings.CutPrefix(w, "/Date("); ok {
		inner, ok = strings.CutSuffix(inner, ")/")
		if !ok {
			return DateTime{}, fmt.Errorf("telco: DateTime: malformed %.60q", s)
		}
		return parseMSDate(inner, s)
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return DateTime{}, fmt.Errorf("telco: DateTime: %.60q is neither /Date(...)/ nor RFC 3339", s)
	}
	if _, off := t.Zone(); off == 0 && t.Location() != time.UTC {
		// "+00:00" parses into a fixed zone; "Z" into UTC. Keep the distinction
		// so the value round-trips as written.
		t = t.In(utcOffsetZero)
	}
	return DateTime{t}, nil
}

// utcOffsetZero is an explicit "+0000" offset: it marshals with the offset,
// unlike time.UTC, so "/Date(0+0000)/" round-trips unchanged.
var utcOffsetZero = time.FixedZone("+0000", 0)

func parseMSDate(inner, orig string) (DateTime, error) {
	// The millisecond count may itself be negative; the offset sign is the
	// first + or - after the first character.
	num, off := inner, ""
	if i := strings.IndexAny(inner[min(1, len(inner)):], "+-"); i >= 0 {
		num, off = inner[:i+1], inner[i+1:]
	}
	ms, err := strconv.ParseInt(num, 10, 64)
	if err != nil {
		return DateTime{}, fmt.Errorf("telco: DateTime: bad milliseconds in %.60q", orig)
	}
	t := time.UnixMilli(ms)
	if off == "" {
		return DateTime{t.UTC()}, nil
	}
	if len(off) != 5 {
		return DateTime{}, fmt.Errorf("telco: DateTime: bad offset in %.60q", orig)
	}
	for i := 1; i < 5; i++ {
		if off[i] < '0' || off[i] > '9' {
			return DateTime{}, fmt.Errorf("telco: DateTime: bad offset in %.60q", orig)
		}
	}
	hh := int(off[1]-'0')*10 + int(off[2]-'0')
	mm := int(off[3]-'0')*10 + int(off[4]-'0')
	if hh > 23 || mm > 59 {
		return DateTime{}, fmt.Errorf("telco: DateTime: bad offset in %.60q", orig)
	}
	secs := (hh*60 + mm) * 60
	if off[0] == '-' {
		secs = -secs
	}
	if secs == 0 {
		return DateTime{t.In(utcOffsetZero)}, nil
	}
	return DateTime{t.In(time.FixedZone(off, secs))}, nil
}

// Timestamp is a time as the service sends it outside number blocks: an
// integer of Unix seconds in UTC. 0 means unset.
//
// Decoding accepts a JSON integer, null (0), and, to be tolerant, an
// integer in a JSON string, a number with a fraction (truncated), and an
// RFC 3339 or YYYY-MM-DD string (midnight UTC).
type Timestamp int64

// TimestampOf converts t to a Timestamp; the zero time gives 0.
func TimestampOf(t time.Time) Timestamp {
	if t.IsZero() {
		return 0
	}
	return Timestamp(t.Unix())
}

// Time returns the timestamp as a UTC time; 0 gives the zero time.Time so
// that IsZero reports an unset value.
func (t Timestamp) Time() time.Time {
	if t == 0 {
		return time.Time{}
	}
	return time.Unix(int64(t), 0).UTC()
}

// String formats the timestamp as RFC 3339 in UTC, or "" when unset.
func (t Timestamp) String() string {
	if t == 0 {
		return ""
	}
	return t.Time().Format(time.RFC3339)
}

// MarshalJSON writes the integer.
func (t Timestamp) MarshalJSON() ([]byte, error) {
	return strconv.AppendInt(nil, int64(t), 10), nil
}

// UnmarshalJSON reads the forms listed on Timestamp.
func (t *Timestamp) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	s := string(data)
	if s == "null" {
		*t = 0
		return nil
	}
	if len(s) >= 2 && s[0] == '"' {
		if err := json.Unmarshal(data, &s); err != nil {
			return fmt.Errorf("telco: Timestamp: bad string %.40q", data)
		}
		if s = strings.TrimSpace(s); s == "" {
			*t = 0
			return nil
		}
		if _, err := strconv.ParseInt(s, 10, 64); err != nil {
			// A date where seconds were documented (porting dates are sent as
			// YYYY-MM-DD and may come back that way).
			for _, layout := range []string{time.RFC3339Nano, time.DateOnly} {
				if tm, err := time.Parse(layout, s); err == nil {
					*t = TimestampOf(tm)
					return nil
				}
			}
		}
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		*t = Timestamp(n)
		return nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != f || f > 9.2e18 || f < -9.2e18 {
		return fmt.Errorf("telco: Timestamp: want Unix seconds, got %.40q", data)
	}
	*t = Timestamp(int64(f))
	return nil
}
