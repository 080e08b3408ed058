package telco

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const callsPropertyPath = "/v2/Properties/" + testProp + "/Calls"

func TestCallsGetDecodesInferredShape(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t)
	got := reply(mt, "GET", "/v2/Calls/CA7M2K9XW4TBN8RPLZC5VHJ3EYG6DFAQ", 200, fixture(t, "get_call.json"))
	call, err := c.Calls.Get(bg, "CA7M2K9XW4TBN8RPLZC5VHJ3EYG6DFAQ")
	require.NoError(t, err)
	assert.Equal(t, "GET", got.Method)
	assertCommonHeaders(t, got.Header)
	assert.Equal(t, &Call{
		CallSid: "CA7M2K9XW4TBN8RPLZC5VHJ3EYG6DFAQ", AccountSid: testSid, PropertySid: testProp, CallType: "Inbound",
		DateStart: 1700000100, Disposition: CallAnswered, Duration: 184, From: "+61412345678", To: "61299999999",
		Endpoint: "61400000000", CallerCity: "Parramatta", CallerRegion: "NSW", CallerCountryCode: "AU",
		AttributionSource: "google", AttributionMedium: "cpc", AttributionCampaign: "spring-sale",
		AttributionContent: "banner-a", PromptsKeys: "1,2",
		Extra: map[string]json.RawMessage{"Gclid": json.RawMessage(`"EAIaIQobChMI-example"`)},
	}, call, "the advertising click id, not guessed, is kept in Extra")
}

func TestCallsGetNotFound(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t)
	reply(mt, "GET", "/v2/Calls/CA404", 400,
		[]byte(`{"ResponseStatus":{"ErrorCode":"CALL_NOT_FOUND","Message":"The call was not found."}}`))
	_, err := c.Calls.Get(bg, "CA404")
	assert.Equal(t, CodeCallNotFound, ErrorCode(err))
}

func TestCallsListWire(t *testing.T) {
	t.Parallel()
	from, to := time.Unix(1_700_000_000, 0), time.Unix(1_700_086_400, 0)
	p := &ListCallsParams{
		DateFrom: from, DateTo: to, Token: "tok-1",
		Dispositions:         []CallDisposition{CallAnswered, CallNoAnswer},
		To:                   []string{"61299999999", "61299999998"},
		Endpoints:            []string{"61400000000"},
		AttributionSources:   []string{"google", "bing"},
		AttributionMediums:   []string{"cpc"},
		AttributionCampaigns: []string{"spring-sale"},
		AttributionContents:  []string{"banner-a"},
		PromptKeys:           [][]string{{"1", "2"}, {"3", "5"}},
		Unique:               UniqueAll,
	}
	for _, tc := range []struct {
		name, path string
		list       func(c *Client) (*CallPage, error)
	}{
		{"by property", callsPropertyPath, func(c *Client) (*CallPage, error) { return c.Calls.ListByProperty(bg, testProp, p) }},
		{"by account", "/v2/Accounts/" + testSid + "/Calls", func(c *Client) (*CallPage, error) { return c.Calls.ListByAccount(bg, testSid, p) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, mt := newMockClient(t)
			got := reply(mt, "GET", tc.path, 200, fixture(t, "list_calls.json"))
			page, err := tc.list(c)
			require.NoError(t, err)
			assert.Equal(t, "GET", got.Method)
			assert.Equal(t, tc.path, got.Path)
			assertCommonHeaders(t, got.Header)
			assert.Equal(t, url.Values{
				"Date_From": {"1700000000"}, "Date_To": {"1700086400"}, "Token": {"tok-1"},
				"Disposition": {"Answered,NoAnswer"}, "To": {"61299999999,61299999998"}, "Endpoint": {"61400000000"},
				"Attribution_Source": {"google,bing"}, "Attribution_Medium": {"cpc"},
				"Attribution_Campaign": {"spring-sale"}, "Attribution_Content": {"banner-a"},
				"Prompts_keys": {"1,2;3,5"}, "Unique": {"All"},
			}, got.Query)

			assert.Equal(t, "tok-0000000002", page.Token)
			assert.Equal(t, map[string]json.RawMessage{"Generated": json.RawMessage(`1700000500`)}, page.Extra)
			require.Len(t, page.Calls, 2)
			assert.Equal(t, CallAnswered, page.Calls[0].Disposition)
			assert.Equal(t, 184, page.Calls[0].Duration)
			// "0": an integer sent as a string is read as one, as in every
			// resource (the policy at the top of decode.go).
			assert.Zero(t, page.Calls[1].Duration)
			assert.NotContains(t, page.Calls[1].Extra, "Duration", "the numeric string landed in its field")
		})
	}
}

// The answer's shape is inferred: a bare array is read too (without a
// Token), and so is a Token under another documented-looking name.
func TestCallsListTolerantShapes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, body, token string
		calls             int
	}{
		{"bare array", `[{"CallSid":"CA1"},{"CallSid":"CA2"}]`, "", 2},
		{"NextToken", `{"Calls":[{"CallSid":"CA1"}],"NextToken":"t9"}`, "t9", 1},
		{"lower-case keys", `{"calls":[{"callSid":"CA1"}],"token":"t9"}`, "t9", 1},
		{"no calls", `{"Token":"t9"}`, "t9", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, mt := newMockClient(t)
			reply(mt, "GET", callsPropertyPath, 200, []byte(tc.body))
			page, err := c.Calls.ListByProperty(bg, testProp, nil)
			require.NoError(t, err)
			assert.Equal(t, tc.token, page.Token)
			require.Len(t, page.Calls, tc.calls)
			if tc.calls > 0 {
				assert.Equal(t, "CA1", page.Calls[0].CallSid)
			}
		})
	}
	c, mt := newMockClient(t)
	reply(mt, "GET", callsPropertyPath, 200, []byte(`{"ResponseStatus":{"ErrorCode":"FORBIDDEN","Message":"no"}}`))
	_, err := c.Calls.ListByProperty(bg, testProp, nil)
	assert.Equal(t, CodeForbidden, ErrorCode(err), "a refusal in a 200 is still a refusal")
}

// tokenServer answers call listings from a list of answers, by the Token
// asked with: "" is the first answer, "tN" the answer after the Nth.
type tokenServer struct {
	mu      sync.Mutex
	answers []string
	tokens  []string // the Token of each request
	queries []url.Values
}

func (s *tokenServer) register(mt *httpmock.MockTransport, path string) {
	mt.RegisterResponder("GET", testBase+path, func(r *http.Request) (*http.Response, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		tok := r.URL.Query().Get("Token")
		s.tokens = append(s.tokens, tok)
		s.queries = append(s.queries, r.URL.Query())
		i := 0
		if tok != "" {
			i, _ = strconv.Atoi(tok[1:])
		}
		if i >= len(s.answers) {
			return httpmock.NewStringResponse(200, `{"Calls":[],"Token":"`+tok+`"}`), nil
		}
		return httpmock.NewStringResponse(200, s.answers[i]), nil
	})
}

func TestCallsListAllFollowsTheToken(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t)
	srv := &tokenServer{answers: []string{
		`{"Calls":[{"CallSid":"CA1"},{"CallSid":"CA2"}],"Token":"t1"}`,
		`{"Calls":[{"CallSid":"CA3"}],"Token":"t2"}`,
	}}
	srv.register(mt, callsPropertyPath)
	p := &ListCallsParams{Dispositions: []CallDisposition{CallAnswered}}
	var sids []string
	for call, err := range c.Calls.ListByPropertyAll(bg, testProp, p) {
		require.NoError(t, err)
		sids = append(sids, call.CallSid)
	}
	assert.Equal(t, []string{"CA1", "CA2", "CA3"}, sids)
	assert.Equal(t, []string{"", "t1", "t2"}, srv.tokens, "each answer's Token, until an answer brings no call")
	for _, q := range srv.queries {
		assert.Equal(t, "Answered", q.Get("Disposition"), "the filters go with every request")
	}
	assert.Empty(t, p.Token, "the caller's params are not changed")
}

func TestCallsListAllEndsWithoutToken(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t)
	got := reply(mt, "GET", "/v2/Accounts/"+testSid+"/Calls", 200, []byte(`[{"CallSid":"CA1"}]`))
	n := 0
	for _, err := range c.Calls.ListByAccountAll(bg, testSid, nil) {
		require.NoError(t, err)
		n++
	}
	assert.Equal(t, 1, n)
	assert.Equal(t, 1, got.n, "an answer without a Token is the whole listing")
}

// A service that ignores the Token would answer the same calls forever:
// the iterator stops with an error instead.
func TestCallsListAllRefusesARepeatedToken(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t)
	got := reply(mt, "GET", callsPropertyPath, 200, []byte(`{"Calls":[{"CallSid":"CA1"}],"Token":"same"}`))
	var errs []error
	n := 0
	for _, err := range c.Calls.ListByPropertyAll(bg, testProp, nil) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		n++
	}
	assert.Equal(t, 1, n)
	require.Len(t, errs, 1)
	assert.ErrorContains(t, errs[0], "ignored the Token")
	assert.Equal(t, 2, got.n)
}

func TestCallFeedNextKeepsTheToken(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t)
	srv := &tokenServer{answers: []string{
		`{"Calls":[{"CallSid":"CA1"}],"Token":"t1"}`,
		`{"Calls":[],"Token":"t1"}`,
	}}
	srv.register(mt, callsPropertyPath)
	feed := NewCallFeed(c.Calls.ListByProperty, testProp, &ListCallsParams{DateFrom: time.Unix(1_700_000_000, 0)})
	assert.Empty(t, feed.Token())
	calls, err := feed.Next(bg)
	require.NoError(t, err)
	require.Len(t, calls, 1)
	assert.Equal(t, "t1", feed.Token())
	calls, err = feed.Next(bg)
	require.NoError(t, err)
	assert.Empty(t, calls)
	assert.Equal(t, "t1", feed.Token())

	// Resuming elsewhere from a saved Token asks from there.
	resumed := NewCallFeed(c.Calls.ListByProperty, testProp, &ListCallsParams{Token: feed.Token()})
	_, err = resumed.Next(bg)
	require.NoError(t, err)
	assert.Equal(t, []string{"", "t1", "t1"}, srv.tokens)
	assert.Equal(t, "1700000000", srv.queries[1].Get("Date_From"), "the filters stay with the Token")

	// A failed request leaves the Token where it was.
	mt.RegisterResponder("GET", testBase+callsPropertyPath, httpmock.NewStringResponder(400,
		`{"ResponseStatus":{"ErrorCode":"PARAMETER_INVALID","Message":"bad token"}}`))
	_, err = feed.Next(bg)
	assert.Equal(t, CodeParameterInvalid, ErrorCode(err))
	assert.Equal(t, "t1", feed.Token())
}

// Follow yields calls as they arrive, waits between empty answers, and
// ends without an error when its context ends.
func TestCallFeedFollow(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t)
	srv := &tokenServer{answers: []string{
		`{"Calls":[{"CallSid":"CA1"}],"Token":"t1"}`,
		`{"Calls":[],"Token":"t1"}`,
	}}
	srv.register(mt, callsPropertyPath)
	ctx, cancel := context.WithCancel(bg)
	defer cancel()
	feed := NewCallFeed(c.Calls.ListByProperty, testProp, nil)
	var sids []string
	go func() {
		// A call written later: the fake answers it after t1.
		time.Sleep(30 * time.Millisecond)
		srv.mu.Lock()
		srv.answers[1] = `{"Calls":[{"CallSid":"CA2"}],"Token":"t2"}`
		srv.mu.Unlock()
	}()
	for call, err := range feed.Follow(ctx, 5*time.Millisecond) {
		require.NoError(t, err)
		sids = append(sids, call.CallSid)
		if len(sids) == 2 {
			cancel()
		}
	}
	assert.Equal(t, []string{"CA1", "CA2"}, sids)
	assert.Equal(t, "t2", feed.Token())

	// Ended by its context while waiting: no error.
	srv.mu.Lock()
	before := len(srv.tokens)
	srv.mu.Unlock()
	ctx2, cancel2 := context.WithTimeout(bg, 200*time.Millisecond)
	defer cancel2()
	for _, err := range feed.Follow(ctx2, 2*time.Millisecond) {
		require.NoError(t, err)
	}
	srv.mu.Lock()
	asked := len(srv.tokens) - before
	srv.mu.Unlock()
	assert.GreaterOrEqual(t, asked, 2, "an empty answer is asked again after the wait")
}

func TestCallFeedFollowNeedsAToken(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t)
	reply(mt, "GET", callsPropertyPath, 200, []byte(`[{"CallSid":"CA1"}]`))
	var errs []error
	for _, err := range NewCallFeed(c.Calls.ListByProperty, testProp, nil).Follow(bg, time.Millisecond) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	require.Len(t, errs, 1)
	assert.ErrorIs(t, errs[0], errNoToken)
}

func TestCallsListValidation(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_700_000_000, 0)
	for _, tc := range []struct {
		name, why string
		p         ListCallsParams
		field     string
	}{
		{"window backwards", "Date_To is exclusive and must follow Date_From", ListCallsParams{DateFrom: now, DateTo: now}, "Date_To"},
		{"unknown disposition", "five dispositions are documented", ListCallsParams{Dispositions: []CallDisposition{"Voicemail"}}, "Disposition"},
		{"comma in To", "a comma would split the value", ListCallsParams{To: []string{"612,99"}}, "To"},
		{"empty endpoint", "an empty value would send an empty filter", ListCallsParams{Endpoints: []string{""}}, "Endpoint"},
		{"comma in a source", "a comma would split the value", ListCallsParams{AttributionSources: []string{"a,b"}}, "Attribution_Source"},
		{"empty medium", "an empty value", ListCallsParams{AttributionMediums: []string{" "}}, "Attribution_Medium"},
		{"comma in a campaign", "a comma", ListCallsParams{AttributionCampaigns: []string{"x,"}}, "Attribution_Campaign"},
		{"comma in content", "a comma", ListCallsParams{AttributionContents: []string{",x"}}, "Attribution_Content"},
		{"empty key path", "a path holds keys", ListCallsParams{PromptKeys: [][]string{{}}}, "Prompts_keys"},
		{"letter key", "IVR keys are 0-9, * and #", ListCallsParams{PromptKeys: [][]string{{"1", "a"}}}, "Prompts_keys"},
		{"separator in a key", "a semicolon would split the path", ListCallsParams{PromptKeys: [][]string{{"1;2"}}}, "Prompts_keys"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, mt := newMockClient(t)
			_, err := c.Calls.ListByProperty(bg, testProp, &tc.p)
			requireValidation(t, mt, err, "Calls.ListByProperty", tc.field, CodeParameterInvalid)
		})
	}
	// Keys * and # and an unknown Unique value pass: the latter's values
	// were not readable, so none is refused.
	c, mt := newMockClient(t)
	reply(mt, "GET", callsPropertyPath, 200, []byte(`[]`))
	_, err := c.Calls.ListByProperty(bg, testProp, &ListCallsParams{PromptKeys: [][]string{{"*", "#1"}}, Unique: "Callers"})
	require.NoError(t, err)
}
