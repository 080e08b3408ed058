package openapi_test

// Rules the contract states as schema keywords (patterns, defaults,
// conditions), each checked against what the spec and the SDK say, so
// that a rule written too loosely or too tightly fails here and not in a
// user's generated client.

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/telcosdk/telco"
)

// TestNumberBlockDatetimePattern compares the pattern of number-block
// datetimes with the SDK's decoder: for every offset, the contract and
// telco.ParseDateTime agree. The one difference is on purpose: the
// service always writes the offset (/Date(<epoch_ms><utc_offset>)/), so
// the contract requires it, while the SDK also reads a value without one.
func TestNumberBlockDatetimePattern(t *testing.T) {
	block := loadContract(t).Components.Schemas["NumberBlock"].Value
	for _, field := range []string{"Created", "Modified", "QuarantineStartDate", "QuarantineEndDate"} {
		t.Run(field, func(t *testing.T) {
			ref := block.Properties[field]
			require.NotNil(t, ref, "NumberBlock has no %s", field)
			pattern := datePattern(ref.Value)
			require.NotEmpty(t, pattern, "NumberBlock.%s has no pattern", field)
			re := regexp.MustCompile(pattern)

			// Every sign and four digits: the SDK takes hours 00 to 23 and
			// minutes 00 to 59, and so must the pattern.
			var differ []string
			for _, ms := range []string{"1577836800000", "0", "-62135596800000"} {
				for _, sign := range []string{"+", "-"} {
					for n := 0; n <= 9999; n++ {
						s := fmt.Sprintf("/Date(%s%s%04d)/", ms, sign, n)
						_, err := telco.ParseDateTime(s)
						if sdk, contract := err == nil, re.MatchString(s); sdk != contract {
							differ = append(differ, fmt.Sprintf("%s: SDK reads it %v, contract matches it %v", s, sdk, contract))
						}
					}
				}
			}
			if len(differ) > 0 {
				t.Errorf("%d values where the pattern %q and the SDK disagree, e.g.\n%s", len(differ), pattern, differ[0])
			}

			for _, s := range []string{
				"/Date(1577836800000+100)/", "/Date(1577836800000+10000)/", "/Date(1577836800000+1O00)/",
				"/Date(+1000)/", "/Date(1.5+1000)/", "/Date(ms+1000)/", "/Date()/", "1577836800000+1000",
				"/Date(1577836800000+1000)", "Date(1577836800000+1000)/", "2020-01-01T10:00:00+10:00",
			} {
				assert.False(t, re.MatchString(s), "%s is not the service's form, yet the pattern matches it", s)
			}
			// The service's form always has its offset; the SDK is more
			// tolerant than the contract here.
			bare := "/Date(1577836800000)/"
			_, err := telco.ParseDateTime(bare)
			assert.NoError(t, err, "the SDK reads a datetime without an offset")
			assert.False(t, re.MatchString(bare), "the contract must require the offset the service writes")
		})
	}
}

// datePattern is the pattern of a datetime schema, or of its string
// branch when it is nullable (anyOf the datetime and null).
func datePattern(s *openapi3.Schema) string {
	if s.Pattern != "" {
		return s.Pattern
	}
	for _, b := range s.AnyOf {
		if b.Value.Pattern != "" {
			return b.Value.Pattern
		}
	}
	return ""
}

// TestNumberBlockNullability: the spec makes Modified and the quarantine
// dates nullable, and Created a plain datetime.
func TestNumberBlockNullability(t *testing.T) {
	block := loadContract(t).Components.Schemas["NumberBlock"].Value
	nullable := map[string]bool{"Created": false, "Modified": true, "QuarantineStartDate": true, "QuarantineEndDate": true}
	for field, want := range nullable {
		ref := block.Properties[field]
		require.NotNil(t, ref, "NumberBlock has no %s", field)
		err := ref.Value.VisitJSON(nil, openapi3.EnableJSONSchema2020())
		assert.Equal(t, want, err == nil, "NumberBlock.%s: null accepted %v, want %v (%v)", field, err == nil, want, err)
		assert.NoError(t, ref.Value.VisitJSON("/Date(1577836800000+1000)/", openapi3.EnableJSONSchema2020()), "NumberBlock.%s", field)
	}
}
