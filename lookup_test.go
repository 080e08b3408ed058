package telco

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const lookupPath = "/v2/Numbers/Details"

// lookupEcho registers a responder that answers each lookup with one
// detail per requested number, its e164 the number's digits, so order can
// be checked. It records the Numbers value of every request. When failAt is
// positive, that request (1-based) is answered with a 400.
func lookupEcho(mt *httpmock.MockTransport, failAt int) *[]string {
	var mu sync.Mutex
	var seenNumbers []string
	mt.RegisterResponder("GET", testBase+lookupPath, func(r *http.Request) (*http.Response, error) {
		mu.Lock()
		defer mu.Unlock()
		q := r.URL.Query().Get("Numbers")
		seenNumbers = append(seenNumbers, q)
		if failAt > 0 && len(seenNumbers) == failAt {
			return httpmock.NewStringResponse(400, `{"ResponseStatus":{"ErrorCode":"INVALID_PHONENUMBER_FORMAT","Message":"bad number"}}`), nil
		}
		var items []string
		for _, n := range strings.Split(q, ",") {
			d, err := strconv.ParseInt(strings.TrimPrefix(n, "+"), 10, 64)
			if err != nil {
				return httpmock.NewStringResponse(500, "bad test input"), nil
			}
			items = append(items, fmt.Sprintf(`{"e164":%d,"assignedCarrier":{"CAC":-1,"name":""},"currentCarrier":{"CAC":-1,"name":""},"numberingArea":"","portedActionIndicator":"","thirdParty":false,"alreadyPorting":-1,"reason":"echo"}`, d))
		}
		return httpmock.NewStringResponse(200, `{"numbers":[`+strings.Join(items, ",")+`]}`), nil
	})
	return &seenNumbers
}

// lookupNumbers returns n distinct E.164 numbers +61400000000, +61400000001, ...
func lookupNumbers(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("+61400%06d", i)
	}
	return out
}

func TestLookupNumberDetailsWire(t *testing.T) {
	c, mt := newMockClient(t)
	got := reply(mt, "GET", lookupPath, 200, fixture(t, "number_details.json"))
	details, err := c.Lookup.NumberDetails(bg, "0299999999", "+61412345678")
	require.NoError(t, err)

	assert.Equal(t, 1, mt.GetTotalCallCount())
	assert.Equal(t, "GET", got.Method)
	assert.Equal(t, lookupPath, got.Path)
	assert.Equal(t, "0299999999,+61412345678", got.Query.Get("Numbers"), "the + survives the query encoding")
	assert.Equal(t, url.Values{"Numbers": {"0299999999,+61412345678"}}, got.Query, "one comma-joined value")
	assert.Empty(t, got.Body)
	assertCommonHeaders(t, got.Header)

	assert.Equal(t, []NumberDetail{
		{
			E164:                  61299999999,
			AssignedCarrier:       Carrier{CAC: 1, Name: "Telstra"},
			CurrentCarrier:        Carrier{CAC: 1, Name: "Telstra"},
			NumberingArea:         "Sydney",
			PortedActionIndicator: "",
			ThirdParty:            false,
			AlreadyPorting:        -1,
			Reason:                "Number found",
		},
		{
			E164:                  61412345678,
			AssignedCarrier:       Carrier{CAC: 2, Name: "Optus Mobile"},
			CurrentCarrier:        Carrier{CAC: 38, Name: "Vodafone"},
			NumberingArea:         "Mobile",
			PortedActionIndicator: "P",
			ThirdParty:            true,
			AlreadyPorting:        1,
			Reason:                "Number has been ported",
		},
	}, details)
}

func TestLookupNumberDetailE164Forms(t *testing.T) {
	cases := []struct {
		in   string
		want int64
	}{
		{`61412345678`, 61412345678},
		{`"61412345678"`, 61412345678},
		{`"+61412345678"`, 61412345678},
		{` 61299999999 `, 61299999999},
		{`null`, 0},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			var d NumberDetail
			require.NoError(t, json.Unmarshal([]byte(`{"e164":`+tc.in+`,"numberingArea":"Mobile","alreadyPorting":-1,"currentCarrier":{"CAC":38,"name":"Vodafone"}}`), &d))
			assert.Equal(t, tc.want, d.E164)
			assert.Equal(t, "Mobile", d.NumberingArea, "the other fields are still read")
			assert.Equal(t, -1, d.AlreadyPorting)
			assert.Equal(t, Carrier{CAC: 38, Name: "Vodafone"}, d.CurrentCarrier)
		})
	}
	for _, bad := range []string{`"abc"`, `"0412-345"`, `true`, `{}`} {
		var d NumberDetail
		assert.Error(t, json.Unmarshal([]byte(`{"e164":`+bad+`}`), &d), bad)
	}
	var d NumberDetail
	require.NoError(t, json.Unmarshal([]byte(`{"reason":"Not found"}`), &d))
	assert.Equal(t, NumberDetail{Reason: "Not found"}, d, "a missing e164 is zero")
}

func TestLookupNumberDetailsE164AsStringOnTheWire(t *testing.T) {
	c, mt := newMockClient(t)
	reply(mt, "GET", lookupPath, 200, []byte(`{"numbers":[
		{"e164":"61299999999","assignedCarrier":{"CAC":-1,"name":""},"currentCarrier":{"CAC":-1,"name":""},"numberingArea":"","portedActionIndicator":"","thirdParty":false,"alreadyPorting":-1,"reason":"Number not found"},
		{"e164":"+61412345678","reason":"ok"}]}`))
	details, err := c.Lookup.NumberDetails(bg, "0299999999", "+61412345678")
	require.NoError(t, err)
	require.Len(t, details, 2)
	assert.Equal(t, int64(61299999999), details[0].E164)
	assert.Equal(t, Carrier{CAC: -1, Name: ""}, details[0].AssignedCarrier)
	assert.Equal(t, "Number not found", details[0].Reason)
	assert.Equal(t, int64(61412345678), details[1].E164)
}

func TestLookupNumberDetailsUndecodable(t *testing.T) {
	c, mt := newMockClient(t)
	reply(mt, "GET", lookupPath, 200, []byte(`{"numbers":[{"e164":"not a number"}]}`))
	details, err := c.Lookup.NumberDetails(bg, "0299999999")
	assert.Nil(t, details)
	var ae *APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, "Lookup.NumberDetails", ae.Op)
}

func TestLookupNumberDetailsValidation(t *testing.T) {
	cases := []struct {
		why string
		bad string
	}{
		{"punctuation in a local number", "04-1234"},
		{"E.164 with a leading 0", "+0412"},
		{"letters", "abc"},
		{"spaces in an E.164 number", "+61 412 345 678"},
		{"spaces in a local number", "02 9999 9999"},
		{"a local number of 2 digits", "12"},
		{"a local number of 16 digits", "1234567890123456"},
		{"E.164 of 16 digits", "+1234567890123456"},
		{"E.164 of 6 digits", "+683123"},
		{"a + alone", "+"},
		{"a comma inside one number", "0299999999,0412345678"},
		{"an empty number", ""},
	}
	for _, tc := range cases {
		t.Run(tc.why, func(t *testing.T) {
			c, mt := newMockClient(t)
			details, err := c.Lookup.NumberDetails(bg, "0299999999", tc.bad, "+61412345678")
			assert.Nil(t, details)
			requireValidation(t, mt, err, "Lookup.NumberDetails", "Numbers[1]", CodeInvalidPhoneNumberFormat)
			assert.Equal(t, CodeInvalidPhoneNumberFormat, ErrorCode(err))
			var ve *ValidationError
			require.ErrorAs(t, err, &ve)
			assert.Len(t, ve.Fields, 1, "only the bad number is named: %+v", ve.Fields)
		})
	}

	c, mt := newMockClient(t)
	_, err := c.Lookup.NumberDetails(bg, "abc", "0299999999", "04-1234")
	requireValidation(t, mt, err, "Lookup.NumberDetails", "Numbers[0]", CodeInvalidPhoneNumberFormat)
	requireValidation(t, mt, err, "Lookup.NumberDetails", "Numbers[2]", CodeInvalidPhoneNumberFormat)

	// A bad number deep in a long list is found before any batch is sent.
	nums := lookupNumbers(250)
	nums[237] = "+0412"
	_, err = c.Lookup.NumberDetails(bg, nums...)
	requireValidation(t, mt, err, "Lookup.NumberDetails", "Numbers[237]", CodeInvalidPhoneNumberFormat)
}

func TestLookupNumberDetailsBoundariesPass(t *testing.T) {
	for _, n := range []string{
		"123",             // 3 digits, the shortest local form
		"123456789012345", // 15 digits, the longest local form
		"0299999999", "0412345678", "61412345678",
		"+6831234",         // 7 digits after +
		"+123456789012345", // 15 digits after +
		"+61412345678",
	} {
		t.Run(n, func(t *testing.T) {
			c, mt := newMockClient(t)
			got := reply(mt, "GET", lookupPath, 200, []byte(`{"numbers":[{"e164":1}]}`))
			_, err := c.Lookup.NumberDetails(bg, n)
			require.NoError(t, err)
			assert.Equal(t, 1, mt.GetTotalCallCount())
			assert.Equal(t, n, got.Query.Get("Numbers"))
		})
	}
}

func TestLookupNumberDetailsValidationOffSendsBadNumber(t *testing.T) {
	c, mt := newMockClient(t, WithClientValidation(false))
	got := reply(mt, "GET", lookupPath, 200, []byte(`{"numbers":[{"e164":0,"reason":"Invalid number"}]}`))
	details, err := c.Lookup.NumberDetails(bg, "04-1234")
	require.NoError(t, err)
	assert.Equal(t, []NumberDetail{{Reason: "Invalid number"}}, details)
	assert.Equal(t, 1, mt.GetTotalCallCount())
	assert.Equal(t, "04-1234", got.Query.Get("Numbers"))
}

func TestLookupNumberDetailsBatches(t *testing.T) {
	c, mt := newMockClient(t, WithLookupConcurrency(1)) // one at a time: the requests' order is known
	seenNumbers := lookupEcho(mt, 0)
	nums := lookupNumbers(250)
	details, err := c.Lookup.NumberDetails(bg, nums...)
	require.NoError(t, err)

	require.Len(t, *seenNumbers, 3, "250 numbers go in 3 requests")
	assert.Equal(t, 3, mt.GetTotalCallCount())
	sizes := make([]int, len(*seenNumbers))
	for i, q := range *seenNumbers {
		sizes[i] = len(strings.Split(q, ","))
	}
	assert.Equal(t, []int{100, 100, 50}, sizes)
	assert.Equal(t, strings.Join(nums[:100], ","), (*seenNumbers)[0])
	assert.Equal(t, strings.Join(nums[100:200], ","), (*seenNumbers)[1])
	assert.Equal(t, strings.Join(nums[200:], ","), (*seenNumbers)[2])

	require.Len(t, details, 250)
	for i, d := range details {
		want, _ := strconv.ParseInt(strings.TrimPrefix(nums[i], "+"), 10, 64)
		require.Equal(t, want, d.E164, "result %d is in request order", i)
		assert.Equal(t, "echo", d.Reason)
	}
	assert.Equal(t, []string{"+61400000000"}, nums[:1], "the caller's slice is not changed")
}

func TestLookupNumberDetailsBatchEdges(t *testing.T) {
	for _, tc := range []struct {
		n     int
		sizes []int
	}{
		{1, []int{1}},
		{99, []int{99}},
		{100, []int{100}},
		{101, []int{100, 1}},
		{200, []int{100, 100}},
		{201, []int{100, 100, 1}},
	} {
		t.Run(strconv.Itoa(tc.n), func(t *testing.T) {
			c, mt := newMockClient(t)
			seenNumbers := lookupEcho(mt, 0)
			details, err := c.Lookup.NumberDetails(bg, lookupNumbers(tc.n)...)
			require.NoError(t, err)
			assert.Len(t, details, tc.n)
			sizes := make([]int, len(*seenNumbers))
			for i, q := range *seenNumbers {
				sizes[i] = len(strings.Split(q, ","))
			}
			assert.ElementsMatch(t, tc.sizes, sizes, "sent concurrently, in any order")
		})
	}
}

func TestLookupNumberDetailsBatchError(t *testing.T) {
	c, mt := newMockClient(t, WithLookupConcurrency(1))
	seenNumbers := lookupEcho(mt, 2)
	details, err := c.Lookup.NumberDetails(bg, lookupNumbers(250)...)
	assert.Nil(t, details, "no partial results")
	var ae *APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, 400, ae.StatusCode)
	assert.Equal(t, CodeInvalidPhoneNumberFormat, ErrorCode(err))
	assert.Len(t, *seenNumbers, 2, "the third batch is not sent after the second fails")
}

func TestLookupNumberDetailsBareArray(t *testing.T) {
	c, mt := newMockClient(t)
	reply(mt, "GET", lookupPath, 200, []byte(`[{"e164":61412345678,"reason":"ok"}]`))
	details, err := c.Lookup.NumberDetails(bg, "0412345678")
	require.NoError(t, err)
	require.Len(t, details, 1)
	assert.Equal(t, int64(61412345678), details[0].E164)
}

func TestLookupNumberDetailsRetriedOn503(t *testing.T) {
	c, mt := newMockClient(t, WithRetryPolicy(addressFastRetries))
	n := addressStatusSequence(mt, "GET", lookupPath, string(fixture(t, "number_details.json")), 503, 200)
	details, err := c.Lookup.NumberDetails(bg, "0299999999", "+61412345678")
	require.NoError(t, err)
	assert.Len(t, details, 2)
	assert.Equal(t, int32(2), n.Load(), "a lookup is idempotent and retried")
}

// lookupBlocking answers lookups as lookupEcho does, but holds the first
// wait requests until that many are in flight at once (so a test sees the
// bound reached, whatever the scheduling), and records the most seen in
// flight. A request whose Numbers hold fail is answered 400 at once; with
// hangAll, every other request waits for its context to end.
type lookupBlocking struct {
	mu             sync.Mutex
	inFlight, most int
	requests       int
	wait           int
	ready          chan struct{}
	opened         bool
	fail           string
	hangAll        bool
	cancelledByCtx int
}

func (lb *lookupBlocking) register(t *testing.T, mt *httpmock.MockTransport) {
	lb.ready = make(chan struct{})
	mt.RegisterResponder("GET", testBase+lookupPath, func(r *http.Request) (*http.Response, error) {
		q := r.URL.Query().Get("Numbers")
		lb.mu.Lock()
		lb.requests++
		lb.inFlight++
		lb.most = max(lb.most, lb.inFlight)
		if lb.inFlight == lb.wait && !lb.opened {
			lb.opened = true
			close(lb.ready)
		}
		lb.mu.Unlock()
		defer func() { lb.mu.Lock(); lb.inFlight--; lb.mu.Unlock() }()
		switch {
		case lb.fail != "" && strings.Contains(q, lb.fail):
			return httpmock.NewStringResponse(400, `{"ResponseStatus":{"ErrorCode":"INVALID_PHONENUMBER_FORMAT","Message":"bad number"}}`), nil
		case lb.hangAll:
			select {
			case <-r.Context().Done():
				lb.mu.Lock()
				lb.cancelledByCtx++
				lb.mu.Unlock()
				return nil, r.Context().Err()
			case <-time.After(10 * time.Second):
				t.Error("a hanging request was never cancelled")
				return nil, fmt.Errorf("not cancelled")
			}
		}
		select {
		case <-lb.ready:
		case <-time.After(10 * time.Second):
			t.Errorf("%d requests never were in flight at once", lb.wait)
		}
		var items []string
		for _, n := range strings.Split(q, ",") {
			items = append(items, fmt.Sprintf(`{"e164":%s,"reason":"echo"}`, strings.TrimPrefix(n, "+")))
		}
		return httpmock.NewStringResponse(200, `{"numbers":[`+strings.Join(items, ",")+`]}`), nil
	})
}

func TestLookupNumberDetailsConcurrent(t *testing.T) {
	for _, inFlight := range []int{2, 3, DefaultLookupConcurrency} {
		t.Run(strconv.Itoa(inFlight), func(t *testing.T) {
			c, mt := newMockClient(t, WithLookupConcurrency(inFlight))
			lb := &lookupBlocking{wait: inFlight}
			lb.register(t, mt)
			nums := lookupNumbers(1050)
			details, err := c.Lookup.NumberDetails(bg, nums...)
			require.NoError(t, err)
			assert.Equal(t, 11, lb.requests)
			assert.Equal(t, inFlight, lb.most, "requests in flight at once")
			require.Len(t, details, len(nums))
			for i, d := range details {
				want, _ := strconv.ParseInt(strings.TrimPrefix(nums[i], "+"), 10, 64)
				require.Equal(t, want, d.E164, "result %d is in the order of the numbers", i)
			}
		})
	}
}

func TestLookupNumberDetailsFirstErrorCancelsTheRest(t *testing.T) {
	c, mt := newMockClient(t, WithLookupConcurrency(3))
	nums := lookupNumbers(2000) // 20 requests
	// The second request fails at once, every other hangs until cancelled.
	lb := &lookupBlocking{wait: 1, hangAll: true, fail: nums[100]}
	lb.register(t, mt)
	details, err := c.Lookup.NumberDetails(bg, nums...)
	assert.Nil(t, details, "no partial results")
	var ae *APIError
	require.ErrorAs(t, err, &ae, "the failure, not the cancellation it caused")
	assert.Equal(t, 400, ae.StatusCode)
	assert.Equal(t, CodeInvalidPhoneNumberFormat, ErrorCode(err))
	assert.NotErrorIs(t, err, context.Canceled)
	// The mock may let the call return before its responders do.
	require.Eventually(t, func() bool { lb.mu.Lock(); defer lb.mu.Unlock(); return lb.inFlight == 0 },
		10*time.Second, time.Millisecond, "every responder returned")
	lb.mu.Lock()
	defer lb.mu.Unlock()
	assert.LessOrEqual(t, lb.requests, 3, "no request is sent after the failure")
	assert.Equal(t, lb.requests-1, lb.cancelledByCtx, "every request in flight was cancelled")
}

func TestLookupNumberDetailsCallerCancels(t *testing.T) {
	for _, n := range []int{5, 500} {
		c, mt := newMockClient(t)
		lookupEcho(mt, 0)
		ctx, cancel := context.WithCancel(bg)
		cancel()
		details, err := c.Lookup.NumberDetails(ctx, lookupNumbers(n)...)
		assert.Nil(t, details)
		assert.ErrorIs(t, err, context.Canceled, "%d numbers", n)
		assert.Contains(t, err.Error(), "Lookup.NumberDetails")
	}
}

func TestLookupNumberDetailsWrongCount(t *testing.T) {
	for _, tc := range []struct {
		name    string
		results int
		want    string
	}{
		{"short", 99, "99 results for 100 numbers in request 2 of 3 (numbers +61400000100 to +61400000199)"},
		{"long", 101, "101 results for 100 numbers in request 2 of 3"},
		{"empty", 0, "0 results for 100 numbers"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, mt := newMockClient(t)
			mt.RegisterResponder("GET", testBase+lookupPath, func(r *http.Request) (*http.Response, error) {
				nums := strings.Split(r.URL.Query().Get("Numbers"), ",")
				n := len(nums)
				if nums[0] == "+61400000100" {
					n = tc.results
				}
				items := make([]string, n)
				for i := range items {
					items[i] = `{"e164":1}`
				}
				return httpmock.NewStringResponse(200, `{"numbers":[`+strings.Join(items, ",")+`]}`), nil
			})
			details, err := c.Lookup.NumberDetails(bg, lookupNumbers(250)...)
			assert.Nil(t, details)
			var ae *APIError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, "Lookup.NumberDetails", ae.Op)
			assert.Equal(t, 200, ae.StatusCode)
			assert.Contains(t, ae.Message, tc.want)
			assert.NotErrorIs(t, err, ErrMaybeSent, "a lookup changes nothing")
		})
	}
	// One request: the same check.
	c, mt := newMockClient(t)
	reply(mt, "GET", lookupPath, 200, []byte(`{"numbers":[{"e164":61299999999}]}`))
	_, err := c.Lookup.NumberDetails(bg, "0299999999", "0412345678")
	var ae *APIError
	require.ErrorAs(t, err, &ae)
	assert.Contains(t, ae.Message, "1 result for 2 numbers in request 1 of 1")
}

func TestWithLookupConcurrencyNeedsOne(t *testing.T) {
	for _, n := range []int{0, -1} {
		_, err := NewClient(testSid, testToken, WithLookupConcurrency(n))
		require.Error(t, err)
		assert.Contains(t, err.Error(), "WithLookupConcurrency")
	}
}
