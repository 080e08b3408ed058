package telcotest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/telcotest"
)

// leasePattern is the form of a leased sender: an Australian mobile.
const leasePattern = `^\+614\d{8}$`

func send(t *testing.T, c *telco.Client, propertySid string, p telco.SendMessageParams) *telco.Message {
	t.Helper()
	m, err := c.Messages.Send(testCtx(t), propertySid, &p)
	require.NoError(t, err)
	return m
}

func get(t *testing.T, c *telco.Client, messageSid string) *telco.Message {
	t.Helper()
	m, err := c.Messages.Get(testCtx(t), messageSid)
	require.NoError(t, err)
	return m
}

func TestMessages_SeededProjectIsSmsEnabled(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client()
	prop, err := c.Properties.Get(testCtx(t), srv.PropertySid)
	require.NoError(t, err)
	assert.True(t, prop.SmsEnabled)
	m := send(t, c, srv.PropertySid, telco.SendMessageParams{From: "Acme", To: "+61400000001", Text: "hello"})
	assert.Equal(t, srv.PropertySid, m.PropertySid)
	assert.Equal(t, srv.AccountSid, m.AccountSid)
}

func TestMessages_SendRefusedWhileAccountSmsDisabled(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client()
	ctx := testCtx(t)
	p := &telco.SendMessageParams{From: "Acme", To: "+61400000001", Text: "blocked"}
	require.False(t, srv.SetAccountSmsEnabled("AC"+strings.Repeat("Z", 30), false), "unknown account")
	require.True(t, srv.SetAccountSmsEnabled(srv.AccountSid, false))

	_, err := c.Messages.Send(ctx, srv.PropertySid, p)
	requireAPIError(t, err, http.StatusBadRequest, telco.CodeForbidden)
	assert.Contains(t, err.Error(), "account is not enabled for SMS")
	_, err = c.Messages.SendBatch(ctx, srv.PropertySid, []telco.SendMessageParams{*p})
	requireAPIError(t, err, http.StatusBadRequest, telco.CodeForbidden)
	page, err := c.Messages.Find(ctx, srv.PropertySid, window())
	require.NoError(t, err)
	assert.Empty(t, page.Items, "nothing was stored")

	other := srv.AddAccount("", "")
	_, err = srv.ClientFor(other.AccountSid).Messages.Send(ctx, other.PropertySid, p)
	require.NoError(t, err, "another account is not affected")

	require.True(t, srv.SetAccountSmsEnabled(srv.AccountSid, true))
	_, err = c.Messages.Send(ctx, srv.PropertySid, p)
	require.NoError(t, err)
}

func TestMessages_SendForbiddenUntilSmsEnabled(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client()
	ctx := testCtx(t)
	prop, err := c.Properties.Create(ctx, &telco.CreatePropertyParams{Name: "No SMS", MainDomain: "nosms.example", TimeZone: "UTC"})
	require.NoError(t, err)
	require.False(t, prop.SmsEnabled)

	p := &telco.SendMessageParams{From: "Acme", To: "+61400000001", Text: "blocked"}
	_, err = c.Messages.Send(ctx, prop.PropertySid, p)
	requireAPIError(t, err, http.StatusBadRequest, telco.CodeForbidden)
	_, err = c.Messages.SendBatch(ctx, prop.PropertySid, []telco.SendMessageParams{*p})
	requireAPIError(t, err, http.StatusBadRequest, telco.CodeForbidden)

	page, err := c.Messages.Find(ctx, prop.PropertySid, window())
	require.NoError(t, err)
	assert.Empty(t, page.Items, "nothing was sent")

	require.NoError(t, c.Properties.Update(ctx, prop.PropertySid, &telco.UpdatePropertyParams{SmsEnabled: telco.Ptr(true)}))
	m, err := c.Messages.Send(ctx, prop.PropertySid, p)
	require.NoError(t, err)
	assert.Equal(t, prop.PropertySid, m.PropertySid)
}

func TestMessages_ScheduledAheadStaysProcessing(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client()
	at := time.Now().Add(time.Hour).Truncate(time.Second)
	m := send(t, c, srv.PropertySid, telco.SendMessageParams{From: "Acme", To: "+61400000001", Text: "later", Schedule: at})
	assert.Equal(t, at.Unix(), int64(m.Scheduled))
	for range 3 {
		g := get(t, c, m.MessageSid)
		assert.Equal(t, telco.MessageProcessing, g.Status)
		assert.Zero(t, g.Submitted)
	}
}

func TestMessages_LeasedSender(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client()
	first := send(t, c, srv.PropertySid, telco.SendMessageParams{To: "+61400000001", Text: "lease 1", ForwardToSms: "+61400000050"})
	assert.Regexp(t, leasePattern, first.From)
	second := send(t, c, srv.PropertySid, telco.SendMessageParams{To: "+61400000001", Text: "lease 2"})
	assert.Equal(t, first.From, second.From, "the same recipient keeps its lease")
	other := send(t, c, srv.PropertySid, telco.SendMessageParams{To: "+61400000002", Text: "lease 3"})
	assert.Regexp(t, leasePattern, other.From)

	// The lease is what is stored, not the empty From.
	assert.Equal(t, first.From, get(t, c, first.MessageSid).From)

	// A batch element without From gets the same lease for the same recipient.
	res, err := c.Messages.SendBatch(testCtx(t), srv.PropertySid, []telco.SendMessageParams{{To: "+61400000001", Text: "lease 4"}})
	require.NoError(t, err)
	require.NotNil(t, res[0].Message)
	assert.Equal(t, first.From, res[0].Message.From)
}

func TestMessages_AlphanumericSender(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client()
	au := send(t, c, srv.PropertySid, telco.SendMessageParams{From: "Acme", To: "+61400000001", Text: "AU"})
	assert.Equal(t, "Acme", au.From, "alphanumeric sender IDs are kept outside North America")

	us := send(t, c, srv.PropertySid, telco.SendMessageParams{From: "Acme", To: "+12025550123", Text: "US"})
	assert.Regexp(t, leasePattern, us.From, "the US takes no alphanumeric sender ID: a lease is used")
	ca := send(t, c, srv.PropertySid, telco.SendMessageParams{From: "Acme", To: "+14165550123", Text: "CA"})
	assert.Regexp(t, leasePattern, ca.From)

	num := send(t, c, srv.PropertySid, telco.SendMessageParams{From: "+61400000099", To: "+12025550123", Text: "US from number"})
	assert.Equal(t, "+61400000099", num.From, "an E.164 sender is kept")
}

func TestMessages_NumSegmentsMatchesSegments(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client()
	for _, text := range []string{
		"short",
		strings.Repeat("a", 160),
		strings.Repeat("a", 161),
		strings.Repeat("€", 80),
		"Your order has shipped 📦",
		strings.Repeat("é ü 你", 30),
	} {
		m := send(t, c, srv.PropertySid, telco.SendMessageParams{From: "Acme", To: "+61400000001", Text: text})
		want := telco.Segments(text).Segments
		assert.Equal(t, want, m.NumSegments, "text %.20q", text)
		assert.Equal(t, want, get(t, c, m.MessageSid).NumSegments)
	}
}

func TestMessages_ExternalIDRoundTrips(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client()
	m := send(t, c, srv.PropertySid, telco.SendMessageParams{From: "Acme", To: "+61400000001", Text: "x", ExternalID: "order-4711"})
	assert.Equal(t, "order-4711", m.ExternalID)
	assert.Equal(t, "order-4711", get(t, c, m.MessageSid).ExternalID)
}

func TestMessages_ReceiveIsFoundAsInbound(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client()
	ctx := testCtx(t)
	sent := send(t, c, srv.PropertySid, telco.SendMessageParams{From: "Acme", To: "+61400000001", Text: "out"})
	in := srv.Receive(srv.PropertySid, "+61400000001", "+61400000099", "YES please")
	assert.Regexp(t, `^MG[A-Z0-9]{30}$`, in.MessageSid)
	assert.Equal(t, telco.MessageReceived, in.Status)
	assert.Equal(t, telco.DirectionReceive, in.Direction)
	assert.NotZero(t, in.Received)
	assert.Equal(t, telco.Segments("YES please").Segments, in.NumSegments)

	p := window()
	p.Direction = telco.DirectionReceive
	page, err := c.Messages.Find(ctx, srv.PropertySid, p)
	require.NoError(t, err)
	require.Len(t, page.Items, 1)
	got := page.Items[0]
	assert.Equal(t, in.MessageSid, got.MessageSid)
	assert.Equal(t, "+61400000001", got.From)
	assert.Equal(t, "+61400000099", got.To)
	assert.Equal(t, "YES please", got.Text)
	assert.Equal(t, telco.MessageReceived, got.Status)
	assert.NotEqual(t, sent.MessageSid, got.MessageSid)

	// Reading it does not move it.
	g := get(t, c, in.MessageSid)
	assert.Equal(t, telco.MessageReceived, g.Status)

	// Another project's inbound messages are not found.
	prop, err := c.Properties.Create(ctx, &telco.CreatePropertyParams{Name: "Other", MainDomain: "o.example", TimeZone: "UTC"})
	require.NoError(t, err)
	page, err = c.Messages.Find(ctx, prop.PropertySid, p)
	require.NoError(t, err)
	assert.Empty(t, page.Items)
}

func TestMessages_FindWindowIsInclusiveExclusive(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client()
	ctx := testCtx(t)
	m := send(t, c, srv.PropertySid, telco.SendMessageParams{From: "Acme", To: "+61400000001", Text: "edge"})
	created := m.Created.Time()

	found := func(from, to time.Time) bool {
		t.Helper()
		page, err := c.Messages.Find(ctx, srv.PropertySid, &telco.FindMessagesParams{DateFrom: from, DateTo: to})
		require.NoError(t, err)
		for _, x := range page.Items {
			if x.MessageSid == m.MessageSid {
				return true
			}
		}
		return false
	}
	assert.True(t, found(created, created.Add(time.Second)), "Date_From is inclusive")
	assert.False(t, found(created.Add(-time.Minute), created), "Date_To is exclusive")
	assert.True(t, found(created.Add(-time.Minute), created.Add(time.Second)))
	assert.False(t, found(created.Add(time.Second), created.Add(time.Minute)), "created before the window")
}

func TestMessages_FindFiltersStatusAndDirection(t *testing.T) {
	t.Parallel()
	srv, clock := newClockServer(t)
	c := srv.Client()
	ctx := testCtx(t)
	srv.FailMessagesTo("+61400000666")
	later := send(t, c, srv.PropertySid, telco.SendMessageParams{From: "Acme", To: "+61400000001", Text: "later", Schedule: clock.Now().Add(time.Hour)})
	failed := send(t, c, srv.PropertySid, telco.SendMessageParams{From: "Acme", To: "+61400000666", Text: "fails"})
	clock.Advance(telcotest.SubmitDelay)
	in := srv.Receive(srv.PropertySid, "+61400000001", "+61400000099", "inbound")

	find := func(status telco.MessageStatus, dir telco.Direction) []string {
		t.Helper()
		p := window()
		p.Status, p.Direction = status, dir
		page, err := c.Messages.Find(ctx, srv.PropertySid, p)
		require.NoError(t, err)
		var sids []string
		for _, m := range page.Items {
			if status != "" {
				assert.Equal(t, status, m.Status)
			}
			if dir != "" {
				assert.Equal(t, dir, m.Direction)
			}
			sids = append(sids, m.MessageSid)
		}
		return sids
	}
	assert.Equal(t, []string{later.MessageSid}, find(telco.MessageProcessing, ""))
	assert.Equal(t, []string{failed.MessageSid}, find(telco.MessageFailed, ""))
	assert.Equal(t, []string{in.MessageSid}, find(telco.MessageReceived, ""))
	assert.Equal(t, []string{in.MessageSid}, find("", telco.DirectionReceive))
	assert.Equal(t, []string{later.MessageSid, failed.MessageSid}, find("", telco.DirectionTransmit))
	assert.Empty(t, find(telco.MessageReceived, telco.DirectionTransmit))
	assert.Empty(t, find(telco.MessageDelivered, ""))
}

func TestMessages_FindPaging(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client()
	ctx := testCtx(t)
	var sids []string
	for i := range 5 {
		m := send(t, c, srv.PropertySid, telco.SendMessageParams{From: "Acme", To: "+61400000001", Text: fmt.Sprint("m", i)})
		sids = append(sids, m.MessageSid)
	}
	page := func(count, skip int) []string {
		t.Helper()
		p := window()
		p.ListParams = telco.ListParams{Count: count, Skip: skip}
		pg, err := c.Messages.Find(ctx, srv.PropertySid, p)
		require.NoError(t, err)
		var out []string
		for _, m := range pg.Items {
			out = append(out, m.MessageSid)
		}
		return out
	}
	assert.Equal(t, sids, page(0, 0), "the default page holds them all, in creation order")
	assert.Equal(t, sids[:2], page(2, 0))
	assert.Equal(t, sids[2:4], page(2, 2))
	assert.Equal(t, sids[4:], page(2, 4))
	assert.Empty(t, page(2, 5))
	assert.Equal(t, sids[3:], page(0, 3))

	p := window()
	p.Count = 2
	var all []string
	for m, err := range c.Messages.FindAll(ctx, srv.PropertySid, p) {
		require.NoError(t, err)
		all = append(all, m.MessageSid)
	}
	assert.Equal(t, sids, all, "FindAll yields every message once, in order")
}

func TestMessages_GetUnknown400(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	_, err := srv.Client().Messages.Get(testCtx(t), "MG"+strings.Repeat("0", 30))
	requireAPIError(t, err, http.StatusBadRequest, "MESSAGE_NOT_FOUND")
}

func TestMessages_ServiceRejectsBadSends(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client(telco.WithClientValidation(false))
	ctx := testCtx(t)
	for _, tc := range []struct {
		name  string
		p     telco.SendMessageParams
		code  string
		field string
	}{
		{"To not E.164", telco.SendMessageParams{From: "Acme", To: "0499", Text: "x"}, telco.CodeInvalidPhoneNumberFormat, "To"},
		{"To missing", telco.SendMessageParams{From: "Acme", Text: "x"}, telco.CodeParameterRequired, "To"},
		{"Text missing", telco.SendMessageParams{From: "Acme", To: "+61400000001"}, telco.CodeParameterRequired, "Text"},
		{"sender ID of 12 characters", telco.SendMessageParams{From: "ABCDEFGHIJKL", To: "+61400000001", Text: "x"}, telco.CodeParameterInvalid, "From"},
		{"sender ID without a letter", telco.SendMessageParams{From: "0412 345", To: "+61400000001", Text: "x"}, telco.CodeInvalidPhoneNumberFormat, "From"},
		{"sender ID with punctuation", telco.SendMessageParams{From: "Acme!", To: "+61400000001", Text: "x"}, telco.CodeParameterInvalid, "From"},
		{"schedule 2 hours past", telco.SendMessageParams{From: "Acme", To: "+61400000001", Text: "x", Schedule: time.Now().Add(-2 * time.Hour)}, telco.CodeParameterInvalid, "Schedule"},
		{"schedule 15 days ahead", telco.SendMessageParams{From: "Acme", To: "+61400000001", Text: "x", Schedule: time.Now().Add(15 * 24 * time.Hour)}, telco.CodeParameterInvalid, "Schedule"},
		{"bad webhook method", telco.SendMessageParams{From: "Acme", To: "+61400000001", Text: "x", DeliveryReceiptWebhookMethod: "PUT"}, telco.CodeParameterInvalid, "DeliveryReceiptWebhookMethod"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.Messages.Send(ctx, srv.PropertySid, &tc.p)
			ae := requireAPIError(t, err, http.StatusBadRequest, tc.code)
			assert.Contains(t, fieldNames(ae.Fields), tc.field)
			assert.NotErrorIs(t, err, telco.ErrMaybeSent, "a 400 was not acted on")
		})
	}
	page, err := c.Messages.Find(ctx, srv.PropertySid, window())
	require.NoError(t, err)
	assert.Empty(t, page.Items, "no rejected send created a message")
}

func TestMessages_ServiceBatchRejectsElementsOneByOne(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client(telco.WithClientValidation(false))
	ctx := testCtx(t)
	res, err := c.Messages.SendBatch(ctx, srv.PropertySid, []telco.SendMessageParams{
		{From: "Acme", To: "+61400000001", Text: "first", ExternalID: "b-1"},
		{From: "Acme", To: "0499 999 997", Text: "bad"},
		{From: "Acme", To: "+61400000003", Text: "third", ExternalID: "b-3"},
	})
	require.NoError(t, err, "per-message failures still answer 200")
	require.Len(t, res, 3)

	require.NotNil(t, res[0].Message)
	assert.Nil(t, res[0].Err)
	assert.Equal(t, "+61400000001", res[0].Message.To)
	assert.Equal(t, "b-1", res[0].Message.ExternalID)
	assert.Equal(t, telco.MessageProcessing, res[0].Message.Status)

	assert.Nil(t, res[1].Message)
	require.NotNil(t, res[1].Err)
	assert.Equal(t, 0, res[1].Err.StatusCode)
	assert.Equal(t, telco.CodeInvalidPhoneNumberFormat, res[1].Err.Code)
	assert.NotEmpty(t, res[1].Err.Message)
	assert.Equal(t, []string{"To"}, fieldNames(res[1].Err.Fields))

	require.NotNil(t, res[2].Message)
	assert.Equal(t, "+61400000003", res[2].Message.To)
	assert.Equal(t, "b-3", res[2].Message.ExternalID)

	page, err := c.Messages.Find(ctx, srv.PropertySid, window())
	require.NoError(t, err)
	require.Len(t, page.Items, 2)
	assert.Equal(t, res[0].Message.MessageSid, page.Items[0].MessageSid)
	assert.Equal(t, res[2].Message.MessageSid, page.Items[1].MessageSid)
}

func TestMessages_RawBatchAnswersBareArray(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	r := raw(t, srv, http.MethodPost, "/v2/Properties/"+srv.PropertySid+"/BatchMessages",
		`{"Messages":[{"From":"Acme","To":"+61400000001","Text":"a"},{"From":"Acme","To":"abc","Text":"b"}]}`)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	body := strings.TrimSpace(string(r.Body))
	assert.True(t, strings.HasPrefix(body, "["), "a bare JSON array: %s", body)
	assert.Contains(t, body, `"MessageSid"`)
	assert.Contains(t, body, `"ErrorCode":"INVALID_PHONENUMBER_FORMAT"`)
	assert.Contains(t, body, `"FieldName":"To"`)

	// A body that is not JSON fails the whole request.
	r = raw(t, srv, http.MethodPost, "/v2/Properties/"+srv.PropertySid+"/BatchMessages", `not json`)
	assert.Equal(t, http.StatusBadRequest, r.Status)
	errorBody(t, r)
}

// The service refuses a schedule more than 14 days ahead or 1 hour or more
// in the past; the fake should not widen that window by the client's
// clock-skew allowance.
func TestMessages_ServiceScheduleWindowIsExact(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client(telco.WithClientValidation(false))
	for _, tc := range []struct {
		name string
		at   time.Time
	}{
		{"1 hour and 10 seconds past", time.Now().Add(-time.Hour - 10*time.Second)},
		{"14 days and 10 seconds ahead", time.Now().Add(telco.MaxScheduleAhead + 10*time.Second)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.Messages.Send(testCtx(t), srv.PropertySid, &telco.SendMessageParams{
				From: "Acme", To: "+61400000001", Text: "x", Schedule: tc.at})
			ae := requireAPIError(t, err, http.StatusBadRequest, telco.CodeParameterInvalid)
			assert.Contains(t, fieldNames(ae.Fields), "Schedule")
		})
	}
}

func TestLifecycle_ProcessingSubmittedDeliveredUnderTheClock(t *testing.T) {
	t.Parallel()
	srv, clock := newClockServer(t)
	c := srv.Client()
	sent := clock.Now()
	m := send(t, c, srv.PropertySid, telco.SendMessageParams{From: "+61400000099", To: "+61400000001", Text: "hello"})
	assert.Regexp(t, `^MG[A-Z0-9]{30}$`, m.MessageSid)
	assert.Equal(t, telco.MessageProcessing, m.Status)
	assert.Equal(t, telco.DirectionTransmit, m.Direction)
	assert.True(t, m.DeliveryReceipt, "DeliveryReceipt defaults to true")
	assert.Equal(t, sent.Unix(), int64(m.Created))
	assert.Zero(t, m.Submitted)

	for range 3 {
		assert.Equal(t, telco.MessageProcessing, get(t, c, m.MessageSid).Status, "reading does not move a message")
	}
	clock.Advance(telcotest.SubmitDelay - time.Millisecond)
	assert.Equal(t, telco.MessageProcessing, get(t, c, m.MessageSid).Status)

	clock.Advance(time.Millisecond)
	g := get(t, c, m.MessageSid)
	assert.Equal(t, telco.MessageSubmitted, g.Status)
	assert.Equal(t, sent.Add(telcotest.SubmitDelay).Unix(), int64(g.Submitted))
	assert.Zero(t, g.Delivered)

	clock.Advance(telcotest.DeliverDelay)
	g = get(t, c, m.MessageSid)
	assert.Equal(t, telco.MessageDelivered, g.Status)
	assert.Equal(t, sent.Add(telcotest.SubmitDelay+telcotest.DeliverDelay).Unix(), int64(g.Delivered))
	assert.Empty(t, g.ErrorCode)

	clock.Advance(24 * time.Hour)
	assert.Equal(t, telco.MessageDelivered, get(t, c, m.MessageSid).Status, "Delivered is final")
}

func TestLifecycle_JumpingPastBothStepsSetsBothTimestamps(t *testing.T) {
	t.Parallel()
	srv, clock := newClockServer(t)
	c := srv.Client()
	sent := clock.Now()
	m := send(t, c, srv.PropertySid, telco.SendMessageParams{From: "Acme", To: "+61400000001", Text: "x"})
	clock.Advance(time.Hour)
	g := get(t, c, m.MessageSid)
	assert.Equal(t, telco.MessageDelivered, g.Status)
	assert.Equal(t, sent.Add(telcotest.SubmitDelay).Unix(), int64(g.Submitted), "timestamps are when each step was due, not when read")
	assert.Equal(t, sent.Add(telcotest.SubmitDelay+telcotest.DeliverDelay).Unix(), int64(g.Delivered))
}

func TestLifecycle_NoDeliveryReceiptStaysSubmitted(t *testing.T) {
	t.Parallel()
	srv, clock := newClockServer(t)
	c := srv.Client()
	m := send(t, c, srv.PropertySid, telco.SendMessageParams{From: "Acme", To: "+61400000001", Text: "no dr", DeliveryReceipt: telco.Ptr(false)})
	assert.False(t, m.DeliveryReceipt)
	clock.Advance(telcotest.SubmitDelay)
	for range 3 {
		g := get(t, c, m.MessageSid)
		assert.Equal(t, telco.MessageSubmitted, g.Status)
		assert.Zero(t, g.Delivered)
		clock.Advance(time.Hour)
	}
}

func TestLifecycle_FailMessagesTo(t *testing.T) {
	t.Parallel()
	srv, clock := newClockServer(t)
	c := srv.Client()
	srv.FailMessagesTo("+61400000666")
	bad := send(t, c, srv.PropertySid, telco.SendMessageParams{From: "Acme", To: "+61400000666", Text: "doomed"})
	good := send(t, c, srv.PropertySid, telco.SendMessageParams{From: "Acme", To: "+61400000001", Text: "fine"})
	assert.Equal(t, telco.MessageProcessing, bad.Status)
	assert.Equal(t, telco.MessageProcessing, get(t, c, bad.MessageSid).Status, "it fails when it would have been submitted")

	clock.Advance(telcotest.SubmitDelay)
	for range 2 {
		g := get(t, c, bad.MessageSid)
		assert.Equal(t, telco.MessageFailed, g.Status)
		assert.Equal(t, "UNDELIVERABLE", g.ErrorCode)
		assert.Zero(t, g.Submitted)
		assert.Zero(t, g.Delivered)
		clock.Advance(time.Hour)
	}
	g := get(t, c, good.MessageSid)
	assert.Equal(t, telco.MessageDelivered, g.Status, "other recipients are not affected")
	assert.Empty(t, g.ErrorCode)
}

func TestLifecycle_ScheduledWaitsForItsTime(t *testing.T) {
	t.Parallel()
	srv, clock := newClockServer(t)
	c := srv.Client()
	at := clock.Now().Add(2 * time.Hour)
	m := send(t, c, srv.PropertySid, telco.SendMessageParams{From: "Acme", To: "+61400000001", Text: "later", Schedule: at})
	assert.Equal(t, at.Unix(), int64(m.Scheduled))

	processing := func() []string {
		t.Helper()
		p := &telco.FindMessagesParams{DateFrom: clock.Now().Add(-24 * time.Hour), DateTo: clock.Now().Add(time.Hour), Status: telco.MessageProcessing}
		page, err := c.Messages.Find(testCtx(t), srv.PropertySid, p)
		require.NoError(t, err)
		var sids []string
		for _, x := range page.Items {
			sids = append(sids, x.MessageSid)
		}
		return sids
	}
	clock.Advance(2*time.Hour - time.Second)
	assert.Equal(t, telco.MessageProcessing, get(t, c, m.MessageSid).Status)
	assert.Equal(t, []string{m.MessageSid}, processing())

	clock.Advance(time.Second + telcotest.SubmitDelay)
	g := get(t, c, m.MessageSid)
	assert.Equal(t, telco.MessageSubmitted, g.Status)
	assert.Equal(t, at.Add(telcotest.SubmitDelay).Unix(), int64(g.Submitted))
	assert.Empty(t, processing())

	clock.Advance(telcotest.DeliverDelay)
	assert.Equal(t, telco.MessageDelivered, get(t, c, m.MessageSid).Status)
}

func TestLifecycle_RecentPastScheduleIsSentNow(t *testing.T) {
	t.Parallel()
	srv, clock := newClockServer(t)
	c := srv.Client()
	now := clock.Now()
	m := send(t, c, srv.PropertySid, telco.SendMessageParams{From: "Acme", To: "+61400000001", Text: "now",
		Schedule: now.Add(-30 * time.Minute)})
	assert.Equal(t, now.Unix(), int64(m.Scheduled), "a schedule less than 1 hour past is sent at once")
	clock.Advance(telcotest.SubmitDelay)
	assert.Equal(t, telco.MessageSubmitted, get(t, c, m.MessageSid).Status)
}

// The schedule window follows the fake's clock, not the machine's.
func TestLifecycle_ScheduleWindowFollowsTheClock(t *testing.T) {
	t.Parallel()
	clock := telcotest.NewClock(time.Now().Add(-48 * time.Hour).Truncate(time.Second))
	srv := newServer(t, telcotest.WithClock(clock))
	c := srv.Client(telco.WithClientValidation(false))
	// A day before the machine's now is 1 day after the fake's now: fine.
	_, err := c.Messages.Send(testCtx(t), srv.PropertySid, &telco.SendMessageParams{From: "Acme", To: "+61400000001", Text: "x",
		Schedule: clock.Now().Add(24 * time.Hour)})
	require.NoError(t, err)
	_, err = c.Messages.Send(testCtx(t), srv.PropertySid, &telco.SendMessageParams{From: "Acme", To: "+61400000001", Text: "x",
		Schedule: clock.Now().Add(-2 * time.Hour)})
	requireAPIError(t, err, 400, telco.CodeParameterInvalid)
}

func leaseSend(t *testing.T, c *telco.Client, propertySid, to string) string {
	t.Helper()
	m := send(t, c, propertySid, telco.SendMessageParams{To: to, Text: "leased"})
	require.Regexp(t, leasePattern, m.From)
	return m.From
}

func TestLeases_ReusedPerRecipientWhileValid(t *testing.T) {
	t.Parallel()
	srv, clock := newClockServer(t)
	c := srv.Client()
	a := leaseSend(t, c, srv.PropertySid, "+61400000001")
	clock.Advance(telcotest.LeaseValidity - time.Second)
	assert.Equal(t, a, leaseSend(t, c, srv.PropertySid, "+61400000001"), "reused while valid")
	b := leaseSend(t, c, srv.PropertySid, "+61400000002")
	assert.NotEqual(t, a, b, "a sender is unique to its recipient")

	clock.Advance(time.Second)
	a2 := leaseSend(t, c, srv.PropertySid, "+61400000001")
	assert.NotEqual(t, a, a2, "after 30 days the lease has expired and a new one is made")
	assert.NotEqual(t, b, a2)
	assert.Equal(t, a2, leaseSend(t, c, srv.PropertySid, "+61400000001"))
	assert.Equal(t, b, leaseSend(t, c, srv.PropertySid, "+61400000002"), "b was leased later and is still valid")
}

func TestLeases_AtMostFivePerRecipient(t *testing.T) {
	t.Parallel()
	srv, clock := newClockServer(t)
	c := srv.Client()
	ctx := testCtx(t)
	to := "+61400000001"
	var projects []string
	for i := range 6 {
		p, err := c.Properties.Create(ctx, &telco.CreatePropertyParams{Name: "P" + string(rune('0'+i)),
			MainDomain: "p.example.com", TimeZone: "UTC", SmsEnabled: true})
		require.NoError(t, err)
		projects = append(projects, p.PropertySid)
	}
	seen := map[string]bool{}
	var first string
	for i, p := range projects[:5] {
		s := leaseSend(t, c, p, to)
		if i == 0 {
			first = s
		}
		assert.False(t, seen[s], "each project gets its own lease to the recipient")
		seen[s] = true
		clock.Advance(time.Hour)
	}
	// A 6th project is refused rather than given another project's sender.
	_, err := c.Messages.Send(ctx, projects[5], &telco.SendMessageParams{To: to, Text: "leased"})
	ae := requireAPIError(t, err, http.StatusBadRequest, telco.CodeLeaseLimitReached)
	require.Len(t, ae.Fields, 1)
	assert.Equal(t, "From", ae.Fields[0].FieldName)
	assert.Equal(t, first, leaseSend(t, c, projects[0], to), "a project with a lease keeps it")

	// Once the first lease expires, a slot is free again.
	clock.Advance(telcotest.LeaseValidity - 5*time.Hour)
	sixth := leaseSend(t, c, projects[5], to)
	assert.False(t, seen[sixth], "with the oldest lease expired the 6th project gets a fresh one")
}

func TestLeases_AlphanumericToNorthAmericaIsLeased(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	m := send(t, srv.Client(), srv.PropertySid, telco.SendMessageParams{From: "Acme", To: "+12025550123", Text: "hi"})
	assert.Regexp(t, leasePattern, m.From)
}

// Leases never cross accounts: a sixth account is refused, and a response
// to a lease reaches only the project that leased it.
func TestLeases_NeverSharedAcrossAccounts(t *testing.T) {
	t.Parallel()
	srv, _ := newClockServer(t)
	rc := newReceiver(t, http.StatusOK)
	ctx := testCtx(t)
	to := "+61400000077"
	type acct struct {
		c      *telco.Client
		prop   string
		sender string
	}
	var accts []acct
	for i := range 6 {
		a := srv.AddAccount("", "")
		accts = append(accts, acct{c: srv.ClientFor(a.AccountSid), prop: a.PropertySid})
		if i == 5 {
			break
		}
		m := send(t, accts[i].c, a.PropertySid, telco.SendMessageParams{To: to, Text: "reply?",
			WebhookURI: fmt.Sprintf("%s/acct%d", rc.URL, i), DeliveryReceipt: telco.Ptr(false)})
		accts[i].sender = m.From
	}
	_, err := accts[5].c.Messages.Send(ctx, accts[5].prop, &telco.SendMessageParams{To: to, Text: "reply?",
		WebhookURI: rc.URL + "/acct5"})
	requireAPIError(t, err, http.StatusBadRequest, telco.CodeLeaseLimitReached)
	// The batch refuses the element the same way.
	res, err := accts[5].c.Messages.SendBatch(ctx, accts[5].prop, []telco.SendMessageParams{{To: to, Text: "b"}})
	require.NoError(t, err)
	require.Len(t, res, 1)
	require.NotNil(t, res[0].Err)
	assert.Equal(t, telco.CodeLeaseLimitReached, res[0].Err.Code)

	srv.Receive(accts[5].prop, to, accts[0].sender, "YES")
	srv.Flush()
	hits := rc.got()
	require.Len(t, hits, 1)
	assert.Equal(t, "/acct0", hits[0].Path, "the response goes to the leasing account's webhook only")
}

// ErrorCode is written as "" when nothing failed, as the spec says, in
// every answer that carries a message and in its callbacks; a failure's
// code is kept.
func TestMessages_ErrorCodeAlwaysWritten(t *testing.T) {
	t.Parallel()
	srv, clock := newClockServer(t)
	rc := newReceiver(t, http.StatusOK)
	srv.FailMessagesTo("+61400000666")
	r := raw(t, srv, http.MethodPost, "/v2/Properties/"+srv.PropertySid+"/Messages",
		`{"From":"Acme","To":"+61400000001","Text":"hi","DeliveryReceiptWebhookUri":"`+rc.URL+`/dr"}`)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Contains(t, string(r.Body), `"ErrorCode":""`)
	var sent struct{ Message telco.Message }
	require.NoError(t, json.Unmarshal(r.Body, &sent))
	send(t, srv.Client(), srv.PropertySid, telco.SendMessageParams{From: "Acme", To: "+61400000666", Text: "x"})

	r = raw(t, srv, http.MethodPost, "/v2/Properties/"+srv.PropertySid+"/BatchMessages", `{"Messages":[{"From":"Acme","To":"+61400000002","Text":"b"}]}`)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Contains(t, string(r.Body), `"ErrorCode":""`)

	r = raw(t, srv, http.MethodGet, "/v2/Messages/"+sent.Message.MessageSid, "")
	assert.Contains(t, string(r.Body), `"ErrorCode":""`)

	clock.Advance(telcotest.SubmitDelay + telcotest.DeliverDelay)
	now := clock.Now().Unix()
	r = raw(t, srv, http.MethodGet, fmt.Sprintf("/v2/Properties/%s/Messages?Date_From=%d&Date_To=%d", srv.PropertySid, now-3600, now+3600), "")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Equal(t, 2, strings.Count(string(r.Body), `"ErrorCode":""`), "%s", r.Body)
	assert.Equal(t, 1, strings.Count(string(r.Body), `"ErrorCode":"UNDELIVERABLE"`), "%s", r.Body)

	srv.Flush()
	hits := rc.got()
	require.Len(t, hits, 1)
	assert.Contains(t, string(hits[0].Body), `"ErrorCode":""`)
}

// The fake reads a send with its own table of the service's wire names and
// JSON types (internal/smswire), not through the SDK's encoder: names in
// any case are taken, and what the service could not read is refused with
// its whole-request error, naming the field.
func TestSend_ReadsTheWireByItsOwnTable(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	path := "/v2/Properties/" + srv.PropertySid + "/Messages"
	at := time.Now().Add(time.Hour).Unix()

	r := raw(t, srv, http.MethodPost, path, fmt.Sprintf(`{"from":"Acme","TO":"+61400000001","text":"hi",
		"schedule":%d,"deliveryreceipt":false,"externalid":"e1","DeliveryReceiptWebhookMETHOD":"get","Campaign":"spring"}`, at))
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	var sent struct{ Message telco.Message }
	require.NoError(t, json.Unmarshal(r.Body, &sent))
	assert.Equal(t, "Acme", sent.Message.From)
	assert.Equal(t, "+61400000001", sent.Message.To)
	assert.Equal(t, "e1", sent.Message.ExternalID)
	assert.False(t, sent.Message.DeliveryReceipt)
	assert.Equal(t, telco.Timestamp(at), sent.Message.Scheduled)

	for _, c := range []struct{ body, field, why string }{
		{`{"To":"+61400000001","to":"+61400000002","Text":"hi"}`, "To", "two recipients: which one is not a guess"},
		{`{"To":61400000001,"Text":"hi"}`, "To", "a number for a recipient would lose its +"},
		{`{"To":"+61400000001","Text":"hi","Schedule":"1800000000"}`, "Schedule", "Schedule is an integer on the wire"},
		{`{"To":"+61400000001","Text":"hi","DeliveryReceipt":"false"}`, "DeliveryReceipt", "DeliveryReceipt is a boolean on the wire"},
		{`["To"]`, "JSON object", "a send is an object"},
	} {
		r := raw(t, srv, http.MethodPost, path, c.body)
		assert.Equal(t, http.StatusBadRequest, r.Status, c.why)
		e := errorBody(t, r).ResponseStatus
		assert.Equal(t, "SerializationException", e.ErrorCode, c.why)
		assert.Contains(t, e.Message, c.field, c.why)
	}
	assert.Len(t, srv.Messages(srv.PropertySid), 1, "only the first send was stored")
}

// A batch element the service could not read fails the whole batch, as a
// body that cannot be deserialized does: nothing of it is sent.
func TestSendBatch_AnUnreadableElementFailsTheBatch(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	path := "/v2/Properties/" + srv.PropertySid + "/BatchMessages"
	r := raw(t, srv, http.MethodPost, path, `{"messages":[{"To":"+61400000001","Text":"one"},{"To":"+61400000002","Text":"two","Schedule":"soon"}]}`)
	assert.Equal(t, http.StatusBadRequest, r.Status)
	e := errorBody(t, r).ResponseStatus
	assert.Equal(t, "SerializationException", e.ErrorCode)
	assert.Contains(t, e.Message, "element 1 of Messages: Schedule")
	assert.Empty(t, srv.Messages(srv.PropertySid), "the readable first element was not sent either")

	r = raw(t, srv, http.MethodPost, path, `{"Messages":[{"to":"+61400000001","TEXT":"one","externalId":"b1"},{"To":"+61400000002"}]}`)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	var out []map[string]any
	require.NoError(t, json.Unmarshal(r.Body, &out))
	require.Len(t, out, 2)
	assert.Equal(t, "b1", out[0]["ExternalId"], "keys in any case, element by element")
	assert.Equal(t, telco.CodeParameterRequired, out[1]["ErrorCode"], "a readable element is refused on its own")
}
