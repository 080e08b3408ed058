package telco

import (
	"encoding/json"
	"math/big"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDateTimeDecode(t *testing.T) {
	aest := 10 * 3600
	cases := []struct {
		in      string
		unixMs  int64
		offset  int // seconds east of UTC
		isUTC   bool
		wireOut string
	}{
		{`"/Date(1577836800000+1000)/"`, 1577836800000, aest, false, `"/Date(1577836800000+1000)/"`},
		{`"/Date(1577836800000)/"`, 1577836800000, 0, true, `"/Date(1577836800000)/"`},
		{`"/Date(1577836800123-0530)/"`, 1577836800123, -(5*3600 + 30*60), false, `"/Date(1577836800123-0530)/"`},
		{`"/Date(1577836800000+0000)/"`, 1577836800000, 0, false, `"/Date(1577836800000+0000)/"`},
		{`"/Date(-86400000)/"`, -86400000, 0, true, `"/Date(-86400000)/"`},
		{`"/Date(-1000+0100)/"`, -1000, 3600, false, `"/Date(-1000+0100)/"`},
		{`"\/Date(1577836800000+1000)\/"`, 1577836800000, aest, false, `"/Date(1577836800000+1000)/"`},
		{`"\\/Date(1577836800000)\\/"`, 1577836800000, 0, true, `"/Date(1577836800000)/"`},
		{`"2020-01-01T10:00:00+10:00"`, 1577836800000, aest, false, `"/Date(1577836800000+1000)/"`},
		{`"2020-01-01T00:00:00Z"`, 1577836800000, 0, true, `"/Date(1577836800000)/"`},
		{`"2020-01-01T00:00:00.5+00:00"`, 1577836800500, 0, false, `"/Date(1577836800500+0000)/"`},
		// "-0000" is written back as sent, not as "+0000".
		{`"/Date(1577836800000-0000)/"`, 1577836800000, 0, false, `"/Date(1577836800000-0000)/"`},
		{`"\/Date(-1-0000)\/"`, -1, 0, false, `"/Date(-1-0000)/"`},
		// ISO 8601 without a zone, .NET's default: UTC, written without an offset.
		{`"2017-10-01T00:00:00"`, 1506816000000, 0, true, `"/Date(1506816000000)/"`},
		{`"2017-10-01T00:00:00.123"`, 1506816000123, 0, true, `"/Date(1506816000123)/"`},
		{`"2017-10-01T00:00:00.1234567"`, 1506816000123, 0, true, `"/Date(1506816000123)/"`},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			var d DateTime
			require.NoError(t, json.Unmarshal([]byte(tc.in), &d))
			assert.Equal(t, tc.unixMs, d.UnixMilli())
			_, off := d.Zone()
			assert.Equal(t, tc.offset, off)
			assert.Equal(t, tc.isUTC, d.Location() == time.UTC)
			out, err := json.Marshal(d)
			require.NoError(t, err)
			assert.Equal(t, tc.wireOut, string(out))
		})
	}
}

func TestDateTimeNullAndEmpty(t *testing.T) {
	var v struct {
		A DateTime
		B *DateTime
		C DateTime
	}
	require.NoError(t, json.Unmarshal([]byte(`{"A":null,"B":null,"C":""}`), &v))
	assert.True(t, v.A.IsZero())
	assert.Nil(t, v.B)
	assert.True(t, v.C.IsZero())
	out, err := json.Marshal(DateTime{})
	require.NoError(t, err)
	assert.Equal(t, "null", string(out))
	assert.Empty(t, DateTime{}.String())

	// .NET's DateTime.MinValue is Go's zero time: both mean "no value".
	var d DateTime
	require.NoError(t, json.Unmarshal([]byte(`"/Date(-62135596800000)/"`), &d))
	assert.True(t, d.IsZero())
}

func TestDateTimeRejectsGarbage(t *testing.T) {
	for _, in := range []string{
		`"/Date(abc)/"`, `"/Date()/"`, `"/Date(1+10)/"`, `"/Date(1+2400)/"`, `"/Date(1+1060)/"`,
		`"/Date(1+10a0)/"`, `"/Date(1577836800000"`, `"yesterday"`, `12345`, `true`, `{}`,
		`"/Date(99999999999999999999)/"`, `"2017-10-01T00:00"`, `"2017-10-01T24:00:00"`, `"2017-10-01 00:00:00"`,
		`"2017-10-01T00:00:00+1000"`,
	} {
		var d DateTime
		err := json.Unmarshal([]byte(in), &d)
		assert.Error(t, err, in)
		if err != nil {
			assert.True(t, strings.HasPrefix(err.Error(), "telco: DateTime") || strings.Contains(err.Error(), "json"), err.Error())
		}
	}
}

func TestDateTimeString(t *testing.T) {
	d, err := ParseDateTime("/Date(1577836800000+1000)/")
	require.NoError(t, err)
	assert.Equal(t, "/Date(1577836800000+1000)/", d.String())
	assert.Equal(t, "2020-01-01T10:00:00+10:00", d.Format(time.RFC3339))
}

func TestDateTimeMinusZeroString(t *testing.T) {
	t.Parallel()
	for _, wire := range []string{"/Date(1577836800000-0000)/", "/Date(1577836800000+0000)/", "/Date(1577836800000)/"} {
		d, err := ParseDateTime(wire)
		require.NoError(t, err)
		assert.Equal(t, wire, d.String())
		assert.Equal(t, "2020-01-01T00:00:00Z", d.UTC().Format(time.RFC3339), wire)
	}
}

func TestTimestampReadsDotNetForms(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		want Timestamp
	}{
		{`"2017-10-01T00:00:00"`, 1506816000},
		{`"2017-10-01T00:00:00.123"`, 1506816000},
		{`"2017-10-01T00:00:00.9999999"`, 1506816000},
		{`"2017-10-01T10:00:00+10:00"`, 1506816000},
		{`"2017-10-01T00:00:00Z"`, 1506816000},
		{`"2017-10-01"`, 1506816000},
		{`"/Date(1506816000000)/"`, 1506816000},
		{`"/Date(1506816000999)/"`, 1506816000},
		{`"/Date(1506816000000+1000)/"`, 1506816000},
		{`"/Date(1506816000000-0000)/"`, 1506816000},
		{`"\/Date(1506816000000-0530)\/"`, 1506816000},
		{`"/Date(-1500)/"`, -2},          // rounded down, like time.Time.Unix
		{`"/Date(-62135596800000)/"`, 0}, // .NET's DateTime.MinValue: unset
		{`"0001-01-01T00:00:00"`, 0},     // the same, in ISO form
		{`"1506816000"`, 1506816000},     // unchanged: an integer in a string
		{`1506816000`, 1506816000},       // unchanged: the documented form
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			var ts Timestamp
			require.NoError(t, json.Unmarshal([]byte(tc.in), &ts))
			assert.Equal(t, tc.want, ts)
		})
	}
	for _, bad := range []string{`"/Date(x)/"`, `"/Date(1+2400)/"`, `"2017-10-01T00:00"`, `"2017-13-01T00:00:00"`, `"/Date(1)"`} {
		var ts Timestamp
		assert.Error(t, json.Unmarshal([]byte(bad), &ts), bad)
	}
}

func TestTimestamp(t *testing.T) {
	var v struct{ A, B, C, D, E Timestamp }
	require.NoError(t, json.Unmarshal([]byte(`{"A":1506038400,"B":null,"C":"1506038400","D":1506038400.9,"E":""}`), &v))
	assert.EqualValues(t, 1506038400, v.A)
	assert.Zero(t, v.B)
	assert.EqualValues(t, 1506038400, v.C)
	assert.EqualValues(t, 1506038400, v.D)
	assert.Zero(t, v.E)
	assert.Equal(t, time.Date(2017, 9, 22, 0, 0, 0, 0, time.UTC), v.A.Time())
	assert.True(t, Timestamp(0).Time().IsZero())
	assert.Equal(t, "2017-09-22T00:00:00Z", v.A.String())
	assert.Empty(t, Timestamp(0).String())

	out, err := json.Marshal(v.A)
	require.NoError(t, err)
	assert.Equal(t, "1506038400", string(out))

	now := time.Date(2026, 11, 22, 1, 2, 3, 999, time.FixedZone("x", 3600))
	assert.EqualValues(t, now.Unix(), TimestampOf(now))
	assert.Zero(t, TimestampOf(time.Time{}))

	for _, bad := range []string{`"soon"`, `true`, `{}`, `[1]`, `1e300`} {
		var ts Timestamp
		assert.Error(t, json.Unmarshal([]byte(bad), &ts), bad)
	}
}

// FuzzDateTime: decoding never panics, and whatever decodes marshals to a
// form that decodes to the same instant and offset.
func FuzzDateTime(f *testing.F) {
	for _, s := range []string{
		`"/Date(1577836800000+1000)/"`, `"/Date(1577836800000)/"`, `"/Date(-1)/"`,
		`"\/Date(0-0000)\/"`, `"2020-01-01T00:00:00Z"`, `null`, `""`, `"/Date(+1)/"`, `"/Date(-+1000)/"`,
		`"2017-10-01T00:00:00"`, `"2017-10-01T00:00:00.123"`, `"/Date(1577836800000-0000)/"`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var d DateTime
		if json.Unmarshal(in, &d) != nil {
			return
		}
		out, err := json.Marshal(d)
		if err != nil {
			t.Fatalf("marshal %v: %v", d.Time, err)
		}
		var back DateTime
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("re-read %s: %v", out, err)
		}
		if d.IsZero() != back.IsZero() {
			t.Fatalf("zero changed: %s", out)
		}
		if d.IsZero() {
			return
		}
		if back.UnixMilli() != d.UnixMilli() {
			t.Fatalf("instant changed: %s -> %s", in, out)
		}
		_, o1 := d.Zone()
		_, o2 := back.Zone()
		if o1/60 != o2/60 {
			t.Fatalf("offset changed: %s -> %s", in, out)
		}
		// The wire form is stable: what was written once is written again
		// unchanged (a "-0000" stays "-0000").
		if again, _ := json.Marshal(back); string(again) != string(out) {
			t.Fatalf("wire form changed: %s -> %s -> %s", in, out, again)
		}
	})
}

// MarshalJSON writes only what UnmarshalJSON reads back: offsets of whole
// minutes within ±23:59 (the decoder's ±hhmm, hh at most 23, mm at most
// 59) and milliseconds that fit in an int64. Anything else is an error,
// not a "+2500" or a "+:000" the decoder refuses.
func TestDateTimeMarshalRefusesWhatItCannotReadBack(t *testing.T) {
	at := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	sydney, err := time.LoadLocation("Australia/Sydney")
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		t    time.Time
		want string // the wire form, or "" for an error
	}{
		{"+23:59", at.In(time.FixedZone("", 23*3600+59*60)), `"/Date(1577836800000+2359)/"`},
		{"-23:59", at.In(time.FixedZone("", -(23*3600 + 59*60))), `"/Date(1577836800000-2359)/"`},
		{"+05:30", at.In(time.FixedZone("", 5*3600+30*60)), `"/Date(1577836800000+0530)/"`},
		{"Sydney in summer", at.In(sydney), `"/Date(1577836800000+1100)/"`},
		{"UTC", at, `"/Date(1577836800000)/"`},
		{"+24:00", at.In(time.FixedZone("", 24*3600)), ""},
		{"+25:00", at.In(time.FixedZone("", 25*3600)), ""},
		{"-25:00", at.In(time.FixedZone("", -25*3600)), ""},
		{"+100:00", at.In(time.FixedZone("", 100*3600)), ""},
		{"+10:00:30", at.In(time.FixedZone("", 10*3600+30)), ""},
		{"-00:00:01", at.In(time.FixedZone("", -1)), ""},
		{"Sydney's local mean time (+10:04:52)", time.Date(1880, 1, 1, 0, 0, 0, 0, sydney), ""},
		{"past int64 milliseconds", time.Unix(1<<62, 0).UTC(), ""},
		{"before int64 milliseconds", time.Unix(-1<<62, 0).In(time.FixedZone("", 3600)), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := json.Marshal(DateTime{tc.t})
			if tc.want != "" {
				require.NoError(t, err)
				assert.Equal(t, tc.want, string(b))
				return
			}
			require.Error(t, err, "wrote %s", b)
			assert.Contains(t, err.Error(), "telco: DateTime: ")
		})
	}
}

// FuzzDateTimeMarshal: MarshalJSON accepts exactly what UnmarshalJSON
// reads back, decided here independently (offset, and milliseconds in
// arbitrary precision), and what it writes reads back to the same instant
// at millisecond precision, the form's, and the same offset.
func FuzzDateTimeMarshal(f *testing.F) {
	f.Add(int64(1577836800), int64(123456789), int32(36000), uint8(1))
	f.Add(int64(0), int64(0), int32(0), uint8(0))
	f.Add(int64(-1), int64(999999999), int32(-19800), uint8(1))
	f.Add(int64(1577836800), int64(0), int32(90000), uint8(1))
	f.Add(int64(1577836800), int64(0), int32(360000), uint8(1))
	f.Add(int64(1577836800), int64(0), int32(36030), uint8(1))
	f.Add(int64(0), int64(0), int32(0), uint8(2))
	f.Add(int64(-2840140800), int64(0), int32(0), uint8(3))
	f.Add(int64(9223372036854775), int64(807000000), int32(0), uint8(0))
	f.Add(int64(9223372036854775), int64(808000000), int32(0), uint8(0))
	f.Add(int64(-9223372036854776), int64(192000000), int32(60), uint8(1))
	f.Add(int64(-9223372036854776), int64(191999999), int32(60), uint8(1))
	zones := []*time.Location{time.UTC, nil, utcOffsetMinusZero}
	for _, name := range []string{"Australia/Sydney", "Asia/Kolkata", "America/St_Johns", "Africa/Monrovia"} {
		loc, err := time.LoadLocation(name)
		require.NoError(f, err)
		zones = append(zones, loc)
	}
	f.Fuzz(func(t *testing.T, sec, nsec int64, offset int32, zone uint8) {
		loc := zones[int(zone)%len(zones)]
		if loc == nil {
			loc = time.FixedZone("", int(offset))
		}
		tm := time.Unix(sec, nsec).In(loc)
		d := DateTime{tm}
		b, err := json.Marshal(d)

		_, off := tm.Zone()
		ms := new(big.Int).Mul(big.NewInt(tm.Unix()), big.NewInt(1000))
		ms.Add(ms, big.NewInt(int64(tm.Nanosecond()/1e6)))
		offsetOK := loc == time.UTC || (off%60 == 0 && off >= -(23*3600+59*60) && off <= 23*3600+59*60)
		readable := ms.IsInt64() && offsetOK
		switch {
		case tm.IsZero():
			if err != nil || string(b) != "null" {
				t.Fatalf("the zero instant: %s, %v", b, err)
			}
			return
		case err != nil && readable:
			t.Fatalf("refused %v (offset %d s, %s ms): %v", tm, off, ms, err)
		case err == nil && !readable:
			t.Fatalf("wrote %s for %v (offset %d s, %s ms), which cannot be read back", b, tm, off, ms)
		case err != nil:
			return
		}
		var back DateTime
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("wrote %s for %v, which does not read back: %v", b, tm, err)
		}
		if back.Unix() != tm.Unix() || back.Nanosecond() != tm.Nanosecond()/1e6*1e6 {
			t.Fatalf("%v -> %s -> %v: another instant", tm, b, back.Time)
		}
		if _, boff := back.Zone(); boff != off {
			t.Fatalf("%v -> %s -> %v: offset %d, want %d", tm, b, back.Time, boff, off)
		}
		if (back.Location() == time.UTC) != (loc == time.UTC) {
			t.Fatalf("%v -> %s -> %v: UTC and an explicit offset are kept apart", tm, b, back.Time)
		}
	})
}

// FuzzTimestamp: decoding never panics and an integer round-trips.
func FuzzTimestamp(f *testing.F) {
	for _, s := range []string{`1506038400`, `null`, `"1506038400"`, `-5`, `1.5`, `""`, `"x"`,
		`"2017-10-01T00:00:00"`, `"2017-10-01T00:00:00.123"`, `"/Date(1506816000123+1000)/"`, `"\/Date(-1500-0000)\/"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var ts Timestamp
		if json.Unmarshal(in, &ts) != nil {
			return
		}
		out, _ := json.Marshal(ts)
		var back Timestamp
		if err := json.Unmarshal(out, &back); err != nil || back != ts {
			t.Fatalf("%s -> %s -> %d (%v)", in, out, back, err)
		}
		_ = ts.Time()
	})
}

// slowDateTime is the general path: JSON string, then ParseDateTime.
func slowDateTime(data []byte) (DateTime, error) {
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return DateTime{}, err
	}
	return ParseDateTime(s)
}

// sameDateTime reports whether two values are the same instant in the same
// zone, by name and offset.
func sameDateTime(a, b DateTime) bool {
	an, ao := a.Zone()
	bn, bo := b.Zone()
	return a.Equal(b.Time) && an == bn && ao == bo && (a.Location() == time.UTC) == (b.Location() == time.UTC)
}

func TestDateTimeFastPathAgreesWithGeneralPath(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		fast bool // whether the allocation-free path takes it
	}{
		{`"/Date(1577836800000+1000)/"`, true},
		{`"/Date(1577836800000)/"`, true},
		{`"\/Date(1577836800000-0530)\/"`, true},
		{`"\/Date(1577836800000+0000)/"`, true},
		{`"/Date(-1-0000)/"`, true},
		{`"/Date(1-0000)/"`, true},
		{`"2017-10-01T00:00:00"`, false},
		{`"/Date(-62135596800000)/"`, true},
		{`"/Date(0+2359)/"`, true},
		{`"/Date(0-2359)/"`, true},
		{`"/Date(999999999999999999)/"`, true},
		{`"/Date(1000000000000000000)/"`, false}, // 19 digits: the general path checks overflow
		{`"/Date(+5)/"`, false},
		{`"/Date(1+2400)/"`, false},
		{`"/Date(1+0060)/"`, false},
		{`"/Date(1+100)/"`, false},
		{`"/Date(1+10a0)/"`, false},
		{`"/Date(1*1000)/"`, false},
		{`"/Date()/"`, false},
		{`"/Date(-)/"`, false},
		{`"/Date(1)"`, false},
		{`"/Date(1"`, false},
		{`" /Date(1)/ "`, false},
		{`"\\/Date(1)\\/"`, false},
		{`"/date(1)/"`, false},
		{`"2020-01-01T00:00:00Z"`, false},
		{`""`, false},
		{`"`, false},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			fast, ok := fastMSDate([]byte(c.in))
			assert.Equal(t, c.fast, ok)
			slow, slowErr := slowDateTime([]byte(c.in))
			if ok {
				require.NoError(t, slowErr)
				assert.True(t, sameDateTime(fast, slow), "fast %v, general %v", fast, slow)
			}
			var d DateTime
			err := d.UnmarshalJSON([]byte(c.in))
			if slowErr != nil {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.True(t, sameDateTime(d, slow), "UnmarshalJSON %v, general %v", d, slow)
		})
	}
}

func TestDateTimeDecodingDoesNotAllocate(t *testing.T) {
	for _, in := range []string{`"/Date(1577836800000+1000)/"`, `"/Date(1577836800000)/"`, `"\/Date(1577836800000-0330)\/"`,
		`"/Date(1577836800000-0000)/"`, `"/Date(1577836800000+0000)/"`} {
		data := []byte(in)
		var d DateTime
		require.NoError(t, d.UnmarshalJSON(data)) // fills the zone cache
		allocs := testing.AllocsPerRun(100, func() { _ = d.UnmarshalJSON(data) })
		assert.Zero(t, allocs, in)
	}
	var ts Timestamp
	data := []byte("1577836800")
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = ts.UnmarshalJSON(data) }))
	assert.EqualValues(t, 1577836800, ts)
	// null, the unset time, several to a message not yet delivered.
	for _, in := range []string{"null", " null "} {
		null := []byte(in)
		assert.Zero(t, testing.AllocsPerRun(100, func() { ts = 5; _ = ts.UnmarshalJSON(null) }), in)
		assert.Zero(t, ts, "null is unset")
	}
}

func TestFixedZoneIsSharedAndNamed(t *testing.T) {
	t.Parallel()
	a, b := fixedZone(10*3600), fixedZone(10*3600)
	assert.Same(t, a, b)
	assert.Equal(t, "+1000", a.String())
	assert.Equal(t, "-0530", fixedZone(-(5*3600 + 30*60)).String())
	assert.Same(t, utcOffsetZero, fixedZone(0))
	assert.Same(t, utcOffsetZero, offsetZone(false, 0))
	assert.Same(t, utcOffsetMinusZero, offsetZone(true, 0))
	assert.Same(t, fixedZone(-3600), offsetZone(true, 3600))
	// Offsets the cache does not hold still work.
	_, off := time.Unix(0, 0).In(fixedZone(25 * 3600)).Zone()
	assert.Equal(t, 25*3600, off)
	_, off = time.Unix(0, 0).In(fixedZone(3601)).Zone()
	assert.Equal(t, 3601, off)
}

func TestTimestampFastPathAgreesWithParseInt(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"0", "-0", "1", "-1", "1506038400", "999999999999999999", "-999999999999999999",
		"9223372036854775807", "9223372036854775808", "-9223372036854775808", "", "-", "1a", "+1", "1.5", " 1"} {
		n, ok := fastInt([]byte(in))
		want, err := strconv.ParseInt(in, 10, 64)
		if ok {
			require.NoError(t, err, in)
			assert.Equal(t, want, n, in)
		}
		var ts Timestamp
		if err == nil {
			require.NoError(t, ts.UnmarshalJSON([]byte(in)), in)
			assert.EqualValues(t, want, ts, in)
		}
	}
}

// FuzzDateTimeFastPath: whatever the allocation-free path accepts, the
// general path accepts too, with the same instant and zone.
func FuzzDateTimeFastPath(f *testing.F) {
	for _, s := range []string{`"/Date(1577836800000+1000)/"`, `"\/Date(-1)\/"`, `"/Date(1+2400)/"`, `"/Date(+1)/"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		fast, ok := fastMSDate(in)
		if !ok {
			return
		}
		slow, err := slowDateTime(in)
		if err != nil {
			t.Fatalf("fast path took %q, the general path refused it: %v", in, err)
		}
		if !sameDateTime(fast, slow) {
			t.Fatalf("%q: fast %v, general %v", in, fast, slow)
		}
	})
}
