package telco

import (
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
