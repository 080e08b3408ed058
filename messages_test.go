package telco

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var bg = context.Background()

const messagesPath = "/v2/Properties/" + testProp + "/Messages"

func TestSendWire(t *testing.T) {
	c, mt := newMockClient(t)
	got := reply(mt, "POST", messagesPath, 200, fixture(t, "send_message.json"))
	sched := time.Now().Add(time.Hour).Truncate(time.Second)
	m, err := c.Messages.Send(bg, testProp, &SendMessageParams{
		From:                         "+61400000001",
		To:                           "+61499999999",
		Text:                         "Hello world!",
		Schedule:                     sched,
		DeliveryReceipt:              Ptr(false),
		DeliveryReceiptWebhookURI:    "https://hooks.example.com/dr",
		DeliveryReceiptWebhookMethod: "get",
		ExternalID:                   "order-1042",
	})
	require.NoError(t, err)

	assert.Equal(t, "POST", got.Method)
	assert.Equal(t, messagesPath, got.Path)
	assertCommonHeaders(t, got.Header)
	assert.Equal(t, "application/json", got.Header.Get("Content-Type"))
	assert.Equal(t, map[string]any{
		"From":                         "+61400000001",
		"To":                           "+61499999999",
		"Text":                         "Hello world!",
		"Schedule":                     float64(sched.Unix()),
		"DeliveryReceipt":              false,
		"DeliveryReceiptWebhookUri":    "https://hooks.example.com/dr",
		"DeliveryReceiptWebhookMethod": "GET",
		"ExternalId":                   "order-1042",
	}, got.bodyMap(t))

	assert.Equal(t, &Message{
		MessageSid:      "MGTBUEHNLFOOHNSIOCSAQRRUKLMEZSLE",
		AccountSid:      "ACXQNPRSVWTQFBJKLHOAZQWESDFGHJKL",
		PropertySid:     testProp,
		From:            "+61400000001",
		To:              "+61499999999",
		Text:            "Hello world!",
		DeliveryReceipt: true,
		NumSegments:     1,
		Status:          MessageProcessing,
		Direction:       DirectionTransmit,
		Scheduled:       1577836800,
		Created:         1577836795,
		ExternalID:      "order-1042",
	}, m)
}

func TestSendLeaseSendsNoFromAndTheLeaseFields(t *testing.T) {
	c, mt := newMockClient(t)
	got := reply(mt, "POST", messagesPath, 200, fixture(t, "send_message.json"))
	_, err := c.Messages.Send(bg, testProp, &SendMessageParams{
		To: "+61499999999", Text: "Reply YES",
		ForwardToSms: "+61400000009", ForwardFromSms: "Acme", ForwardToEmail: "ops@acme.example.com",
		ForwardFromEmail: "noreply@acme.example.com", WebhookURI: "https://hooks.example.com/r", WebhookMethod: "Post",
	})
	require.NoError(t, err)
	body := got.bodyMap(t)
	assert.NotContains(t, body, "From", "a lease leaves From out")
	assert.NotContains(t, body, "Schedule")
	assert.NotContains(t, body, "DeliveryReceipt", "nil leaves the service default")
	assert.Equal(t, "+61400000009", body["ForwardToSms"])
	assert.Equal(t, "Acme", body["ForwardFromSms"])
	assert.Equal(t, "ops@acme.example.com", body["ForwardToEmail"])
	assert.Equal(t, "noreply@acme.example.com", body["ForwardFromEmail"])
	assert.Equal(t, "https://hooks.example.com/r", body["WebhookUri"])
	assert.Equal(t, "POST", body["WebhookMethod"])
}

func TestSendValidation(t *testing.T) {
	now := time.Now()
	ok := func() SendMessageParams { return SendMessageParams{From: "Acme", To: "+61499999999", Text: "hi"} }
	cases := []struct {
		why   string
		edit  func(p *SendMessageParams)
		field string
		code  string
	}{
		{"To is required", func(p *SendMessageParams) { p.To = "" }, "To", CodeParameterRequired},
		{"To needs the +", func(p *SendMessageParams) { p.To = "61499999999" }, "To", CodeInvalidPhoneNumberFormat},
		{"To in local form", func(p *SendMessageParams) { p.To = "0499999999" }, "To", CodeInvalidPhoneNumberFormat},
		{"To with spaces", func(p *SendMessageParams) { p.To = "+61 499 999 999" }, "To", CodeInvalidPhoneNumberFormat},
		{"To too long", func(p *SendMessageParams) { p.To = "+1234567890123456" }, "To", CodeInvalidPhoneNumberFormat},
		{"To with a leading 0", func(p *SendMessageParams) { p.To = "+0499999999" }, "To", CodeInvalidPhoneNumberFormat},
		{"From of 12 characters", func(p *SendMessageParams) { p.From = "ABCDEFGHIJKL" }, "From", CodeParameterInvalid},
		{"From without a letter", func(p *SendMessageParams) { p.From = "12345" }, "From", CodeInvalidPhoneNumberFormat},
		{"From with punctuation", func(p *SendMessageParams) { p.From = "Acme-Co" }, "From", CodeParameterInvalid},
		{"From with a non-ASCII letter", func(p *SendMessageParams) { p.From = "Café" }, "From", CodeParameterInvalid},
		{"From as a number without +", func(p *SendMessageParams) { p.From = "61400000001" }, "From", CodeInvalidPhoneNumberFormat},
		{"Text is required", func(p *SendMessageParams) { p.Text = "" }, "Text", CodeParameterRequired},
		{"Text of spaces", func(p *SendMessageParams) { p.Text = "   " }, "Text", CodeParameterRequired},
		{"Schedule 15 days ahead", func(p *SendMessageParams) { p.Schedule = now.Add(15 * 24 * time.Hour) }, "Schedule", CodeParameterInvalid},
		{"Schedule 14 days and a minute ahead", func(p *SendMessageParams) { p.Schedule = now.Add(14*24*time.Hour + time.Minute) }, "Schedule", CodeParameterInvalid},
		{"Schedule 61 minutes ago", func(p *SendMessageParams) { p.Schedule = now.Add(-61 * time.Minute) }, "Schedule", CodeParameterInvalid},
		{"receipt webhook method PUT", func(p *SendMessageParams) { p.DeliveryReceiptWebhookMethod = "PUT" }, "DeliveryReceiptWebhookMethod", CodeParameterInvalid},
		{"receipt webhook not a URL", func(p *SendMessageParams) { p.DeliveryReceiptWebhookURI = "hooks/dr" }, "DeliveryReceiptWebhookUri", CodeParameterInvalid},
		{"lease field with a From", func(p *SendMessageParams) { p.ForwardToSms = "+61400000009" }, "ForwardToSms", CodeConflictingParameters},
		{"lease webhook with a From", func(p *SendMessageParams) { p.WebhookURI = "https://x.example.com" }, "WebhookUri", CodeConflictingParameters},
		{"lease ForwardToSms not E.164", func(p *SendMessageParams) { p.From = ""; p.ForwardToSms = "0400000009" }, "ForwardToSms", CodeInvalidPhoneNumberFormat},
		{"lease ForwardFromSms bad", func(p *SendMessageParams) { p.From = ""; p.ForwardFromSms = "Way Too Long Name" }, "ForwardFromSms", CodeParameterInvalid},
		{"lease ForwardToEmail bad", func(p *SendMessageParams) { p.From = ""; p.ForwardToEmail = "ops" }, "ForwardToEmail", CodeParameterInvalid},
		{"lease ForwardFromEmail bad", func(p *SendMessageParams) { p.From = ""; p.ForwardFromEmail = "a@b" }, "ForwardFromEmail", CodeParameterInvalid},
		{"lease WebhookMethod bad", func(p *SendMessageParams) { p.From = ""; p.WebhookMethod = "DELETE" }, "WebhookMethod", CodeParameterInvalid},
	}
	for _, tc := range cases {
		t.Run(tc.why, func(t *testing.T) {
			c, mt := newMockClient(t)
			p := ok()
			tc.edit(&p)
			_, err := c.Messages.Send(bg, testProp, &p)
			requireValidation(t, mt, err, "Messages.Send", tc.field, tc.code)
			assert.Equal(t, tc.code, ErrorCode(err))
			require.ErrorAs(t, p.Validate(), new(*ValidationError), "Validate agrees")
		})
	}
}

func TestSendValidationBoundariesPass(t *testing.T) {
	now := time.Now()
	cases := []struct {
		why  string
		edit func(p *SendMessageParams)
	}{
		{"an 11-character sender ID", func(p *SendMessageParams) { p.From = "Acme Co 123" }},
		{"a 1-letter sender ID", func(p *SendMessageParams) { p.From = "A" }},
		{"a sender ID with digits and a letter", func(p *SendMessageParams) { p.From = "1300 FLOWRS" }},
		{"an E.164 From", func(p *SendMessageParams) { p.From = "+61400000001" }},
		{"a lease", func(p *SendMessageParams) { p.From = "" }},
		{"a 15-digit To", func(p *SendMessageParams) { p.To = "+123456789012345" }},
		{"a 7-digit To", func(p *SendMessageParams) { p.To = "+6831234" }},
		{"Schedule 14 days ahead", func(p *SendMessageParams) { p.Schedule = now.Add(14 * 24 * time.Hour) }},
		{"Schedule 59 minutes ago", func(p *SendMessageParams) { p.Schedule = now.Add(-59 * time.Minute) }},
		{"Schedule now", func(p *SendMessageParams) { p.Schedule = now }},
		{"webhook methods in any case", func(p *SendMessageParams) { p.DeliveryReceiptWebhookMethod = "Post" }},
		{"lease fields on a lease", func(p *SendMessageParams) {
			p.From, p.ForwardToSms, p.ForwardFromSms, p.WebhookMethod = "", "+61400000009", "+61400000008", "get"
		}},
	}
	for _, tc := range cases {
		t.Run(tc.why, func(t *testing.T) {
			c, mt := newMockClient(t)
			reply(mt, "POST", messagesPath, 200, fixture(t, "send_message.json"))
			p := SendMessageParams{From: "Acme", To: "+61499999999", Text: "hi"}
			tc.edit(&p)
			_, err := c.Messages.Send(bg, testProp, &p)
			require.NoError(t, err)
			assert.Equal(t, 1, mt.GetTotalCallCount())
		})
	}
}

// The schedule window is the document's, to the second: at most 14 days
// ahead, less than 1 hour in the past.
func TestScheduleWindowIsExact(t *testing.T) {
	t.Parallel()
	now := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
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
		p := &SendMessageParams{From: "Acme", To: "+61400000000", Text: "x", Schedule: tc.at}
		assert.Equal(t, tc.ok, len(p.check(now)) == 0, "schedule %v from now", tc.at.Sub(now))
	}
}

func TestSendWithoutValidationSendsAsGiven(t *testing.T) {
	c, mt := newMockClient(t, WithClientValidation(false))
	got := reply(mt, "POST", messagesPath, 400, []byte(`{"ResponseStatus":{"ErrorCode":"INVALID_PHONENUMBER_FORMAT","Message":"The To parameter is not in E.164 format.","Errors":[{"FieldName":"To"}]}}`))
	_, err := c.Messages.Send(bg, testProp, &SendMessageParams{To: "0499", Text: "x"})
	var ae *APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, CodeInvalidPhoneNumberFormat, ae.Code)
	assert.Equal(t, "To", ae.Fields[0].FieldName)
	assert.Equal(t, "0499", got.bodyMap(t)["To"])
}

// leaseOnlyWithFrom is a send from an alphanumeric sender that also sets
// every lease-only field: the service would ignore them, so the client
// refuses them while it validates and sends them as given when it does not.
func leaseOnlyWithFrom(id string) SendMessageParams {
	return SendMessageParams{From: "Acme", To: "+61499999999", Text: "hi", ExternalID: id,
		ForwardToSms: "+61400000009", ForwardFromSms: "Acme", ForwardToEmail: "ops@acme.example.com",
		ForwardFromEmail: "noreply@acme.example.com", WebhookURI: "https://hooks.example.com/r", WebhookMethod: "POST"}
}

var leaseOnlyFields = []string{"ForwardToSms", "ForwardFromSms", "ForwardToEmail", "ForwardFromEmail", "WebhookUri", "WebhookMethod"}

// The four send methods refuse lease-only fields next to a From before any
// request, saying the service would ignore them; each refusal names its
// field with CONFLICTING_PARAMETERS.
func TestLeaseOnlyFieldsWithAFromRefusedClientSide(t *testing.T) {
	const why = "applies only to a leased sender ID (From empty); the service would ignore it"
	checkFields := func(t *testing.T, fields []FieldError) {
		t.Helper()
		var names []string
		for _, f := range fields {
			assert.Equal(t, CodeConflictingParameters, f.Code, f.FieldName)
			assert.Equal(t, f.FieldName+" "+why, f.Message)
			names = append(names, f.FieldName)
		}
		assert.Equal(t, leaseOnlyFields, names)
	}
	single := map[string]func(c *Client, p *SendMessageParams) error{
		"Messages.Send": func(c *Client, p *SendMessageParams) error {
			_, err := c.Messages.Send(bg, testProp, p)
			return err
		},
		"Messages.SendOnce": func(c *Client, p *SendMessageParams) error {
			_, err := c.Messages.SendOnce(bg, testProp, p)
			return err
		},
	}
	for op, send := range single {
		t.Run(op, func(t *testing.T) {
			c, mt := newMockClient(t)
			p := leaseOnlyWithFrom("x1")
			err := send(c, &p)
			var ve *ValidationError
			require.ErrorAs(t, err, &ve)
			assert.Equal(t, op, ve.Op)
			checkFields(t, ve.Fields)
			assert.Zero(t, mt.GetTotalCallCount(), "refused before any request")
		})
	}
	batch := map[string]func(c *Client, msgs []SendMessageParams) ([]BatchResult, error){
		"Messages.SendBatch": func(c *Client, msgs []SendMessageParams) ([]BatchResult, error) {
			return c.Messages.SendBatch(bg, testProp, msgs)
		},
		"Messages.SendBatchOnce": func(c *Client, msgs []SendMessageParams) ([]BatchResult, error) {
			return c.Messages.SendBatchOnce(bg, testProp, msgs)
		},
	}
	for op, send := range batch {
		t.Run(op, func(t *testing.T) {
			c, mt := newMockClient(t)
			res, err := send(c, []SendMessageParams{leaseOnlyWithFrom("b1")})
			require.NoError(t, err)
			require.Len(t, res, 1)
			require.NotNil(t, res[0].Err)
			assert.Nil(t, res[0].Message)
			assert.Equal(t, CodeConflictingParameters, res[0].Err.Code)
			assert.Contains(t, res[0].Err.Message, why)
			checkFields(t, res[0].Err.Fields)
			assert.Zero(t, mt.GetTotalCallCount(), "refused before any request")
		})
	}
}

// WithClientValidation(false) turns the rule off, as every client rule:
// each send method sends the lease-only fields with the From as given.
func TestLeaseOnlyFieldsWithAFromSentWithoutValidation(t *testing.T) {
	want := map[string]any{"From": "Acme", "ForwardToSms": "+61400000009", "ForwardFromSms": "Acme",
		"ForwardToEmail": "ops@acme.example.com", "ForwardFromEmail": "noreply@acme.example.com",
		"WebhookUri": "https://hooks.example.com/r", "WebhookMethod": "POST"}
	checkBody := func(t *testing.T, body map[string]any) {
		t.Helper()
		for k, v := range want {
			assert.Equal(t, v, body[k], k)
		}
	}
	const one = `{"Message": {"MessageSid": "MGAAAAAAAAAAAAAAAAAAAAAAAAAAAAA1", "From": "Acme", "ExternalId": "x1"}}`
	const many = `[{"MessageSid": "MGAAAAAAAAAAAAAAAAAAAAAAAAAAAAA2", "From": "Acme", "ExternalId": "b1"}]`
	batchPath := "/v2/Properties/" + testProp + "/BatchMessages"

	for op, send := range map[string]func(c *Client, p *SendMessageParams) (*Message, error){
		"Messages.Send": func(c *Client, p *SendMessageParams) (*Message, error) {
			return c.Messages.Send(bg, testProp, p)
		},
		"Messages.SendOnce": func(c *Client, p *SendMessageParams) (*Message, error) {
			return c.Messages.SendOnce(bg, testProp, p)
		},
	} {
		t.Run(op, func(t *testing.T) {
			c, mt := newMockClient(t, WithClientValidation(false))
			got := reply(mt, "POST", messagesPath, 200, []byte(one))
			p := leaseOnlyWithFrom("x1")
			m, err := send(c, &p)
			require.NoError(t, err)
			assert.Equal(t, "MGAAAAAAAAAAAAAAAAAAAAAAAAAAAAA1", m.MessageSid)
			assert.Equal(t, 1, got.n)
			checkBody(t, got.bodyMap(t))
		})
	}
	for op, send := range map[string]func(c *Client, msgs []SendMessageParams) ([]BatchResult, error){
		"Messages.SendBatch": func(c *Client, msgs []SendMessageParams) ([]BatchResult, error) {
			return c.Messages.SendBatch(bg, testProp, msgs)
		},
		"Messages.SendBatchOnce": func(c *Client, msgs []SendMessageParams) ([]BatchResult, error) {
			return c.Messages.SendBatchOnce(bg, testProp, msgs)
		},
	} {
		t.Run(op, func(t *testing.T) {
			c, mt := newMockClient(t, WithClientValidation(false))
			got := reply(mt, "POST", batchPath, 200, []byte(many))
			res, err := send(c, []SendMessageParams{leaseOnlyWithFrom("b1")})
			require.NoError(t, err)
			require.Len(t, res, 1)
			require.NotNil(t, res[0].Message)
			assert.Equal(t, "MGAAAAAAAAAAAAAAAAAAAAAAAAAAAAA2", res[0].Message.MessageSid)
			assert.Equal(t, 1, got.n)
			var body struct{ Messages []map[string]any }
			require.NoError(t, json.Unmarshal(got.Body, &body))
			require.Len(t, body.Messages, 1)
			checkBody(t, body.Messages[0])
		})
	}
}

func TestSendBatchAlignsResults(t *testing.T) {
	c, mt := newMockClient(t)
	got := reply(mt, "POST", "/v2/Properties/"+testProp+"/BatchMessages", 200, fixture(t, "send_batch_messages.json"))
	msgs := []SendMessageParams{
		{From: "FDX", To: "+61499999999", Text: "and a one", ExternalID: "a1"},
		{From: "FDX", To: "0499999999", Text: "not sent: bad To"},
		{From: "FDX", To: "+61499999990", Text: "and a two"},
		{From: "FDX", To: "+61499999998", Text: "and a one, two, three!", DeliveryReceipt: Ptr(false), ExternalID: "a3"},
	}
	res, err := c.Messages.SendBatch(bg, testProp, msgs)
	require.NoError(t, err)
	require.Len(t, res, 4)

	// Only the three valid messages were sent, in order.
	assert.Equal(t, "application/json", got.Header.Get("Content-Type"))
	var body struct{ Messages []map[string]any }
	require.NoError(t, json.Unmarshal(got.Body, &body))
	require.Len(t, body.Messages, 3)
	assert.Equal(t, "+61499999999", body.Messages[0]["To"])
	assert.Equal(t, "a1", body.Messages[0]["ExternalId"])
	assert.Equal(t, "+61499999990", body.Messages[1]["To"])
	assert.Equal(t, false, body.Messages[2]["DeliveryReceipt"])

	require.NotNil(t, res[0].Message)
	assert.Nil(t, res[0].Err)
	assert.Equal(t, "MGAAAAAAAAAAAAAAAAAAAAAAAAAAAAA1", res[0].Message.MessageSid)
	assert.Equal(t, "a1", res[0].Message.ExternalID)

	require.NotNil(t, res[1].Err, "rejected client-side")
	assert.Nil(t, res[1].Message)
	assert.Equal(t, 0, res[1].Err.StatusCode)
	assert.Equal(t, CodeInvalidPhoneNumberFormat, res[1].Err.Code)
	assert.Equal(t, "To", res[1].Err.Fields[0].FieldName)

	require.NotNil(t, res[2].Err, "rejected by the service")
	assert.Equal(t, 0, res[2].Err.StatusCode)
	assert.Equal(t, CodeInvalidPhoneNumberFormat, res[2].Err.Code)
	assert.Equal(t, "The To parameter is not in E.164 format.", res[2].Err.Message)
	assert.Equal(t, []FieldError{{FieldName: "To"}}, res[2].Err.Fields)
	assert.Equal(t, "Messages.SendBatch", res[2].Err.Op)

	require.NotNil(t, res[3].Message)
	assert.Equal(t, "MGAAAAAAAAAAAAAAAAAAAAAAAAAAAAA3", res[3].Message.MessageSid)
	assert.False(t, res[3].Message.DeliveryReceipt)
}

func TestSendBatchWholeRequestFailure(t *testing.T) {
	c, mt := newMockClient(t)
	reply(mt, "POST", "/v2/Properties/"+testProp+"/BatchMessages", 400, fixture(t, "send_batch_messages_error.json"))
	res, err := c.Messages.SendBatch(bg, testProp, []SendMessageParams{{To: "+61499999999", Text: "x"}})
	assert.Nil(t, res)
	var ae *APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, 400, ae.StatusCode)
	assert.Equal(t, "SerializationException", ae.Code)
	assert.Contains(t, ae.Message, "Could not deserialize")
}

func TestSendBatchResultCountMismatch(t *testing.T) {
	c, mt := newMockClient(t)
	reply(mt, "POST", "/v2/Properties/"+testProp+"/BatchMessages", 200, []byte(`[{"MessageSid":"MG1"}]`))
	_, err := c.Messages.SendBatch(bg, testProp, []SendMessageParams{
		{To: "+61499999999", Text: "x"}, {To: "+61499999998", Text: "y"}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "1 result for 2 messages")
	assert.ErrorIs(t, err, ErrMaybeSent, "the batch was accepted, so messages may have gone out")
}

func TestSendBatchWrappedAnswer(t *testing.T) {
	c, mt := newMockClient(t)
	reply(mt, "POST", "/v2/Properties/"+testProp+"/BatchMessages", 200,
		[]byte(`{"Messages":[{"Message":{"MessageSid":"MG9","Status":"Processing"}}]}`))
	res, err := c.Messages.SendBatch(bg, testProp, []SendMessageParams{{To: "+61499999999", Text: "x"}})
	require.NoError(t, err)
	require.NotNil(t, res[0].Message)
	assert.Equal(t, "MG9", res[0].Message.MessageSid)
}

func TestSendBatchAllInvalidSendsNothing(t *testing.T) {
	c, mt := newMockClient(t)
	res, err := c.Messages.SendBatch(bg, testProp, []SendMessageParams{{To: "x", Text: "a"}, {To: "+61499999999"}})
	require.NoError(t, err)
	require.Len(t, res, 2)
	assert.Equal(t, CodeInvalidPhoneNumberFormat, res[0].Err.Code)
	assert.Equal(t, CodeParameterRequired, res[1].Err.Code)
	assert.Equal(t, "Text", res[1].Err.Fields[0].FieldName)
	assert.Zero(t, mt.GetTotalCallCount())
}

func TestFindWire(t *testing.T) {
	c, mt := newMockClient(t)
	got := reply(mt, "GET", messagesPath, 200, fixture(t, "find_messages_page1.json"))
	from := time.Unix(1506038400, 0)
	to := time.Unix(1506427200, 0)
	page, err := c.Messages.Find(bg, testProp, &FindMessagesParams{
		DateFrom: from, DateTo: to, Status: MessageFailed, Direction: DirectionTransmit,
		ListParams: ListParams{Count: 2, Skip: 4},
	})
	require.NoError(t, err)
	assert.Equal(t, "GET", got.Method)
	assert.Equal(t, url.Values{
		"Date_From": {"1506038400"}, "Date_To": {"1506427200"}, "Status": {"Failed"},
		"Direction": {"Transmit"}, "Results_Count": {"2"}, "Results_Skip": {"4"},
	}, got.Query)
	assertCommonHeaders(t, got.Header)
	require.Len(t, page.Items, 2)
	assert.Equal(t, MessageReceived, page.Items[0].Status)
	assert.Equal(t, DirectionReceive, page.Items[0].Direction)
	assert.EqualValues(t, 1506038500, page.Items[0].Received)
	assert.Equal(t, "UNDELIVERABLE", page.Items[1].ErrorCode)
	assert.Zero(t, page.TotalCount)
}

func TestFindOmitsUnsetFilters(t *testing.T) {
	c, mt := newMockClient(t)
	got := reply(mt, "GET", messagesPath, 200, fixture(t, "find_messages_bare.json"))
	page, err := c.Messages.Find(bg, testProp, &FindMessagesParams{DateFrom: time.Unix(1, 0), DateTo: time.Unix(2, 0)})
	require.NoError(t, err)
	assert.Equal(t, url.Values{"Date_From": {"1"}, "Date_To": {"2"}}, got.Query)
	require.Len(t, page.Items, 1, "a bare array is read too")
	assert.Equal(t, "MGFINDAAAAAAAAAAAAAAAAAAAAAAAAA1", page.Items[0].MessageSid)
}

func TestFindValidation(t *testing.T) {
	t0 := time.Unix(1506038400, 0)
	cases := []struct {
		why   string
		p     FindMessagesParams
		field string
		code  string
	}{
		{"no DateFrom", FindMessagesParams{DateTo: t0}, "Date_From", CodeParameterRequired},
		{"no DateTo", FindMessagesParams{DateFrom: t0}, "Date_To", CodeParameterRequired},
		{"an empty window", FindMessagesParams{DateFrom: t0, DateTo: t0}, "Date_To", CodeParameterInvalid},
		{"a reversed window", FindMessagesParams{DateFrom: t0, DateTo: t0.Add(-time.Second)}, "Date_To", CodeParameterInvalid},
		{"an unknown status", FindMessagesParams{DateFrom: t0, DateTo: t0.Add(time.Hour), Status: "Lost"}, "Status", CodeParameterInvalid},
		{"an unknown direction", FindMessagesParams{DateFrom: t0, DateTo: t0.Add(time.Hour), Direction: "Sideways"}, "Direction", CodeParameterInvalid},
		{"a negative count", FindMessagesParams{DateFrom: t0, DateTo: t0.Add(time.Hour), ListParams: ListParams{Count: -1}}, "Results_Count", CodeParameterInvalid},
		{"a negative skip", FindMessagesParams{DateFrom: t0, DateTo: t0.Add(time.Hour), ListParams: ListParams{Skip: -1}}, "Results_Skip", CodeParameterInvalid},
	}
	for _, tc := range cases {
		t.Run(tc.why, func(t *testing.T) {
			c, mt := newMockClient(t)
			_, err := c.Messages.Find(bg, testProp, &tc.p)
			requireValidation(t, mt, err, "Messages.Find", tc.field, tc.code)
		})
	}
}

func TestFindAllPagesLazily(t *testing.T) {
	c, mt := newMockClient(t)
	msg := func(sid string) string { return `{"MessageSid":"` + sid + `"}` }
	got := sequence(mt, "GET", messagesPath,
		`{"Messages":[`+msg("MG1")+`,`+msg("MG2")+`]}`,
		`{"Messages":[`+msg("MG3")+`,`+msg("MG4")+`]}`,
		`{"Messages":[`+msg("MG5")+`]}`,
	)
	p := &FindMessagesParams{DateFrom: time.Unix(1, 0), DateTo: time.Unix(2, 0), ListParams: ListParams{Count: 2}}
	var sids []string
	for m, err := range c.Messages.FindAll(bg, testProp, p) {
		require.NoError(t, err)
		sids = append(sids, m.MessageSid)
	}
	assert.Equal(t, []string{"MG1", "MG2", "MG3", "MG4", "MG5"}, sids)
	require.Len(t, got.Querys, 3)
	assert.Equal(t, "", got.Querys[0].Get("Results_Skip"))
	assert.Equal(t, "2", got.Querys[1].Get("Results_Skip"))
	assert.Equal(t, "4", got.Querys[2].Get("Results_Skip"))
	assert.Equal(t, ListParams{Count: 2}, p.ListParams, "the caller's params are untouched")
}

func TestFindAllStopsWhenTheServerIgnoresSkip(t *testing.T) {
	c, mt := newMockClient(t)
	same := `{"Messages":[{"MessageSid":"MG1"},{"MessageSid":"MG2"}]}`
	sequence(mt, "GET", messagesPath, same, same, same)
	n, errs := 0, 0
	for _, err := range c.Messages.FindAll(bg, testProp, &FindMessagesParams{DateFrom: time.Unix(1, 0), DateTo: time.Unix(2, 0), ListParams: ListParams{Count: 2}}) {
		if err != nil {
			errs++
			continue
		}
		n++
	}
	assert.Equal(t, 2, n)
	assert.Equal(t, 1, errs)
	assert.Equal(t, 2, mt.GetTotalCallCount())
}

func TestFindAllYieldsValidationErrorOnce(t *testing.T) {
	c, mt := newMockClient(t)
	var errs []error
	for _, err := range c.Messages.FindAll(bg, testProp, nil) {
		errs = append(errs, err)
	}
	require.Len(t, errs, 1)
	var ve *ValidationError
	assert.True(t, errors.As(errs[0], &ve))
	assert.Zero(t, mt.GetTotalCallCount())
}

func TestGetMessage(t *testing.T) {
	c, mt := newMockClient(t)
	got := reply(mt, "GET", "/v2/Messages/MGTBUEHNLFOOHNSIOCSAQRRUKLMEZSLE", 200, fixture(t, "get_message.json"))
	m, err := c.Messages.Get(bg, "MGTBUEHNLFOOHNSIOCSAQRRUKLMEZSLE")
	require.NoError(t, err)
	assert.Equal(t, "GET", got.Method)
	assertCommonHeaders(t, got.Header)
	assert.Equal(t, MessageDelivered, m.Status)
	assert.Equal(t, "FDX", m.From)
	assert.EqualValues(t, 1506038405, m.Delivered)
	assert.Empty(t, m.ErrorCode, "null reads as empty")
	assert.Empty(t, m.ExternalID)
}

func TestGetMessageBareObject(t *testing.T) {
	c, mt := newMockClient(t)
	reply(mt, "GET", "/v2/Messages/MG1", 200, []byte(`{"MessageSid":"MG1","Status":"Queued","Direction":"Outbound"}`))
	m, err := c.Messages.Get(bg, "MG1")
	require.NoError(t, err)
	assert.Equal(t, "MG1", m.MessageSid)
	assert.Equal(t, MessageStatus("Queued"), m.Status, "unknown values are kept")
	assert.False(t, m.Status.Known())
	assert.False(t, m.Direction.Known())
}

func TestMessageTextNeverInErrors(t *testing.T) {
	c, mt := newMockClient(t)
	reply(mt, "POST", messagesPath, 500, []byte("oops"))
	const text = "private: your code is 4711"
	_, err := c.Messages.Send(bg, testProp, &SendMessageParams{To: "+61499999999", Text: text})
	require.Error(t, err)
	assert.False(t, strings.Contains(err.Error(), text))
	assert.ErrorIs(t, err, ErrMaybeSent)
}

func TestSendBatchWholeRequestFailureIn2xx(t *testing.T) {
	t.Parallel()
	msgs := []SendMessageParams{{To: "+61499999999", Text: "x"}}
	cases := []struct {
		name   string
		status int
		body   string
		// what comes back
		code      string
		message   string
		fields    []FieldError
		maybeSent bool
		keepsBody bool // an undecodable body is kept in APIError.Body
		results   int  // > 0: success with this many results
	}{
		{name: "ResponseStatus in a 200", status: 200, body: refusalBody,
			code: "SerializationException", message: "Could not deserialize",
			fields: []FieldError{{Code: CodeParameterInvalid, FieldName: "Messages", Message: "bad"}}},
		{name: "top-level error in a 201", status: 201, body: `{"ErrorCode":"FORBIDDEN","Message":"no SMS"}`,
			code: CodeForbidden, message: "no SMS"},
		{name: "ResponseStatus without an ErrorCode", status: 200, body: `{"ResponseStatus":{"Message":"hmm"}}`,
			maybeSent: true, keepsBody: true},
		{name: "an object that is not an answer", status: 200, body: `{"Foo":1}`,
			maybeSent: true, keepsBody: true},
		{name: "an empty object", status: 200, body: `{}`, maybeSent: true, keepsBody: true},
		{name: "null results", status: 200, body: `{"Messages":null}`, maybeSent: true, keepsBody: true},
		{name: "results beside a ResponseStatus", status: 200,
			body:    `{"Messages":[{"MessageSid":"MG1"}],"ResponseStatus":{"ErrorCode":"X"}}`,
			results: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, mt := newMockClient(t)
			reply(mt, "POST", "/v2/Properties/"+testProp+"/BatchMessages", tc.status, []byte(tc.body))
			res, err := c.Messages.SendBatch(bg, testProp, msgs)
			if tc.results > 0 {
				require.NoError(t, err)
				assert.Len(t, res, tc.results)
				return
			}
			assert.Nil(t, res)
			var ae *APIError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, "Messages.SendBatch", ae.Op)
			assert.Equal(t, tc.status, ae.StatusCode)
			assert.Equal(t, tc.maybeSent, errors.Is(err, ErrMaybeSent), "ErrMaybeSent")
			if tc.keepsBody {
				assert.Equal(t, tc.body, string(ae.Body))
				assert.Empty(t, ErrorCode(err))
				return
			}
			assert.Equal(t, tc.code, ae.Code)
			assert.Equal(t, tc.code, ErrorCode(err))
			assert.Equal(t, tc.message, ae.Message)
			assert.Equal(t, tc.fields, ae.Fields)
			assert.Empty(t, ae.Body)
			assert.Contains(t, err.Error(), tc.code)
		})
	}
}

// referenceBatch reads a batch answer on the tolerant pass alone: every
// element on its own through decodeBatchElement. An answer without an
// array of results is an error (a *refusal when it is the service's error
// envelope).
func referenceBatch(b []byte) ([]BatchResult, error) {
	// The tree keeps numbers as written (json.Number), as the decoder's own
	// tolerant pass does; a typed []any would round them through float64.
	tree, err := parseTree(b)
	if err != nil {
		return nil, err
	}
	l := listAnswer[any]{shape: batchElements}
	if err := l.tolerant(tree); err != nil {
		return nil, err
	}
	if !l.ok {
		return nil, errNoBatchResults
	}
	out := make([]BatchResult, len(l.items))
	for i, raw := range l.items {
		out[i] = decodeBatchElement("Messages.SendBatch", raw)
	}
	return out, nil
}

var batchBodies = []string{
	`[{"MessageSid":"MG1","Status":"Processing","Created":1506038400},{"MessageSid":"MG2","To":"+61400000002"}]`,
	`{"Messages":[{"MessageSid":"MG1"}]}`,
	`{"Results":[{"MessageSid":"MG1"}],"TotalCount":1}`,
	`[{"MessageSid":"MG1"},{"ErrorCode":"INVALID_PHONENUMBER_FORMAT","Message":"bad To","Errors":[{"FieldName":"To"}]}]`,
	`[{"Message":{"MessageSid":"MG3","Status":"Submitted"}}]`,
	`[{"MessageSid":"MG1"},{"ResponseStatus":{"ErrorCode":"X","Message":"m"}}]`,
	`[{"MessageSid":"MG1","NumSegments":"2"}]`,
	`[{"MessageSid":"MG1"},17,null,"x"]`,
	`[{"MessageSid":""}]`,
	`[]`,
	`{"Messages":null}`,
	`{"Messages":"x"}`,
	`not json`,
	`{"ResponseStatus":{"ErrorCode":"SerializationException","Message":"Could not deserialize"}}`,
	`{"ResponseStatus":{"ErrorCode":"","Message":"m"}}`,
	`{"ErrorCode":"X","Message":"m","Errors":[{"FieldName":"Messages"}]}`,
	`{"Messages":[{"MessageSid":"MG1"}],"ResponseStatus":{"ErrorCode":"X"}}`,
	`{"Foo":1}`,
	`{}`,
}

func TestBatchAnswerAgreesWithElementByElement(t *testing.T) {
	t.Parallel()
	for _, body := range batchBodies {
		t.Run(body, func(t *testing.T) {
			want, wantErr := referenceBatch([]byte(body))
			a := batchAnswer{op: "Messages.SendBatch"}
			err := a.decodeBody([]byte(body))
			if wantErr != nil {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, want, a.results)
		})
	}
}

func TestBatchAnswerOnePassForMessages(t *testing.T) {
	t.Parallel()
	a := batchAnswer{op: "Messages.SendBatch"}
	require.NoError(t, a.decodeBody([]byte(`[{"MessageSid":"MG1","To":"+61400000001","Created":1506038400},{"MessageSid":"MG2"}]`)))
	require.Len(t, a.results, 2)
	assert.Equal(t, "+61400000001", a.results[0].Message.To)
	assert.EqualValues(t, 1506038400, a.results[0].Message.Created)
	assert.Equal(t, "MG2", a.results[1].Message.MessageSid)
	assert.Nil(t, a.results[0].Err)
}

// FuzzBatchAnswer: the one-pass decoder gives exactly what decoding each
// element on its own gives.
func FuzzBatchAnswer(f *testing.F) {
	for _, b := range batchBodies {
		f.Add([]byte(b))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		want, wantErr := referenceBatch(body)
		a := batchAnswer{op: "Messages.SendBatch"}
		err := a.decodeBody(body)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("%q: error %v, element by element %v", body, err, wantErr)
		}
		if err == nil && !reflect.DeepEqual(want, a.results) {
			t.Fatalf("%q: results differ", body)
		}
	})
}
