package telco

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// DateTime is a point in time as number-block responses carry it:
// "/Date(1577836800000+1000)/", epoch milliseconds in UTC followed by an
// optional UTC offset (±hhmm) that names the zone the value was written in.
//
// Decoding also accepts the escaped form "\/Date(...)\/", negative epochs,
// RFC 3339 strings, ISO 8601 without a zone ("2017-10-01T00:00:00", with
// or without a fraction: read as UTC, as .NET writes a DateTime of
// unspecified kind), the empty string and JSON null (the last two give the
// zero DateTime, as does .NET's DateTime.MinValue, /Date(-62135596800000)/).
// The offset is kept: Location is a fixed zone of that offset, and
// MarshalJSON writes the same "/Date(ms±hhmm)/" form back, "-0000" as
// "-0000" and "+0000" as "+0000". A value sent without an offset (a bare
// "/Date(ms)/", an RFC 3339 "Z" or a zone-less ISO string) is in time.UTC
// and is written as "/Date(ms)/", without one. The zero DateTime marshals
// as null.
//
// MarshalJSON writes only what UnmarshalJSON reads back: the form holds
// whole milliseconds (a finer fraction is dropped, rounding down) and an
// offset of whole minutes within ±23:59, so a time in a zone whose offset
// is not (a local mean time of the 1800s, a FixedZone of 25 hours) or
// whose milliseconds since 1970 do not fit in an int64 is an error.
type DateTime struct{ time.Time }

// MarshalJSON writes the "/Date(ms±hhmm)/" form, or null for the zero value.
// It fails for a time the form cannot carry (see DateTime).
func (d DateTime) MarshalJSON() ([]byte, error) {
	if d.IsZero() {
		return []byte("null"), nil
	}
	if err := d.wireProblem(); err != nil {
		return nil, err
	}
	b := make([]byte, 0, 32)
	b = append(b, `"/Date(`...)
	b = d.appendWire(b)
	b = append(b, `)/"`...)
	return b, nil
}

// wireProblem says why d cannot be written in a form that parseMSDate and
// fastMSDate read back as the same millisecond and offset: an offset that
// is not whole minutes or beyond ±23:59 (they read hh at most 23 and mm at
// most 59), or milliseconds outside int64. It is nil when d can be.
func (d DateTime) wireProblem() error {
	if d.Location() != time.UTC {
		if _, off := d.Zone(); off%60 != 0 || off < -maxOffsetMinutes*60 || off > maxOffsetMinutes*60 {
			return fmt.Errorf("telco: DateTime: cannot write UTC offset %s: /Date(ms±hhmm)/ takes whole minutes within ±23:59", offsetText(off))
		}
	}
	// UnixMilli wraps around outside int64; what wrapped does not come back.
	if back := time.UnixMilli(d.UnixMilli()); back.Unix() != d.Unix() || back.Nanosecond() != d.Nanosecond()/1e6*1e6 {
		return fmt.Errorf("telco: DateTime: cannot write year %d: its milliseconds since 1970 do not fit in /Date(ms)/", d.Year())
	}
	return nil
}

// offsetText is an offset in seconds as ±hh:mm, or ±hh:mm:ss when it has
// seconds.
func offsetText(secs int) string {
	sign := '+'
	if secs < 0 {
		sign, secs = '-', -secs
	}
	if secs%60 != 0 {
		return fmt.Sprintf("%c%02d:%02d:%02d", sign, secs/3600, secs/60%60, secs%60)
	}
	return fmt.Sprintf("%c%02d:%02d", sign, secs/3600, secs/60%60)
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
	if off < 0 || d.Location() == utcOffsetMinusZero {
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
	// Number-block listings carry many of these: the common wire form is
	// read straight from the bytes, without allocating. Anything else,
	// errors included, takes the general path below.
	if t, ok := fastMSDate(data); ok {
		*d = t
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
		// No zone: .NET's default for a DateTime of unspecified kind. Go
		// reads it as UTC, fraction or not.
		if t, err = time.Parse(isoNoZone, s); err != nil {
			return DateTime{}, fmt.Errorf("telco: DateTime: %.60q is neither /Date(...)/ nor ISO 8601", s)
		}
		return DateTime{t}, nil
	}
	if _, off := t.Zone(); off == 0 && t.Location() != time.UTC {
		// "+00:00" parses into a fixed zone; "Z" into UTC. Keep the distinction
		// so the value round-trips as written.
		t = t.In(utcOffsetZero)
	}
	return DateTime{t}, nil
}

// isoNoZone is ISO 8601 without a zone; time.Parse also takes a fraction of
// a second after the seconds.
const isoNoZone = "2006-01-02T15:04:05"

// utcOffsetZero is an explicit "+0000" offset: it marshals with the offset,
// unlike time.UTC, so "/Date(0+0000)/" round-trips unchanged.
// utcOffsetMinusZero is "-0000", the same instant, kept apart so that it
// too is written back as it was sent.
var (
	utcOffsetZero      = time.FixedZone("+0000", 0)
	utcOffsetMinusZero = time.FixedZone("-0000", 0)
)

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
	return DateTime{t.In(offsetZone(off[0] == '-', (hh*60+mm)*60))}, nil
}

// fastMSDate reads the quoted JSON form "/Date(ms)/" or "/Date(ms±hhmm)/",
// slashes escaped or not, with ms an optional minus and 1 to 18 digits. It
// reports false for anything else, which the general path then decides,
// so it accepts nothing ParseDateTime would refuse and gives the same
// value.
func fastMSDate(b []byte) (DateTime, bool) {
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return DateTime{}, false
	}
	b = b[1 : len(b)-1]
	if len(b) > 0 && b[0] == '\\' {
		b = b[1:]
	}
	if len(b) < 6 || string(b[:6]) != "/Date(" {
		return DateTime{}, false
	}
	b = b[6:]
	switch {
	case len(b) >= 2 && string(b[len(b)-2:]) == ")/":
		b = b[:len(b)-2]
	case len(b) >= 3 && string(b[len(b)-3:]) == `)\/`:
		b = b[:len(b)-3]
	default:
		return DateTime{}, false
	}
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	var ms int64
	i := 0
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		ms = ms*10 + int64(b[i]-'0')
	}
	if i == 0 || i > 18 { // 18 digits cannot overflow int64
		return DateTime{}, false
	}
	if neg {
		ms = -ms
	}
	t := time.UnixMilli(ms)
	off := b[i:]
	if len(off) == 0 {
		return DateTime{t.UTC()}, true
	}
	if len(off) != 5 || (off[0] != '+' && off[0] != '-') {
		return DateTime{}, false
	}
	for _, c := range off[1:] {
		if c < '0' || c > '9' {
			return DateTime{}, false
		}
	}
	hh := int(off[1]-'0')*10 + int(off[2]-'0')
	mm := int(off[3]-'0')*10 + int(off[4]-'0')
	if hh > 23 || mm > 59 {
		return DateTime{}, false
	}
	return DateTime{t.In(offsetZone(off[0] == '-', (hh*60+mm)*60))}, true
}

// offsetZone is the zone of a wire offset given as its sign and its size in
// seconds; "-0000" is utcOffsetMinusZero.
func offsetZone(neg bool, secs int) *time.Location {
	if neg {
		if secs == 0 {
			return utcOffsetMinusZero
		}
		secs = -secs
	}
	return fixedZone(secs)
}

// zones caches one fixed zone per offset minute, -23:59 to +23:59, so that
// decoding does not allocate a *time.Location for every value.
var zones [2*maxOffsetMinutes + 1]atomic.Pointer[time.Location]

const maxOffsetMinutes = 23*60 + 59

// fixedZone returns the zone of a UTC offset in seconds (a whole number of
// minutes within ±23:59), named as the wire writes it, e.g. "+1000". Zero
// is utcOffsetZero.
func fixedZone(secs int) *time.Location {
	if secs == 0 {
		return utcOffsetZero
	}
	mins := secs / 60
	if secs%60 != 0 || mins < -maxOffsetMinutes || mins > maxOffsetMinutes {
		return time.FixedZone(zoneName(secs), secs)
	}
	slot := &zones[mins+maxOffsetMinutes]
	if loc := slot.Load(); loc != nil {
		return loc
	}
	loc := time.FixedZone(zoneName(secs), secs)
	if slot.CompareAndSwap(nil, loc) {
		return loc
	}
	return slot.Load()
}

// zoneName is "±hhmm" for an offset in seconds.
func zoneName(secs int) string {
	sign := byte('+')
	if secs < 0 {
		sign, secs = '-', -secs
	}
	m := secs / 60
	return string([]byte{sign, byte('0' + m/600), byte('0' + m/60%10), byte('0' + m%60/10), byte('0' + m%10)})
}

// Timestamp is a time as the service sends it outside number blocks: an
// integer of Unix seconds in UTC. 0 means unset.
//
// Decoding accepts a JSON integer, null (0), and, to be tolerant, an
// integer in a JSON string, a number with a fraction (truncated), and a
// string in any form DateTime reads ("/Date(ms±hhmm)/", RFC 3339, or ISO
// 8601 without a zone, read as UTC) or YYYY-MM-DD (midnight UTC). A
// fraction of a second is dropped (rounded down).
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
	// Every message carries several of these: a plain integer is read
	// without allocating.
	if n, ok := fastInt(data); ok {
		*t = Timestamp(n)
		return nil
	}
	// Unset times come as null, often several to a message: compared
	// before the bytes become a string, which would allocate.
	if string(data) == "null" {
		*t = 0
		return nil
	}
	s := string(data)
	if len(s) >= 2 && s[0] == '"' {
		if err := json.Unmarshal(data, &s); err != nil {
			return fmt.Errorf("telco: Timestamp: bad string %.40q", data)
		}
		if s = strings.TrimSpace(s); s == "" {
			*t = 0
			return nil
		}
		if _, err := strconv.ParseInt(s, 10, 64); err != nil {
			// A date where seconds were documented: porting dates are sent as
			// YYYY-MM-DD and may come back that way, and a .NET service may
			// write a DateTime in its own default forms.
			if d, err := ParseDateTime(s); err == nil {
				*t = TimestampOf(d.Time)
				return nil
			}
			if tm, err := time.Parse(time.DateOnly, s); err == nil {
				*t = TimestampOf(tm)
				return nil
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

// fastInt reads an optional minus and 1 to 18 digits (too few to overflow
// int64), and reports false for anything else.
func fastInt(b []byte) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}
