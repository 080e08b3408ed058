package telco

import (
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	portingSubmitPath         = "/v2/Properties/" + testProp + "/Porting"
	portingPropertyStatusPath = "/v2/Properties/" + testProp + "/Porting/Status"
	portingAccountStatusPath  = "/v2/Accounts/" + testSid + "/Porting/Status"
)

// portingValidParams is a complete porting request that passes every rule:
// number 0 goes to an answering point, number 1 to a flow.
func portingValidParams() PortingRequestParams {
	return PortingRequestParams{
		AuthorisedContactName:   "Jane Citizen",
		AuthorisedContactEmail:  "jane.citizen@acme.example.com",
		DaytimeContactNumber:    "+61291234567",
		CurrentCarrier:          "Example Telecom",
		CurrentCarrierAccountNo: "ET-0048213",
		PreferredPortSchedule:   PortOnDate,
		PreferredPortDate:       time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC),
		PortingNumbers: []PortingNumberParams{
			{Number: "+61291234501", PortType: PortTypeCatA, PortAddress: "Level 4, 100 George Street, Sydney NSW 2000",
				IncomingActionType: IncomingAnsweringPoint, IncomingAnswerPoint: "+61400000001"},
			{Number: "+61291234500", PortType: PortTypeCatA, PortAddress: "Level 4, 100 George Street, Sydney NSW 2000",
				IncomingActionType: IncomingFlow, IncomingActionID: "FL3MZQ8WKD2RTX7HBVC4NJ9YPLG6SAEF"},
		},
	}
}

// portingSubmitted is what submit_porting_request.json decodes to.
var portingSubmitted = PortingRequest{
	PortingNo:               "PNHQZ7R2KD4MWX8TBVL3YJ6CNF5GSA9E",
	AccountSid:              testSid,
	PropertySid:             testProp,
	CustomerDescription:     "Sydney office main lines",
	AuthorisedContactName:   "Jane Citizen",
	AuthorisedContactEmail:  "jane.citizen@acme.example.com",
	DaytimeContactNumber:    "+61291234567",
	CurrentCarrier:          "Example Telecom",
	CurrentCarrierAccountNo: "ET-0048213",
	PreferredPortSchedule:   PortOnDate,
	PreferredPortDate:       1796256000, // 2026-12-03T00:00:00Z
	WebhookURL:              "https://hooks.acme.example.com/porting",
	Created:                 1795137300,
	PortDate:                1796277600,
	Status:                  "Submitted",
	PortingNumbers: []PortingNumber{
		{
			Number:             "+61291234500",
			PortType:           PortTypeCatA,
			PortAddress:        "Level 4, 100 George Street, Sydney NSW 2000",
			IncomingActionType: IncomingFlow,
			IncomingActionID:   "FL3MZQ8WKD2RTX7HBVC4NJ9YPLG6SAEF",
			Status:             "Pending",
			StatusHistory: []PortingStatusChange{{
				FdxStatusFrom:          "New",
				FdxStatusTo:            "Pending",
				CarrierPortingStatusTo: "Received",
				Created:                1795140000,
			}},
		},
		{
			Number:              "+61291234501",
			PortType:            PortTypeCatA,
			PortAddress:         "Level 4, 100 George Street, Sydney NSW 2000",
			IncomingActionType:  IncomingAnsweringPoint,
			IncomingAnswerPoint: "+61400000001",
			Status:              "Pending",
			StatusHistory:       []PortingStatusChange{},
		},
	},
}

func TestPortingSubmitWire(t *testing.T) {
	c, mt := newMockClient(t)
	got := reply(mt, "POST", portingSubmitPath, 200, fixture(t, "submit_porting_request.json"))
	p := portingValidParams()
	p.CustomerDescription = "Sydney office main lines"
	p.WebhookURL = "https://hooks.acme.example.com/porting"
	p.PortingNumbers = []PortingNumberParams{
		{Number: "+61291234500", PortType: PortTypeCatA, PortAddress: "Level 4, 100 George Street, Sydney NSW 2000",
			IncomingActionType: IncomingFlow, IncomingActionID: "FL3MZQ8WKD2RTX7HBVC4NJ9YPLG6SAEF"},
		{Number: "+61291234501", PortType: PortTypeCatA, PortAddress: "Level 4, 100 George Street, Sydney NSW 2000",
			IncomingActionType: IncomingAnsweringPoint, IncomingAnswerPoint: "+61400000001"},
		{Number: "+61291234502", PortType: PortTypeCatA, PortAddress: "Level 4, 100 George Street, Sydney NSW 2000"},
	}
	r, err := c.Porting.Submit(bg, testProp, &p)
	require.NoError(t, err)

	assert.Equal(t, "POST", got.Method)
	assert.Equal(t, portingSubmitPath, got.Path)
	assert.Empty(t, got.Query)
	assertCommonHeaders(t, got.Header)
	assert.Equal(t, "application/json", got.Header.Get("Content-Type"))
	assert.Equal(t, map[string]any{
		"AuthorisedContactName":   "Jane Citizen",
		"AuthorisedContactEmail":  "jane.citizen@acme.example.com",
		"DaytimeContactNumber":    "+61291234567",
		"CurrentCarrier":          "Example Telecom",
		"CurrentCarrierAccountNo": "ET-0048213",
		"PreferredPortSchedule":   "Date",
		"PreferredPortDate":       "2026-12-03",
		"CustomerDescription":     "Sydney office main lines",
		"WebHookURL":              "https://hooks.acme.example.com/porting",
		"PortingNumbers": []any{
			map[string]any{
				"Number": "+61291234500", "PortType": "Cat-A", "PortAddress": "Level 4, 100 George Street, Sydney NSW 2000",
				"IncomingActionType": "Flow", "IncomingActionId": "FL3MZQ8WKD2RTX7HBVC4NJ9YPLG6SAEF",
			},
			map[string]any{
				"Number": "+61291234501", "PortType": "Cat-A", "PortAddress": "Level 4, 100 George Street, Sydney NSW 2000",
				"IncomingActionType": "Answering Point", "IncomingAnswerPoint": "+61400000001",
			},
			map[string]any{
				"Number": "+61291234502", "PortType": "Cat-A", "PortAddress": "Level 4, 100 George Street, Sydney NSW 2000",
			},
		},
	}, got.bodyMap(t), "optional number keys are absent when empty")

	require.NotNil(t, r)
	assert.Equal(t, &portingSubmitted, r)
	assert.Equal(t, time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC), r.PreferredPortDate.Time())
	assert.Equal(t, time.Date(2026, 11, 20, 1, 15, 0, 0, time.UTC), r.Created.Time())
	assert.Equal(t, time.Date(2026, 11, 20, 2, 0, 0, 0, time.UTC), r.PortingNumbers[0].StatusHistory[0].Created.Time())
}

func TestPortingSubmitASAPOmitsDateAndEmptyOptionals(t *testing.T) {
	c, mt := newMockClient(t)
	got := reply(mt, "POST", portingSubmitPath, 200, fixture(t, "submit_porting_request.json"))
	p := portingValidParams()
	p.PreferredPortSchedule = PortASAP
	p.PreferredPortDate = time.Time{}
	p.PortingNumbers = nil
	_, err := c.Porting.Submit(bg, testProp, &p)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{
		"AuthorisedContactName":   "Jane Citizen",
		"AuthorisedContactEmail":  "jane.citizen@acme.example.com",
		"DaytimeContactNumber":    "+61291234567",
		"CurrentCarrier":          "Example Telecom",
		"CurrentCarrierAccountNo": "ET-0048213",
		"PreferredPortSchedule":   "ASAP",
	}, got.bodyMap(t), "no PreferredPortDate with ASAP; no CustomerDescription, WebHookURL or PortingNumbers when empty")
}

func TestPortingSubmitDateIsTheCalendarDateOfItsOwnZone(t *testing.T) {
	cases := []struct {
		why  string
		date time.Time
		want string
	}{
		{"midnight UTC", time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC), "2026-12-03"},
		{"early morning at +10:00, still the previous day in UTC",
			time.Date(2026, 12, 3, 8, 0, 0, 0, time.FixedZone("AEST", 10*3600)), "2026-12-03"},
		{"midnight at +10:00", time.Date(2026, 12, 3, 0, 0, 0, 0, time.FixedZone("+10:00", 10*3600)), "2026-12-03"},
		{"late evening at -05:00, already the next day in UTC",
			time.Date(2026, 12, 3, 23, 30, 0, 0, time.FixedZone("EST", -5*3600)), "2026-12-03"},
		{"a time of day is dropped", time.Date(2027, 1, 31, 17, 45, 12, 999, time.UTC), "2027-01-31"},
	}
	for _, tc := range cases {
		t.Run(tc.why, func(t *testing.T) {
			c, mt := newMockClient(t)
			got := reply(mt, "POST", portingSubmitPath, 200, fixture(t, "submit_porting_request.json"))
			p := portingValidParams()
			p.PreferredPortDate = tc.date
			_, err := c.Porting.Submit(bg, testProp, &p)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got.bodyMap(t)["PreferredPortDate"])
		})
	}
}

func TestPortingSubmitIsNotRetriedOn503(t *testing.T) {
	var n atomic.Int32
	c, mt := newMockClient(t, WithRetryPolicy(RetryPolicy{MaxRetries: 2, MinWait: time.Millisecond, MaxWait: 2 * time.Millisecond}))
	mt.RegisterResponder("POST", testBase+portingSubmitPath, func(r *http.Request) (*http.Response, error) {
		n.Add(1)
		return httpmock.NewStringResponse(503, `{"ResponseStatus":{"ErrorCode":"SERVICE_UNAVAILABLE","Message":"try later"}}`), nil
	})
	p := portingValidParams()
	r, err := c.Porting.Submit(bg, testProp, &p)
	assert.Nil(t, r)
	require.Error(t, err)
	assert.EqualValues(t, 1, n.Load(), "a submit that may have reached the service is sent once")
	assert.ErrorIs(t, err, ErrMaybeSent)
	var ae *APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, 503, ae.StatusCode)

	// The same policy does retry the idempotent status read: the policy is live.
	var m atomic.Int32
	mt.RegisterResponder("GET", testBase+portingPropertyStatusPath, func(r *http.Request) (*http.Response, error) {
		m.Add(1)
		return httpmock.NewStringResponse(503, `{"ResponseStatus":{"ErrorCode":"SERVICE_UNAVAILABLE","Message":"try later"}}`), nil
	})
	_, err = c.Porting.StatusByProperty(bg, testProp, &PortingStatusParams{From: time.Unix(1795100000, 0), To: time.Unix(1795200000, 0)})
	require.Error(t, err)
	assert.EqualValues(t, 3, m.Load())
	assert.False(t, errors.Is(err, ErrMaybeSent), "a GET changes nothing")
}

func TestPortingSubmitErrorFromService(t *testing.T) {
	c, mt := newMockClient(t)
	reply(mt, "POST", portingSubmitPath, 400, []byte(`{"ResponseStatus":{"ErrorCode":"PARAMETER_REQUIRED","Message":"PortAddress is required","Errors":[{"FieldName":"PortAddress"}]}}`))
	p := portingValidParams()
	_, err := c.Porting.Submit(bg, testProp, &p)
	var ae *APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, 400, ae.StatusCode)
	assert.Equal(t, CodeParameterRequired, ae.Code)
	assert.Equal(t, "PortAddress", ae.Fields[0].FieldName)
	assert.False(t, errors.Is(err, ErrMaybeSent), "a 400 means the service did not act")
}

func TestPortingSubmitBareAndMissingAnswer(t *testing.T) {
	c, mt := newMockClient(t)
	reply(mt, "POST", portingSubmitPath, 200, []byte(`{"PortingNo":"PNHQZ7R2KD4MWX8TBVL3YJ6CNF5GSA9E","Status":"Submitted"}`))
	p := portingValidParams()
	r, err := c.Porting.Submit(bg, testProp, &p)
	require.NoError(t, err)
	assert.Equal(t, "PNHQZ7R2KD4MWX8TBVL3YJ6CNF5GSA9E", r.PortingNo)
	assert.Equal(t, "Submitted", r.Status)

	c, mt = newMockClient(t)
	reply(mt, "POST", portingSubmitPath, 200, []byte(`{}`))
	r, err = c.Porting.Submit(bg, testProp, &p)
	assert.Nil(t, r)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "PortingRequest")
	assert.ErrorIs(t, err, ErrMaybeSent, "the request was accepted, so it may have been acted on")
}

func TestPortingRequestDecodesDateString(t *testing.T) {
	var r PortingRequest
	require.NoError(t, json.Unmarshal([]byte(`{"PortingNo":"PN1","PreferredPortDate":"2026-12-03","PortDate":"1796277600","Created":null}`), &r))
	assert.EqualValues(t, 1796256000, r.PreferredPortDate)
	assert.Equal(t, time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC), r.PreferredPortDate.Time())
	assert.EqualValues(t, 1796277600, r.PortDate)
	assert.Zero(t, r.Created)
}

func TestPortingSubmitValidation(t *testing.T) {
	cases := []struct {
		why   string
		edit  func(p *PortingRequestParams)
		field string
		code  string
	}{
		{"AuthorisedContactName is required", func(p *PortingRequestParams) { p.AuthorisedContactName = "" }, "AuthorisedContactName", CodeParameterRequired},
		{"AuthorisedContactEmail is required", func(p *PortingRequestParams) { p.AuthorisedContactEmail = "" }, "AuthorisedContactEmail", CodeParameterRequired},
		{"DaytimeContactNumber is required", func(p *PortingRequestParams) { p.DaytimeContactNumber = "" }, "DaytimeContactNumber", CodeParameterRequired},
		{"CurrentCarrier is required", func(p *PortingRequestParams) { p.CurrentCarrier = "" }, "CurrentCarrier", CodeParameterRequired},
		{"CurrentCarrierAccountNo of spaces", func(p *PortingRequestParams) { p.CurrentCarrierAccountNo = "  " }, "CurrentCarrierAccountNo", CodeParameterRequired},
		{"PreferredPortSchedule is required", func(p *PortingRequestParams) {
			p.PreferredPortSchedule, p.PreferredPortDate = "", time.Time{}
		}, "PreferredPortSchedule", CodeParameterRequired},
		{"contact e-mail without a domain", func(p *PortingRequestParams) { p.AuthorisedContactEmail = "jane.citizen" }, "AuthorisedContactEmail", CodeParameterInvalid},
		{"schedule Soon", func(p *PortingRequestParams) { p.PreferredPortSchedule = "Soon" }, "PreferredPortSchedule", CodeParameterInvalid},
		{"Date schedule without a date", func(p *PortingRequestParams) { p.PreferredPortDate = time.Time{} }, "PreferredPortDate", CodeParameterRequired},
		{"a porting number in local form", func(p *PortingRequestParams) { p.PortingNumbers[0].Number = "0291234501" }, "PortingNumbers[0].Number", CodeInvalidPhoneNumberFormat},
		{"a porting number without its +", func(p *PortingRequestParams) { p.PortingNumbers[1].Number = "61291234500" }, "PortingNumbers[1].Number", CodeInvalidPhoneNumberFormat},
		{"a porting number is required", func(p *PortingRequestParams) { p.PortingNumbers[0].Number = "" }, "PortingNumbers[0].Number", CodeParameterRequired},
		{"PortType Cat-B", func(p *PortingRequestParams) { p.PortingNumbers[0].PortType = "Cat-B" }, "PortingNumbers[0].PortType", CodeParameterInvalid},
		{"PortType empty", func(p *PortingRequestParams) { p.PortingNumbers[1].PortType = "" }, "PortingNumbers[1].PortType", CodeParameterRequired},
		{"PortAddress empty", func(p *PortingRequestParams) { p.PortingNumbers[0].PortAddress = "" }, "PortingNumbers[0].PortAddress", CodeParameterRequired},
		{"IncomingActionType Voicemail", func(p *PortingRequestParams) {
			p.PortingNumbers[0].IncomingActionType = "Voicemail"
		}, "PortingNumbers[0].IncomingActionType", CodeParameterInvalid},
		{"Flow without IncomingActionID", func(p *PortingRequestParams) { p.PortingNumbers[1].IncomingActionID = "" }, "PortingNumbers[1].IncomingActionId", CodeParameterRequired},
		{"Answering Point without IncomingAnswerPoint", func(p *PortingRequestParams) {
			p.PortingNumbers[0].IncomingAnswerPoint = ""
		}, "PortingNumbers[0].IncomingAnswerPoint", CodeParameterRequired},
		{"WebhookURL relative", func(p *PortingRequestParams) { p.WebhookURL = "/hooks/porting" }, "WebHookURL", CodeParameterInvalid},
		{"WebhookURL not http", func(p *PortingRequestParams) { p.WebhookURL = "ftp://hooks.acme.example.com/porting" }, "WebHookURL", CodeParameterInvalid},
	}
	for _, tc := range cases {
		t.Run(tc.why, func(t *testing.T) {
			c, mt := newMockClient(t)
			p := portingValidParams()
			tc.edit(&p)
			r, err := c.Porting.Submit(bg, testProp, &p)
			assert.Nil(t, r)
			requireValidation(t, mt, err, "Porting.Submit", tc.field, tc.code)
			var ve *ValidationError
			require.ErrorAs(t, err, &ve)
			assert.Len(t, ve.Fields, 1, "one reason per case: %+v", ve.Fields)
			assert.Equal(t, tc.code, ErrorCode(err))
			require.ErrorAs(t, p.Validate(), new(*ValidationError), "Validate agrees")
		})
	}
}

func TestPortingSubmitValidationBoundariesPass(t *testing.T) {
	cases := []struct {
		why  string
		edit func(p *PortingRequestParams)
	}{
		{"ASAP with no date", func(p *PortingRequestParams) {
			p.PreferredPortSchedule, p.PreferredPortDate = PortASAP, time.Time{}
		}},
		// A date is required only with Date; with ASAP it is sent and the
		// service decides.
		{"ASAP with a date", func(p *PortingRequestParams) {
			p.PreferredPortSchedule, p.PreferredPortDate = PortASAP, time.Date(2031, 3, 1, 0, 0, 0, 0, time.UTC)
		}},
		{"Date with a date", func(p *PortingRequestParams) {
			p.PreferredPortSchedule, p.PreferredPortDate = PortOnDate, time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC)
		}},
		{"Flow with an id", func(p *PortingRequestParams) {
			p.PortingNumbers = p.PortingNumbers[1:]
		}},
		{"Answering Point with an answer point", func(p *PortingRequestParams) {
			p.PortingNumbers = p.PortingNumbers[:1]
		}},
		{"no IncomingActionType at all", func(p *PortingRequestParams) {
			p.PortingNumbers = []PortingNumberParams{{Number: "+61291234502", PortType: PortTypeCatA, PortAddress: "1 Main St"}}
		}},
		{"no PortingNumbers at all", func(p *PortingRequestParams) { p.PortingNumbers = nil }},
		{"an https webhook", func(p *PortingRequestParams) { p.WebhookURL = "https://hooks.acme.example.com/porting" }},
		{"an http webhook", func(p *PortingRequestParams) { p.WebhookURL = "http://hooks.acme.example.com/porting" }},
	}
	for _, tc := range cases {
		t.Run(tc.why, func(t *testing.T) {
			c, mt := newMockClient(t)
			reply(mt, "POST", portingSubmitPath, 200, fixture(t, "submit_porting_request.json"))
			p := portingValidParams()
			tc.edit(&p)
			require.NoError(t, p.Validate())
			_, err := c.Porting.Submit(bg, testProp, &p)
			require.NoError(t, err)
			assert.Equal(t, 1, mt.GetTotalCallCount())
		})
	}
}

func TestPortingSubmitWithoutValidationSendsAsGiven(t *testing.T) {
	c, mt := newMockClient(t, WithClientValidation(false))
	got := reply(mt, "POST", portingSubmitPath, 400, []byte(`{"ResponseStatus":{"ErrorCode":"PARAMETER_REQUIRED","Message":"AuthorisedContactName is required","Errors":[{"FieldName":"AuthorisedContactName"}]}}`))
	p := portingValidParams()
	p.AuthorisedContactName = ""
	p.PortingNumbers[0].PortType = "Cat-B"
	_, err := c.Porting.Submit(bg, testProp, &p)
	assert.Equal(t, CodeParameterRequired, ErrorCode(err))
	body := got.bodyMap(t)
	assert.Equal(t, "", body["AuthorisedContactName"], "a required key is sent even when empty")
	assert.Equal(t, "Cat-B", body["PortingNumbers"].([]any)[0].(map[string]any)["PortType"])
}

// portingStatusCall is one of the two status reads, for tables over both.
type portingStatusCall struct {
	name  string
	op    string
	owner string // the path parameter's wire name
	sid   string
	path  string
	page  func(c *Client, sid string, p *PortingStatusParams) (*Page[PortingRequest], error)
	all   func(c *Client, sid string, p *PortingStatusParams) iter.Seq2[PortingRequest, error]
}

var portingStatusCalls = []portingStatusCall{
	{
		name: "ByProperty", op: "Porting.StatusByProperty", owner: "PropertySid", sid: testProp, path: portingPropertyStatusPath,
		page: func(c *Client, sid string, p *PortingStatusParams) (*Page[PortingRequest], error) {
			return c.Porting.StatusByProperty(bg, sid, p)
		},
		all: func(c *Client, sid string, p *PortingStatusParams) iter.Seq2[PortingRequest, error] {
			return c.Porting.StatusByPropertyAll(bg, sid, p)
		},
	},
	{
		name: "ByAccount", op: "Porting.StatusByAccount", owner: "AccountSid", sid: testSid, path: portingAccountStatusPath,
		page: func(c *Client, sid string, p *PortingStatusParams) (*Page[PortingRequest], error) {
			return c.Porting.StatusByAccount(bg, sid, p)
		},
		all: func(c *Client, sid string, p *PortingStatusParams) iter.Seq2[PortingRequest, error] {
			return c.Porting.StatusByAccountAll(bg, sid, p)
		},
	},
}

var (
	portingFrom = time.Unix(1795100000, 0)
	portingTo   = time.Unix(1795300000, 0)
)

func TestPortingStatusByPropertyWire(t *testing.T) {
	c, mt := newMockClient(t)
	got := reply(mt, "GET", portingPropertyStatusPath, 200, fixture(t, "porting_status_page1.json"))
	aest := time.FixedZone("AEST", 10*3600)
	page, err := c.Porting.StatusByProperty(bg, testProp, &PortingStatusParams{
		From:                  portingFrom.In(aest),
		To:                    portingTo,
		PortingRequestNumbers: []string{"PN1", "PN2"},
		ListParams:            ListParams{Count: 5, Skip: 10},
	})
	require.NoError(t, err)
	assert.Equal(t, "GET", got.Method)
	assert.Equal(t, portingPropertyStatusPath, got.Path)
	assertCommonHeaders(t, got.Header)
	assert.Equal(t, url.Values{
		"From":                  {"1795100000"},
		"To":                    {"1795300000"},
		"PortingRequestNumbers": {"PN1,PN2"},
		"Results_Count":         {"5"},
		"Results_Skip":          {"10"},
	}, got.Query, "request numbers are one comma-separated value, not repeated keys")
	assert.Empty(t, got.Body)

	require.Len(t, page.Items, 2)
	assert.Equal(t, 3, page.TotalCount)
	assert.Equal(t, "UmVzdWx0c19Ta2lwPTI", page.NextPageToken)
	assert.Equal(t, PortingRequest{
		PortingNo:               "PN7WDK3RTQ9XFZ2BMLC5HVJ8YAGN4SEU",
		AccountSid:              testSid,
		PropertySid:             testProp,
		AuthorisedContactName:   "Jane Citizen",
		AuthorisedContactEmail:  "jane.citizen@acme.example.com",
		DaytimeContactNumber:    "+61291234567",
		CurrentCarrier:          "Example Telecom",
		CurrentCarrierAccountNo: "ET-0048213",
		PreferredPortSchedule:   PortASAP,
		Created:                 1795137300,
		PortDate:                1795253400,
		Status:                  "Completed",
		PortingNumbers: []PortingNumber{{
			Number:      "+61733330000",
			PortType:    PortTypeCatA,
			PortAddress: "12 Eagle Street, Brisbane QLD 4000",
			Status:      "Ported",
			StatusHistory: []PortingStatusChange{
				{FdxStatusFrom: "Pending", FdxStatusTo: "Scheduled", CarrierPortingStatusFrom: "Received", CarrierPortingStatusTo: "Accepted", Created: 1795140000},
				{FdxStatusFrom: "Scheduled", FdxStatusTo: "Ported", CarrierPortingStatusFrom: "Accepted", CarrierPortingStatusTo: "Completed", Created: 1795253400},
			},
		}},
	}, page.Items[0], "a null PreferredPortDate reads as unset")
	assert.Equal(t, PortingRequest{
		PortingNo:               "PNB6TXQ2WJR9KMZ4HDYC8LVF3NGP5AES",
		AccountSid:              testSid,
		PropertySid:             testProp,
		CustomerDescription:     "Melbourne support line",
		AuthorisedContactName:   "Sam Lee",
		AuthorisedContactEmail:  "sam.lee@acme.example.com",
		DaytimeContactNumber:    "+61398765432",
		CurrentCarrier:          "Sample Networks",
		CurrentCarrierAccountNo: "SN-77120",
		PreferredPortSchedule:   PortOnDate,
		PreferredPortDate:       1796256000,
		WebhookURL:              "https://hooks.acme.example.com/porting",
		Created:                 1795140000,
		Status:                  "Submitted",
		PortingNumbers:          []PortingNumber{},
	}, page.Items[1], "a YYYY-MM-DD PreferredPortDate reads as midnight UTC")
	assert.True(t, page.Items[1].PortDate.Time().IsZero())
}

func TestPortingStatusByAccountWire(t *testing.T) {
	c, mt := newMockClient(t)
	got := reply(mt, "GET", portingAccountStatusPath, 200, fixture(t, "porting_status_page1.json"))
	page, err := c.Porting.StatusByAccount(bg, testSid, &PortingStatusParams{From: portingFrom, To: portingTo})
	require.NoError(t, err)
	assert.Equal(t, "GET", got.Method)
	assert.Equal(t, portingAccountStatusPath, got.Path)
	assertCommonHeaders(t, got.Header)
	assert.Equal(t, url.Values{"From": {"1795100000"}, "To": {"1795300000"}}, got.Query,
		"no filter and no paging when unset")
	require.Len(t, page.Items, 2)
	assert.Equal(t, "PN7WDK3RTQ9XFZ2BMLC5HVJ8YAGN4SEU", page.Items[0].PortingNo)
	assert.Equal(t, 3, page.TotalCount)

	_, err = c.Porting.StatusByAccount(bg, testSid, &PortingStatusParams{
		From: portingFrom, To: portingTo, PortingRequestNumbers: []string{"PN7WDK3RTQ9XFZ2BMLC5HVJ8YAGN4SEU"}})
	require.NoError(t, err)
	assert.Equal(t, []string{"PN7WDK3RTQ9XFZ2BMLC5HVJ8YAGN4SEU"}, got.Query["PortingRequestNumbers"])
}

func TestPortingStatusValidation(t *testing.T) {
	cases := []struct {
		why   string
		p     PortingStatusParams
		field string
		code  string
	}{
		{"From missing", PortingStatusParams{To: portingTo}, "From", CodeParameterRequired},
		{"To missing", PortingStatusParams{From: portingFrom}, "To", CodeParameterRequired},
		{"From equal to To", PortingStatusParams{From: portingFrom, To: portingFrom}, "To", CodeParameterInvalid},
		{"From after To", PortingStatusParams{From: portingTo, To: portingFrom}, "To", CodeParameterInvalid},
		{"an empty request number", PortingStatusParams{From: portingFrom, To: portingTo,
			PortingRequestNumbers: []string{"PN1", ""}}, "PortingRequestNumbers[1]", CodeParameterInvalid},
		{"a request number of spaces", PortingStatusParams{From: portingFrom, To: portingTo,
			PortingRequestNumbers: []string{" "}}, "PortingRequestNumbers[0]", CodeParameterInvalid},
		{"a request number holding a comma", PortingStatusParams{From: portingFrom, To: portingTo,
			PortingRequestNumbers: []string{"PN1,PN2"}}, "PortingRequestNumbers[0]", CodeParameterInvalid},
		{"a negative count", PortingStatusParams{From: portingFrom, To: portingTo, ListParams: ListParams{Count: -1}}, "Results_Count", CodeParameterInvalid},
		{"a negative skip", PortingStatusParams{From: portingFrom, To: portingTo, ListParams: ListParams{Skip: -1}}, "Results_Skip", CodeParameterInvalid},
	}
	for _, call := range portingStatusCalls {
		for _, tc := range cases {
			t.Run(call.name+"/"+tc.why, func(t *testing.T) {
				c, mt := newMockClient(t)
				p := tc.p
				page, err := call.page(c, call.sid, &p)
				assert.Nil(t, page)
				requireValidation(t, mt, err, call.op, tc.field, tc.code)
				var ve *ValidationError
				require.ErrorAs(t, err, &ve)
				assert.Len(t, ve.Fields, 1, "one reason per case: %+v", ve.Fields)
				require.ErrorAs(t, p.Validate(), new(*ValidationError), "Validate agrees")
			})
		}
	}
}

func TestPortingStatusWindowBoundaryPasses(t *testing.T) {
	c, mt := newMockClient(t)
	reply(mt, "GET", portingPropertyStatusPath, 200, []byte(`{"PortingRequests":[],"TotalCount":0}`))
	p := &PortingStatusParams{From: portingFrom, To: portingFrom.Add(time.Second)}
	require.NoError(t, p.Validate())
	page, err := c.Porting.StatusByProperty(bg, testProp, p)
	require.NoError(t, err)
	assert.Empty(t, page.Items)
	assert.Equal(t, 1, mt.GetTotalCallCount())
}

// portingStatusPageJSON is a status page of requests named by nos, with a
// TotalCount when total >= 0.
func portingStatusPageJSON(total int, nos ...string) string {
	items := make([]string, len(nos))
	for i, no := range nos {
		items[i] = `{"PortingNo":"` + no + `","Status":"Submitted"}`
	}
	s := `{"PortingRequests":[` + strings.Join(items, ",") + `]`
	if total >= 0 {
		s += fmt.Sprintf(`,"TotalCount":%d`, total)
	}
	return s + `}`
}

func portingNos(prefix string, from, n int) []string {
	nos := make([]string, n)
	for i := range nos {
		nos[i] = fmt.Sprintf("%s%02d", prefix, from+i)
	}
	return nos
}

func TestPortingStatusAllPagesUntilTotalCount(t *testing.T) {
	for _, call := range portingStatusCalls {
		t.Run(call.name, func(t *testing.T) {
			c, mt := newMockClient(t)
			got := sequence(mt, "GET", call.path,
				portingStatusPageJSON(5, "PN01", "PN02"),
				portingStatusPageJSON(5, "PN03", "PN04"),
				portingStatusPageJSON(5, "PN05"),
				portingStatusPageJSON(5, "PN06"),
			)
			p := &PortingStatusParams{From: portingFrom, To: portingTo,
				PortingRequestNumbers: []string{"PN01", "PN02", "PN03", "PN04", "PN05"}, ListParams: ListParams{Count: 2}}
			var nos []string
			for r, err := range call.all(c, call.sid, p) {
				require.NoError(t, err)
				nos = append(nos, r.PortingNo)
			}
			assert.Equal(t, []string{"PN01", "PN02", "PN03", "PN04", "PN05"}, nos)
			require.Len(t, got.Querys, 3, "stops once TotalCount items are seen")
			for i, skip := range []string{"", "2", "4"} {
				q := got.Querys[i]
				assert.Equal(t, skip, q.Get("Results_Skip"), "page %d", i)
				assert.Equal(t, "2", q.Get("Results_Count"), "page %d", i)
				assert.Equal(t, "1795100000", q.Get("From"), "page %d", i)
				assert.Equal(t, "1795300000", q.Get("To"), "page %d", i)
				assert.Equal(t, []string{"PN01,PN02,PN03,PN04,PN05"}, q["PortingRequestNumbers"], "page %d", i)
			}
		})
	}
}

func TestPortingStatusAllStartsAtCallersSkip(t *testing.T) {
	c, mt := newMockClient(t)
	got := sequence(mt, "GET", portingPropertyStatusPath,
		portingStatusPageJSON(7, "PN04", "PN05"),
		portingStatusPageJSON(7, "PN06", "PN07"),
	)
	p := &PortingStatusParams{From: portingFrom, To: portingTo, ListParams: ListParams{Count: 2, Skip: 3}}
	n := 0
	for _, err := range c.Porting.StatusByPropertyAll(bg, testProp, p) {
		require.NoError(t, err)
		n++
	}
	assert.Equal(t, 4, n, "TotalCount 7 less the 3 skipped")
	require.Len(t, got.Querys, 2)
	assert.Equal(t, "3", got.Querys[0].Get("Results_Skip"))
	assert.Equal(t, "5", got.Querys[1].Get("Results_Skip"))
}

func TestPortingStatusAllStopsOnShortPageWithoutTotal(t *testing.T) {
	for _, call := range portingStatusCalls {
		t.Run(call.name, func(t *testing.T) {
			c, mt := newMockClient(t)
			got := sequence(mt, "GET", call.path,
				portingStatusPageJSON(-1, portingNos("PN", 1, 20)...),
				portingStatusPageJSON(-1, portingNos("PN", 21, 3)...),
				portingStatusPageJSON(-1, portingNos("PN", 24, 20)...),
			)
			var nos []string
			for r, err := range call.all(c, call.sid, &PortingStatusParams{From: portingFrom, To: portingTo}) {
				require.NoError(t, err)
				nos = append(nos, r.PortingNo)
			}
			assert.Equal(t, portingNos("PN", 1, 23), nos)
			require.Len(t, got.Querys, 2, "a page shorter than the default 20 ends the listing")
			assert.Empty(t, got.Querys[0].Get("Results_Count"), "the service default applies")
			assert.Empty(t, got.Querys[0].Get("Results_Skip"))
			assert.Equal(t, "20", got.Querys[1].Get("Results_Skip"), "the default page size advances the skip")
		})
	}
}

func TestPortingStatusAllFullPageWithoutTotalAsksAgain(t *testing.T) {
	c, mt := newMockClient(t)
	got := sequence(mt, "GET", portingAccountStatusPath,
		portingStatusPageJSON(-1, portingNos("PN", 1, 20)...),
		portingStatusPageJSON(-1),
	)
	n := 0
	for _, err := range c.Porting.StatusByAccountAll(bg, testSid, &PortingStatusParams{From: portingFrom, To: portingTo}) {
		require.NoError(t, err)
		n++
	}
	assert.Equal(t, 20, n)
	assert.Len(t, got.Querys, 2, "a full page may not be the last; an empty one is")
}

func TestPortingStatusAllBreaksEarly(t *testing.T) {
	for _, call := range portingStatusCalls {
		t.Run(call.name, func(t *testing.T) {
			c, mt := newMockClient(t)
			sequence(mt, "GET", call.path, portingStatusPageJSON(100, "PN01", "PN02"))
			n := 0
			for range call.all(c, call.sid, &PortingStatusParams{From: portingFrom, To: portingTo, ListParams: ListParams{Count: 2}}) {
				n++
				break
			}
			assert.Equal(t, 1, n)
			assert.Equal(t, 1, mt.GetTotalCallCount())
		})
	}
}

func TestPortingStatusAllYieldsAnErrorOnce(t *testing.T) {
	for _, call := range portingStatusCalls {
		t.Run(call.name+"/service error on page 2", func(t *testing.T) {
			c, mt := newMockClient(t)
			var n atomic.Int32
			mt.RegisterResponder("GET", testBase+call.path, func(r *http.Request) (*http.Response, error) {
				if n.Add(1) == 1 {
					return httpmock.NewStringResponse(200, portingStatusPageJSON(4, "PN01", "PN02")), nil
				}
				return httpmock.NewStringResponse(400, `{"ResponseStatus":{"ErrorCode":"FORBIDDEN","Message":"no access"}}`), nil
			})
			var nos []string
			var errs []error
			for r, err := range call.all(c, call.sid, &PortingStatusParams{From: portingFrom, To: portingTo, ListParams: ListParams{Count: 2}}) {
				if err != nil {
					errs = append(errs, err)
					continue
				}
				nos = append(nos, r.PortingNo)
			}
			assert.Equal(t, []string{"PN01", "PN02"}, nos)
			require.Len(t, errs, 1)
			assert.Equal(t, "FORBIDDEN", ErrorCode(errs[0]))
			assert.EqualValues(t, 2, n.Load())
		})
		t.Run(call.name+"/invalid params", func(t *testing.T) {
			c, mt := newMockClient(t)
			var errs []error
			for _, err := range call.all(c, call.sid, &PortingStatusParams{From: portingTo, To: portingFrom}) {
				errs = append(errs, err)
			}
			require.Len(t, errs, 1)
			requireValidation(t, mt, errs[0], call.op, "To", CodeParameterInvalid)

			errs = nil
			for _, err := range call.all(c, call.sid, nil) {
				errs = append(errs, err)
			}
			require.Len(t, errs, 1)
			assert.ErrorAs(t, errs[0], new(*ValidationError))
			assert.Zero(t, mt.GetTotalCallCount())
		})
	}
}

func TestPortingStatusAllLeavesCallersParamsAlone(t *testing.T) {
	for _, call := range portingStatusCalls {
		t.Run(call.name, func(t *testing.T) {
			c, mt := newMockClient(t)
			got := sequence(mt, "GET", call.path,
				portingStatusPageJSON(4, "PN01", "PN02"),
				portingStatusPageJSON(4, "PN03", "PN04"),
			)
			nos := []string{"PN01", "PN02", "PN03", "PN04"}
			p := &PortingStatusParams{From: portingFrom, To: portingTo, PortingRequestNumbers: nos, ListParams: ListParams{Count: 2, Skip: 0}}
			want := PortingStatusParams{From: portingFrom, To: portingTo,
				PortingRequestNumbers: []string{"PN01", "PN02", "PN03", "PN04"}, ListParams: ListParams{Count: 2}}

			seq := call.all(c, call.sid, p)
			n := 0
			for _, err := range seq {
				require.NoError(t, err)
				n++
			}
			assert.Equal(t, 4, n)
			assert.Equal(t, want, *p, "the caller's params are untouched")
			assert.Equal(t, []string{"PN01", "PN02", "PN03", "PN04"}, nos, "the caller's slice is untouched")
			assert.Len(t, got.Querys, 2)

			// The iterator works on its own copy, taken when it is made.
			got = sequence(mt, "GET", call.path, portingStatusPageJSON(1, "PN09"))
			p2 := &PortingStatusParams{From: portingFrom, To: portingTo, PortingRequestNumbers: []string{"PN09"}}
			seq = call.all(c, call.sid, p2)
			p2.PortingRequestNumbers[0] = "PNXX"
			p2.ListParams.Skip = 40
			for _, err := range seq {
				require.NoError(t, err)
			}
			require.Len(t, got.Querys, 1)
			assert.Equal(t, "PN09", got.Querys[0].Get("PortingRequestNumbers"))
			assert.Empty(t, got.Querys[0].Get("Results_Skip"))
		})
	}
}
