package telco

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// Inputs the interface document allows, which the client must not refuse:
// it writes numbers of operation 3 without their +, gives two-letter
// country codes only as an example, and requires a port date only with
// the Date schedule.
func TestValidateAcceptsWhatTheDocumentAllows(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		why string
		p   interface{ Validate() error }
	}{
		{"EndpointNumber without its +", &NumberConfigParams{RoutingMethod: RoutingEndpoint, EndpointNumber: "61400000000"}},
		{"EndpointNumber with its +", &NumberConfigParams{RoutingMethod: RoutingEndpoint, EndpointNumber: "+61400000000"}},
		{"SendSmsTo without its +", &NumberConfigParams{SendSmsTo: "61400000000"}},
		{"SendSmsFrom without its +", &NumberConfigParams{SendSmsFrom: "61299999999"}},
		{"SendSmsFrom as a sender ID", &NumberConfigParams{SendSmsFrom: "Acme"}},
		{"address with a three-letter country", func() *CreateAddressParams {
			p := addressValidParams()
			p.CountryCode = "AUS"
			return &p
		}()},
		{"SIP trunk allowed in a three-letter country", func() *CreateSipTrunkParams {
			p := sipTrunkAuthParams()
			p.AllowedCountries = []string{"AU", "NZL"}
			return &p
		}()},
		{"porting ASAP with a date", func() *PortingRequestParams {
			p := portingValidParams()
			p.PreferredPortSchedule, p.PreferredPortDate = PortASAP, time.Date(2031, 3, 1, 0, 0, 0, 0, time.UTC)
			return &p
		}()},
	} {
		assert.NoError(t, tc.p.Validate(), tc.why)
	}
}

// The schedule window is the document's, to the second: at most 14 days
// ahead, less than 1 hour in the past.
func TestScheduleWindowIsExact(t *testing.T) {
	t.Parallel()
	now := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	send := func(at time.Time) *SendMessageParams {
		return &SendMessageParams{From: "Acme", To: "+61400000000", Text: "x", Schedule: at}
	}
	for _, tc := range []struct {
		at time.Time
		ok bool
	}{
		{now.Add(MaxScheduleAhead), true},
		{now.Add(MaxScheduleAhead + time.Second), false},
		{now.Add(-MaxScheduleAgo + time.Second), true},
		{now.Add(-MaxScheduleAgo), false},
		{now.Add(-MaxScheduleAgo - time.Second), false},
	} {
		f := send(tc.at).check(now)
		assert.Equal(t, tc.ok, len(f) == 0, "schedule %v from now", tc.at.Sub(now))
	}
}
