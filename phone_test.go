package telco

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type phoneString string

func TestNormalizeNumber(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"+61412345678", "+61412345678"},
		{"+61 412 345 678", "+61412345678"},
		{"61412345678", "+61412345678"},
		{"0061412345678", "+61412345678"},
		{"0412 345 678", "+61412345678"},
		{"(02) 9999-9999", "+61299999999"},
		{" 02.9999.9999 ", "+61299999999"},
		{"+1 (415) 555-0100", "+14155550100"},
	} {
		got, err := NormalizeNumber(tc.in)
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, got, tc.in)
	}
	got, err := NormalizeNumber(int64(61412345678))
	require.NoError(t, err)
	assert.Equal(t, "+61412345678", got, "the integer of a lookup result")
	got, err = NormalizeNumber(61299999999)
	require.NoError(t, err)
	assert.Equal(t, "+61299999999", got)
	got, err = NormalizeNumber(phoneString("0412345678"))
	require.NoError(t, err)
	assert.Equal(t, "+61412345678", got, "a named string type")

	for _, bad := range []string{"", "abc", "0412 345 67x", "+", "+0412345678", "12", "1234567890123456", "++61412345678", "+61+412345678"} {
		_, err := NormalizeNumber(bad)
		var ve *ValidationError
		require.True(t, errors.As(err, &ve), "%q: %v", bad, err)
		assert.Equal(t, CodeInvalidPhoneNumberFormat, ve.Fields[0].Code, bad)
		assert.Contains(t, err.Error(), `"`+bad+`"`, "the message quotes the number")
	}
	_, err = NormalizeNumber(int64(12))
	assert.Error(t, err)
}

// ValidLookupNumber is the rule NumberDetails applies: every number it
// accepts, the lookup sends; every one it refuses, the lookup refuses by
// index.
func TestValidLookupNumberIsTheLookupRule(t *testing.T) {
	t.Parallel()
	in := []string{"0412345678", "+61412345678", "abc", "12", "+0412345678", "0299999999", "04 1234 5678"}
	var good []string
	var badIdx []string
	for i, n := range in {
		if ValidLookupNumber(n) {
			good = append(good, n)
		} else {
			badIdx = append(badIdx, "Numbers["+string(rune('0'+i))+"]")
		}
	}
	assert.Equal(t, []string{"0412345678", "+61412345678", "0299999999"}, good)
	c, err := NewClient(testSid, testToken, WithBaseURL("https://telco.invalid"))
	require.NoError(t, err)
	_, err = c.Lookup.NumberDetails(bg, in...)
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	var named []string
	for _, f := range ve.Fields {
		named = append(named, f.FieldName)
	}
	assert.Equal(t, badIdx, named, "every bad number, by index")
}
