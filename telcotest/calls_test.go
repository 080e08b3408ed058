package telcotest_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/telcotest"
)

func sidsOf(calls []telco.Call) []string {
	out := make([]string, len(calls))
	for i, c := range calls {
		out[i] = c.CallSid
	}
	return out
}

// The Token cursor: an answer's Token finds exactly the calls written
// after it, whatever their start times, earliest first.
func TestCalls_TokenFindsCallsWrittenSince(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client()
	ctx := testCtx(t)
	base := time.Unix(1_700_000_000, 0)
	late := srv.AddCall(srv.PropertySid, telco.Call{DateStart: telco.TimestampOf(base.Add(time.Minute)), From: "+61412345678"})
	early := srv.AddCall(srv.PropertySid, telco.Call{DateStart: telco.TimestampOf(base), From: "+61412345679"})

	first, err := c.Calls.ListByProperty(ctx, srv.PropertySid, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{early.CallSid, late.CallSid}, sidsOf(first.Calls), "sorted from earliest to latest")
	require.NotEmpty(t, first.Token)

	again, err := c.Calls.ListByProperty(ctx, srv.PropertySid, &telco.ListCallsParams{Token: first.Token})
	require.NoError(t, err)
	assert.Empty(t, again.Calls, "nothing written since")
	assert.Equal(t, first.Token, again.Token)

	newer := srv.AddCall(srv.PropertySid, telco.Call{DateStart: telco.TimestampOf(base.Add(-time.Hour))})
	since, err := c.Calls.ListByProperty(ctx, srv.PropertySid, &telco.ListCallsParams{Token: again.Token})
	require.NoError(t, err)
	assert.Equal(t, []string{newer.CallSid}, sidsOf(since.Calls), "written later though it started earlier")
	assert.NotEqual(t, again.Token, since.Token)

	got, err := c.Calls.Get(ctx, late.CallSid)
	require.NoError(t, err)
	assert.Equal(t, late.From, got.From)
	assert.Equal(t, srv.AccountSid, got.AccountSid)
	assert.Equal(t, telco.CallAnswered, got.Disposition)
	_, err = c.Calls.Get(ctx, "CANOPE")
	assert.Equal(t, telco.CodeCallNotFound, telco.ErrorCode(err))

	_, err = c.Calls.ListByProperty(ctx, srv.PropertySid, &telco.ListCallsParams{Token: "not-ours"})
	assert.Equal(t, telco.CodeParameterInvalid, telco.ErrorCode(err))
}

// A feed follows new calls across requests, and a feed resumed from a
// saved Token goes on where the first stopped.
func TestCalls_FeedFollowsNewCalls(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client()
	ctx := testCtx(t)
	a := srv.AddCall(srv.PropertySid, telco.Call{})
	feed := telco.NewCallFeed(c.Calls.ListByProperty, srv.PropertySid, nil)
	calls, err := feed.Next(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{a.CallSid}, sidsOf(calls))

	b := srv.AddCall(srv.PropertySid, telco.Call{})
	calls, err = feed.Next(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{b.CallSid}, sidsOf(calls))

	saved := feed.Token()
	d := srv.AddCall(srv.PropertySid, telco.Call{})
	resumed := telco.NewCallFeed(c.Calls.ListByAccount, srv.AccountSid, &telco.ListCallsParams{Token: saved})
	calls, err = resumed.Next(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{d.CallSid}, sidsOf(calls))
}

// More calls than one answer holds: ListAll follows the Token to the end.
func TestCalls_ListAllCrossesAnswers(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client()
	ctx := testCtx(t)
	n := telcotest.CallsPerAnswer + 7
	for i := range n {
		srv.AddCall(srv.PropertySid, telco.Call{From: fmt.Sprintf("+614000%05d", i)})
	}
	first, err := c.Calls.ListByProperty(ctx, srv.PropertySid, nil)
	require.NoError(t, err)
	assert.Len(t, first.Calls, telcotest.CallsPerAnswer)

	seen := map[string]bool{}
	for call, err := range c.Calls.ListByPropertyAll(ctx, srv.PropertySid, nil) {
		require.NoError(t, err)
		seen[call.CallSid] = true
	}
	assert.Len(t, seen, n, "every call once")
}

func TestCalls_Filters(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client()
	ctx := testCtx(t)
	base := time.Unix(1_700_000_000, 0)
	at := func(d time.Duration) telco.Timestamp { return telco.TimestampOf(base.Add(d)) }
	answered := srv.AddCall(srv.PropertySid, telco.Call{DateStart: at(0), To: "61299990001", Endpoint: "+61400000000",
		AttributionSource: "google", AttributionMedium: "cpc", AttributionCampaign: "spring", AttributionContent: "a",
		PromptsKeys: "1,2"})
	busy := srv.AddCall(srv.PropertySid, telco.Call{DateStart: at(time.Hour), Disposition: telco.CallBusy, To: "61299990002",
		AttributionSource: "bing", PromptsKeys: "3"})
	other, err := c.Properties.Create(ctx, &telco.CreatePropertyParams{Name: "B", MainDomain: "b.example", TimeZone: "UTC"})
	require.NoError(t, err)
	elsewhere := srv.AddCall(other.PropertySid, telco.Call{DateStart: at(0)})

	for _, tc := range []struct {
		name string
		p    telco.ListCallsParams
		want []string
	}{
		{"window", telco.ListCallsParams{DateFrom: base, DateTo: base.Add(time.Hour)}, []string{answered.CallSid}},
		{"disposition", telco.ListCallsParams{Dispositions: []telco.CallDisposition{telco.CallBusy, telco.CallFailed}}, []string{busy.CallSid}},
		{"to, with or without +", telco.ListCallsParams{To: []string{"+61299990001"}}, []string{answered.CallSid}},
		{"endpoint", telco.ListCallsParams{Endpoints: []string{"61400000000"}}, []string{answered.CallSid}},
		{"sources", telco.ListCallsParams{AttributionSources: []string{"google", "bing"}}, []string{answered.CallSid, busy.CallSid}},
		{"medium", telco.ListCallsParams{AttributionMediums: []string{"cpc"}}, []string{answered.CallSid}},
		{"campaign", telco.ListCallsParams{AttributionCampaigns: []string{"autumn"}}, nil},
		{"content", telco.ListCallsParams{AttributionContents: []string{"a"}}, []string{answered.CallSid}},
		{"key path prefix", telco.ListCallsParams{PromptKeys: [][]string{{"1"}}}, []string{answered.CallSid}},
		{"key paths", telco.ListCallsParams{PromptKeys: [][]string{{"1", "2"}, {"3"}}}, []string{answered.CallSid, busy.CallSid}},
		{"deeper path", telco.ListCallsParams{PromptKeys: [][]string{{"1", "2", "9"}}}, nil},
		{"unique all", telco.ListCallsParams{Unique: telco.UniqueAll}, []string{answered.CallSid, busy.CallSid}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page, err := c.Calls.ListByProperty(ctx, srv.PropertySid, &tc.p)
			require.NoError(t, err)
			want := tc.want
			if want == nil {
				want = []string{}
			}
			assert.Equal(t, want, sidsOf(page.Calls))
		})
	}

	acct, err := c.Calls.ListByAccount(ctx, srv.AccountSid, nil)
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{answered.CallSid, busy.CallSid, elsewhere.CallSid}, sidsOf(acct.Calls))

	// The fake applies the client's rules with validation off.
	raw := srv.Client(telco.WithClientValidation(false))
	_, err = raw.Calls.ListByProperty(ctx, srv.PropertySid, &telco.ListCallsParams{Dispositions: []telco.CallDisposition{"Hungup"}})
	assert.Equal(t, telco.CodeParameterInvalid, telco.ErrorCode(err))

	stranger := srv.AddAccount("", "")
	sc := srv.ClientFor(stranger.AccountSid)
	_, err = sc.Calls.Get(ctx, answered.CallSid)
	assert.Equal(t, telco.CodeForbidden, telco.ErrorCode(err))
	_, err = sc.Calls.ListByProperty(ctx, srv.PropertySid, nil)
	assert.Equal(t, telco.CodeForbidden, telco.ErrorCode(err))
	mine, err := sc.Calls.ListByAccount(ctx, stranger.AccountSid, nil)
	require.NoError(t, err)
	assert.Empty(t, mine.Calls)
}
