package telco

import (
	"encoding/json"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const numbersConfigurePath = "/v2/Numbers/61299999999"

// numbersFullConfig is the configuration of configure_number.json.
var numbersFullConfig = NumberConfig{
	Number:                       "61299999999",
	AccountSid:                   testSid,
	PropertySid:                  testProp,
	Friendly:                     "Sydney reception",
	AddressSid:                   "ADQ7M2K9XW4TBN8RPLZC5VHJ3EYG6DFA",
	AttributionSource:            "google",
	AttributionMedium:            "cpc",
	AttributionCampaign:          "spring-sale",
	AttributionContent:           "banner-a",
	RoutingMethod:                RoutingEndpoint,
	EndpointNumber:               "+61400000000",
	Recording:                    RecordingCall,
	SendSmsFrom:                  "+61299999999",
	SendSmsTo:                    "+61400000001",
	SendEmailFrom:                "sms@acme.example.com",
	SendEmailTo:                  "ops@acme.example.com",
	WebhookURL:                   "https://hooks.example.com/sms",
	WebhookMethod:                "POST",
	DeliveryReceiptWebhookURL:    "https://hooks.example.com/dr",
	DeliveryReceiptWebhookMethod: "GET",
}

func TestNumbersConfigureWire(t *testing.T) {
	c, mt := newMockClient(t)
	got := reply(mt, "POST", numbersConfigurePath, 200, fixture(t, "configure_number.json"))
	p := &NumberConfigParams{
		Friendly:                     "Sydney reception",
		AddressSid:                   "ADQ7M2K9XW4TBN8RPLZC5VHJ3EYG6DFA",
		AttributionSource:            "google",
		AttributionMedium:            "cpc",
		AttributionCampaign:          "spring-sale",
		AttributionContent:           "banner-a",
		RoutingMethod:                RoutingEndpoint,
		EndpointNumber:               "+61400000000",
		Recording:                    RecordingCall,
		SendSmsFrom:                  "+61299999999",
		SendSmsTo:                    "+61400000001",
		SendEmailFrom:                "sms@acme.example.com",
		SendEmailTo:                  "ops@acme.example.com",
		WebhookURL:                   "https://hooks.example.com/sms",
		WebhookMethod:                "post",
		DeliveryReceiptWebhookURL:    "https://hooks.example.com/dr",
		DeliveryReceiptWebhookMethod: "Get",
	}
	before := *p
	cfg, err := c.Numbers.Configure(bg, "+61299999999", p)
	require.NoError(t, err)

	assert.Equal(t, "POST", got.Method)
	assert.Equal(t, numbersConfigurePath, got.Path, "the + is left out of the path")
	assert.Empty(t, got.Query)
	assertCommonHeaders(t, got.Header)
	assert.Equal(t, "application/json", got.Header.Get("Content-Type"))
	assert.Equal(t, map[string]any{
		"Friendly":                     "Sydney reception",
		"AddressSid":                   "ADQ7M2K9XW4TBN8RPLZC5VHJ3EYG6DFA",
		"Attribution_Source":           "google",
		"Attribution_Medium":           "cpc",
		"Attribution_Campaign":         "spring-sale",
		"Attribution_Content":          "banner-a",
		"RoutingMethod":                "Endpoint",
		"EndpointNumber":               "+61400000000",
		"Recording":                    "Call",
		"SendSmsFrom":                  "+61299999999",
		"SendSmsTo":                    "+61400000001",
		"SendEmailFrom":                "sms@acme.example.com",
		"SendEmailTo":                  "ops@acme.example.com",
		"WebHookUrl":                   "https://hooks.example.com/sms",
		"WebHookMethod":                "POST",
		"DeliveryReceiptWebHookUrl":    "https://hooks.example.com/dr",
		"DeliveryReceiptWebHookMethod": "GET",
	}, got.bodyMap(t), "wire names, methods upper-cased")
	assert.Equal(t, before, *p, "the caller's params are untouched")

	require.NotNil(t, cfg)
	assert.Equal(t, &numbersFullConfig, cfg)
}

func TestNumbersConfigureNumberFormsShareOnePath(t *testing.T) {
	for _, number := range []string{"+61299999999", "61299999999"} {
		t.Run(number, func(t *testing.T) {
			c, mt := newMockClient(t)
			got := reply(mt, "POST", numbersConfigurePath, 200, fixture(t, "configure_number.json"))
			cfg, err := c.Numbers.Configure(bg, number, &NumberConfigParams{Friendly: "Reception"})
			require.NoError(t, err)
			assert.Equal(t, 1, mt.GetTotalCallCount())
			assert.Equal(t, numbersConfigurePath, got.Path)
			assert.Equal(t, "61299999999", cfg.Number)
		})
	}
}

func TestNumbersConfigureSendsOnlyWhatIsSet(t *testing.T) {
	c, mt := newMockClient(t)
	got := reply(mt, "POST", numbersConfigurePath, 200, fixture(t, "configure_number.json"))
	_, err := c.Numbers.Configure(bg, "+61299999999", &NumberConfigParams{
		Friendly: "Reception", RoutingMethod: RoutingFlow, Flow: "cfg-20200101-reception", Recording: RecordingOff,
	})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{
		"Friendly": "Reception", "RoutingMethod": "Flow", "Flow": "cfg-20200101-reception", "Recording": "Off",
	}, got.bodyMap(t), "unset fields are absent")
	assert.NotContains(t, string(got.Body), "WebHookMethod", "an empty method is not upper-cased into a value")
}

func TestNumbersConfigureNilParamsSendsAnEmptyObject(t *testing.T) {
	c, mt := newMockClient(t)
	got := reply(mt, "POST", numbersConfigurePath, 200, fixture(t, "configure_number.json"))
	cfg, err := c.Numbers.Configure(bg, "61299999999", nil)
	require.NoError(t, err)
	assert.JSONEq(t, `{}`, string(got.Body))
	assert.Equal(t, "application/json", got.Header.Get("Content-Type"))
	assert.Equal(t, &numbersFullConfig, cfg)
}

func TestNumbersConfigureDecodesTheBareResource(t *testing.T) {
	c, mt := newMockClient(t)
	reply(mt, "POST", numbersConfigurePath, 200, fixture(t, "configure_number_bare.json"))
	cfg, err := c.Numbers.Configure(bg, "+61299999999", &NumberConfigParams{RoutingMethod: RoutingFlow, Flow: "cfg-20200101-reception"})
	require.NoError(t, err, "a bare resource's Number is a string, not an envelope")
	assert.Equal(t, &NumberConfig{
		Number:        "61299999999",
		AccountSid:    testSid,
		PropertySid:   testProp,
		Friendly:      "Sydney reception",
		RoutingMethod: RoutingFlow,
		Flow:          "cfg-20200101-reception",
		Recording:     RecordingOff,
		WebhookURL:    "https://hooks.example.com/sms",
		WebhookMethod: "GET",
	}, cfg)
}

func TestNumbersConfigureAnswerWithoutTheResource(t *testing.T) {
	c, mt := newMockClient(t)
	reply(mt, "POST", numbersConfigurePath, 200, []byte(`{"Friendly":"x"}`))
	cfg, err := c.Numbers.Configure(bg, "+61299999999", nil)
	assert.Nil(t, cfg)
	var ae *APIError
	require.ErrorAs(t, err, &ae, "a 200 without the number is not a success")
	assert.Equal(t, "Numbers.Configure", ae.Op)
}

func TestNumbersConfigureIsRetriedAsIdempotent(t *testing.T) {
	c, mt := newMockClient(t, WithRetryPolicy(RetryPolicy{MaxRetries: 2, MinWait: time.Millisecond, MaxWait: 2 * time.Millisecond}))
	var n atomic.Int32
	var bodies [][]byte
	mt.RegisterResponder("POST", testBase+numbersConfigurePath, func(r *http.Request) (*http.Response, error) {
		s := &seen{}
		s.record(r)
		bodies = append(bodies, s.Body)
		if n.Add(1) == 1 {
			resp := httpmock.NewStringResponse(503, `{"ResponseStatus":{"ErrorCode":"SERVICE_UNAVAILABLE","Message":"Try again."}}`)
			resp.Header.Set("Content-Type", "application/json")
			return resp, nil
		}
		resp := httpmock.NewBytesResponse(200, fixture(t, "configure_number.json"))
		resp.Header.Set("Content-Type", "application/json")
		return resp, nil
	})
	cfg, err := c.Numbers.Configure(bg, "+61299999999", &NumberConfigParams{Friendly: "Sydney reception", WebhookMethod: "get"})
	require.NoError(t, err, "a 503 on an idempotent call is retried")
	assert.Equal(t, int32(2), n.Load())
	require.Len(t, bodies, 2)
	assert.JSONEq(t, `{"Friendly":"Sydney reception","WebHookMethod":"GET"}`, string(bodies[0]))
	assert.Equal(t, bodies[0], bodies[1], "the retry re-sends the same body")
	assert.Equal(t, &numbersFullConfig, cfg)
}

func TestNumbersConfigureAPIError(t *testing.T) {
	c, mt := newMockClient(t)
	got := reply(mt, "POST", numbersConfigurePath, 400, fixture(t, "configure_number_error.json"))
	cfg, err := c.Numbers.Configure(bg, "+61299999999", &NumberConfigParams{Friendly: "Reception"})
	assert.Nil(t, cfg)
	var ae *APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, 400, ae.StatusCode)
	assert.Equal(t, CodeNumberBelongsToDifferentProperty, ae.Code)
	assert.Equal(t, "The number 61299999999 belongs to a different property.", ae.Message)
	assert.Equal(t, []FieldError{{FieldName: "Number"}}, ae.Fields)
	assert.Equal(t, "Numbers.Configure", ae.Op)
	assert.Equal(t, CodeNumberBelongsToDifferentProperty, ErrorCode(err))
	assert.NotErrorIs(t, err, ErrMaybeSent, "configuring is idempotent")
	assert.Equal(t, 1, mt.GetTotalCallCount(), "a 400 is not retried")
	assert.Equal(t, "Reception", got.bodyMap(t)["Friendly"])
}

func TestNumbersConfigureValidation(t *testing.T) {
	cases := []struct {
		why    string
		number string
		p      NumberConfigParams
		field  string
		code   string
	}{
		{"a number in local form", "0299999999", NumberConfigParams{}, "Number", CodeInvalidPhoneNumberFormat},
		{"a number with spaces", "+61 2 9999", NumberConfigParams{}, "Number", CodeInvalidPhoneNumberFormat},
		{"a number of letters", "abc", NumberConfigParams{}, "Number", CodeInvalidPhoneNumberFormat},
		{"a number of 6 digits", "+612999", NumberConfigParams{}, "Number", CodeInvalidPhoneNumberFormat},
		{"a number of 16 digits", "+6129999999999999", NumberConfigParams{}, "Number", CodeInvalidPhoneNumberFormat},
		{"Endpoint routing without EndpointNumber", "+61299999999",
			NumberConfigParams{RoutingMethod: RoutingEndpoint}, "EndpointNumber", CodeParameterRequired},
		{"EndpointNumber with a space", "+61299999999",
			NumberConfigParams{RoutingMethod: RoutingEndpoint, EndpointNumber: "+61 400000000"}, "EndpointNumber", CodeInvalidPhoneNumberFormat},
		{"EndpointNumber in local form", "+61299999999",
			NumberConfigParams{RoutingMethod: RoutingEndpoint, EndpointNumber: "0400000000"}, "EndpointNumber", CodeInvalidPhoneNumberFormat},
		{"Flow routing without Flow", "+61299999999",
			NumberConfigParams{RoutingMethod: RoutingFlow}, "Flow", CodeParameterRequired},
		{"RoutingMethod Voicemail", "+61299999999",
			NumberConfigParams{RoutingMethod: "Voicemail"}, "RoutingMethod", CodeParameterInvalid},
		{"Recording On", "+61299999999", NumberConfigParams{Recording: "On"}, "Recording", CodeParameterInvalid},
		{"WebhookMethod PUT", "+61299999999", NumberConfigParams{WebhookMethod: "PUT"}, "WebHookMethod", CodeParameterInvalid},
		{"DeliveryReceiptWebhookMethod DELETE", "+61299999999",
			NumberConfigParams{DeliveryReceiptWebhookMethod: "DELETE"}, "DeliveryReceiptWebHookMethod", CodeParameterInvalid},
		{"SendEmailTo not an address", "+61299999999", NumberConfigParams{SendEmailTo: "nope"}, "SendEmailTo", CodeParameterInvalid},
		{"SendEmailFrom without a dotted domain", "+61299999999", NumberConfigParams{SendEmailFrom: "sms@acme"}, "SendEmailFrom", CodeParameterInvalid},
		{"SendSmsTo in local form", "+61299999999", NumberConfigParams{SendSmsTo: "0400000000"}, "SendSmsTo", CodeInvalidPhoneNumberFormat},
		{"SendSmsFrom in local form", "+61299999999", NumberConfigParams{SendSmsFrom: "0299999999"}, "SendSmsFrom", CodeInvalidPhoneNumberFormat},
		{"SendSmsFrom a sender ID too long", "+61299999999", NumberConfigParams{SendSmsFrom: "AcmeWidgetsLtd"}, "SendSmsFrom", CodeInvalidPhoneNumberFormat},
		{"WebhookURL relative", "+61299999999", NumberConfigParams{WebhookURL: "/hooks/sms"}, "WebHookUrl", CodeParameterInvalid},
		{"DeliveryReceiptWebhookURL not http", "+61299999999",
			NumberConfigParams{DeliveryReceiptWebhookURL: "ftp://hooks.example.com/dr"}, "DeliveryReceiptWebHookUrl", CodeParameterInvalid},
	}
	for _, tc := range cases {
		t.Run(tc.why, func(t *testing.T) {
			c, mt := newMockClient(t)
			p := tc.p
			_, err := c.Numbers.Configure(bg, tc.number, &p)
			requireValidation(t, mt, err, "Numbers.Configure", tc.field, tc.code)
			assert.Equal(t, tc.code, ErrorCode(err))
			if tc.field != "Number" {
				require.ErrorAs(t, p.Validate(), new(*ValidationError), "Validate agrees")
			}
		})
	}
}

func TestNumbersConfigureValidationBoundariesPass(t *testing.T) {
	cases := []struct {
		why    string
		number string
		path   string
		p      NumberConfigParams
		check  func(t *testing.T, body map[string]any)
	}{
		{"Recording Off", "+61299999999", numbersConfigurePath, NumberConfigParams{Recording: RecordingOff},
			func(t *testing.T, body map[string]any) { assert.Equal(t, "Off", body["Recording"]) }},
		{"Recording Call", "+61299999999", numbersConfigurePath, NumberConfigParams{Recording: RecordingCall},
			func(t *testing.T, body map[string]any) { assert.Equal(t, "Call", body["Recording"]) }},
		{"methods in any case", "+61299999999", numbersConfigurePath,
			NumberConfigParams{WebhookMethod: "get", DeliveryReceiptWebhookMethod: "Post"},
			func(t *testing.T, body map[string]any) {
				assert.Equal(t, "GET", body["WebHookMethod"])
				assert.Equal(t, "POST", body["DeliveryReceiptWebHookMethod"])
			}},
		{"Endpoint with an E.164 number", "+61299999999", numbersConfigurePath,
			NumberConfigParams{RoutingMethod: RoutingEndpoint, EndpointNumber: "+61400000000"},
			func(t *testing.T, body map[string]any) {
				assert.Equal(t, "Endpoint", body["RoutingMethod"])
				assert.Equal(t, "+61400000000", body["EndpointNumber"])
			}},
		{"Flow with a Flow", "+61299999999", numbersConfigurePath,
			NumberConfigParams{RoutingMethod: RoutingFlow, Flow: "cfg-1"},
			func(t *testing.T, body map[string]any) { assert.Equal(t, "cfg-1", body["Flow"]) }},
		{"http webhook URLs", "+61299999999", numbersConfigurePath,
			NumberConfigParams{WebhookURL: "http://hooks.example.com/sms", DeliveryReceiptWebhookURL: "https://hooks.example.com:8443/dr?x=1"},
			func(t *testing.T, body map[string]any) {
				assert.Equal(t, "http://hooks.example.com/sms", body["WebHookUrl"])
				assert.Equal(t, "https://hooks.example.com:8443/dr?x=1", body["DeliveryReceiptWebHookUrl"])
			}},
		{"forwarding to valid numbers and addresses", "+61299999999", numbersConfigurePath,
			NumberConfigParams{SendSmsFrom: "+61299999999", SendSmsTo: "+61400000001", SendEmailFrom: "a@b.example", SendEmailTo: "ops@acme.example.com"},
			func(t *testing.T, body map[string]any) { assert.Equal(t, "+61400000001", body["SendSmsTo"]) }},
		// The interface document writes this operation's numbers without
		// their +: both forms pass and are sent as given.
		{"EndpointNumber without its +", "+61299999999", numbersConfigurePath,
			NumberConfigParams{RoutingMethod: RoutingEndpoint, EndpointNumber: "61400000000"},
			func(t *testing.T, body map[string]any) { assert.Equal(t, "61400000000", body["EndpointNumber"]) }},
		{"SendSmsFrom and SendSmsTo without their +", "+61299999999", numbersConfigurePath,
			NumberConfigParams{SendSmsFrom: "61299999999", SendSmsTo: "61400000000"},
			func(t *testing.T, body map[string]any) {
				assert.Equal(t, "61299999999", body["SendSmsFrom"])
				assert.Equal(t, "61400000000", body["SendSmsTo"])
			}},
		{"SendSmsFrom as a sender ID", "+61299999999", numbersConfigurePath, NumberConfigParams{SendSmsFrom: "Acme"},
			func(t *testing.T, body map[string]any) { assert.Equal(t, "Acme", body["SendSmsFrom"]) }},
		{"a 7-digit number", "+6831234", "/v2/Numbers/6831234", NumberConfigParams{},
			func(t *testing.T, body map[string]any) { assert.Empty(t, body) }},
		{"a 15-digit number", "123456789012345", "/v2/Numbers/123456789012345", NumberConfigParams{},
			func(t *testing.T, body map[string]any) { assert.Empty(t, body) }},
	}
	for _, tc := range cases {
		t.Run(tc.why, func(t *testing.T) {
			c, mt := newMockClient(t)
			got := reply(mt, "POST", tc.path, 200, fixture(t, "configure_number.json"))
			p := tc.p
			_, err := c.Numbers.Configure(bg, tc.number, &p)
			require.NoError(t, err)
			assert.Equal(t, 1, mt.GetTotalCallCount())
			assert.Equal(t, tc.path, got.Path)
			tc.check(t, got.bodyMap(t))
			assert.NoError(t, p.Validate())
		})
	}
}

func TestNumbersConfigureWithoutValidationSendsAsGiven(t *testing.T) {
	c, mt := newMockClient(t, WithClientValidation(false))
	got := reply(mt, "POST", "/v2/Numbers/0299999999", 400,
		[]byte(`{"ResponseStatus":{"ErrorCode":"INVALID_PHONENUMBER_FORMAT","Message":"The Number parameter is not in E.164 format.","Errors":[{"FieldName":"Number"}]}}`))
	_, err := c.Numbers.Configure(bg, "0299999999", &NumberConfigParams{Recording: "On"})
	var ae *APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, CodeInvalidPhoneNumberFormat, ae.Code)
	assert.Equal(t, "/v2/Numbers/0299999999", got.Path)
	assert.Equal(t, "On", got.bodyMap(t)["Recording"])
}

func TestNumbersConfigureClearSendsEmptyValues(t *testing.T) {
	c, mt := newMockClient(t)
	got := reply(mt, "POST", numbersConfigurePath, 200, fixture(t, "configure_number.json"))
	p := &NumberConfigParams{Friendly: "Reception", Clear: []NumberField{
		NumberFieldAddressSid, NumberFieldWebhookURL, NumberFieldWebhookMethod, NumberFieldSendSmsTo}}
	before := append([]NumberField(nil), p.Clear...)
	_, err := c.Numbers.Configure(bg, "+61299999999", p)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{
		"Friendly": "Reception", "AddressSid": "", "WebHookUrl": "", "WebHookMethod": "", "SendSmsTo": "",
	}, got.bodyMap(t), "each cleared field is its wire name with an empty string; nothing else is added")
	assert.NotContains(t, string(got.Body), "Clear", "Clear itself never travels")
	assert.Equal(t, before, p.Clear, "the caller's params are untouched")
}

func TestNumbersConfigureClearEveryClearableField(t *testing.T) {
	c, mt := newMockClient(t)
	got := reply(mt, "POST", numbersConfigurePath, 200, fixture(t, "configure_number.json"))
	_, err := c.Numbers.Configure(bg, "61299999999", &NumberConfigParams{Clear: ClearableNumberFields()})
	require.NoError(t, err)
	want := map[string]any{}
	for _, f := range ClearableNumberFields() {
		want[string(f)] = ""
	}
	assert.Len(t, want, 14)
	assert.Equal(t, want, got.bodyMap(t))
}

func TestNumbersConfigureClearValidation(t *testing.T) {
	cases := []struct {
		why   string
		p     NumberConfigParams
		field string
		code  string
	}{
		{"set and cleared at once is ambiguous", NumberConfigParams{AddressSid: "ADQ7M2K9XW4TBN8RPLZC5VHJ3EYG6DFA",
			Clear: []NumberField{NumberFieldAddressSid}}, "AddressSid", CodeConflictingParameters},
		{"routing is replaced, never emptied", NumberConfigParams{Clear: []NumberField{"RoutingMethod"}}, "Clear[0]", CodeParameterInvalid},
		{"recording is Off, not empty", NumberConfigParams{Clear: []NumberField{"Recording"}}, "Clear[0]", CodeParameterInvalid},
		{"an unknown name", NumberConfigParams{Clear: []NumberField{NumberFieldFriendly, "Adress"}}, "Clear[1]", CodeParameterInvalid},
		{"a Go name instead of the wire name", NumberConfigParams{Clear: []NumberField{"WebhookURL"}}, "Clear[0]", CodeParameterInvalid},
		{"the same field twice", NumberConfigParams{Clear: []NumberField{NumberFieldFriendly, NumberFieldFriendly}}, "Clear[1]", CodeParameterInvalid},
	}
	for _, tc := range cases {
		t.Run(tc.why, func(t *testing.T) {
			c, mt := newMockClient(t)
			_, err := c.Numbers.Configure(bg, "+61299999999", &tc.p)
			var ve *ValidationError
			require.ErrorAs(t, err, &ve)
			require.Len(t, ve.Fields, 1, "%v", ve)
			assert.Equal(t, tc.field, ve.Fields[0].FieldName)
			assert.Equal(t, tc.code, ve.Fields[0].Code)
			assert.Equal(t, 0, mt.GetTotalCallCount(), "refused before any request")
			assert.Error(t, tc.p.Validate(), "Validate agrees")
		})
	}
	var ve *ValidationError
	require.ErrorAs(t, (&NumberConfigParams{Clear: []NumberField{"Flow"}}).Validate(), &ve)
	assert.Contains(t, ve.Fields[0].Message, "clearable fields are Friendly, AddressSid,", "the message lists what can be cleared")
}

// The answer of Get Numbers is not documented: the configuration fields
// and the inferred ones are decoded, the documentation's own spelling
// "Capabilites" is read as Capabilities, and every member not taken by a
// typed field (an unknown name, or a value of another type than guessed)
// stays reachable in Extra.
func TestNumbersGetDecodesInferredShape(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t)
	got := reply(mt, "GET", numbersConfigurePath, 200, fixture(t, "get_number.json"))
	n, err := c.Numbers.Get(bg, "+61299999999")
	require.NoError(t, err)
	assert.Equal(t, "GET", got.Method)
	assert.Equal(t, numbersConfigurePath, got.Path, "the + is left out of the path")
	assertCommonHeaders(t, got.Header)
	assert.Empty(t, got.Body)

	assert.Equal(t, "61299999999", n.Number)
	assert.Equal(t, testProp, n.PropertySid)
	assert.Equal(t, RoutingFlow, n.RoutingMethod)
	assert.Equal(t, "cfg-reception-01", n.Flow)
	assert.Equal(t, RecordingCall, n.Recording)
	assert.Equal(t, NumberLocal, n.Type)
	assert.Equal(t, NumberCapabilities{CapabilityVoice, CapabilitySMS}, n.Capabilities)
	assert.True(t, n.Capabilities.Has(CapabilitySMS))
	assert.False(t, n.Capabilities.Has(CapabilityMMS))
	assert.Equal(t, NumberActive, n.Status)
	assert.Equal(t, "Sydney", n.City)
	assert.Equal(t, "AU", n.CountryCode)
	assert.Equal(t, "Local", n.AddressRequirement)
	assert.Equal(t, map[string]json.RawMessage{
		"Duration":  json.RawMessage(`"n/a"`),
		"DateAdded": json.RawMessage(`1700000000`),
		"Tags":      json.RawMessage(`["reception","main"]`),
	}, n.Extra, "kept as sent, written compactly")

	// Written back, the unknown members sit beside the typed ones.
	b, err := json.Marshal(n)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	assert.Equal(t, "n/a", m["Duration"])
	assert.Equal(t, "Voice,SMS", m["Capabilities"])
	assert.Equal(t, "61299999999", m["Number"])
	assert.NotContains(t, m, "Extra")
}

func TestNumbersGetWrapped(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t)
	reply(mt, "GET", numbersConfigurePath, 200, []byte(`{"Number":{"Number":"61299999999","Type":"Toll-Free","Weird":1}}`))
	n, err := c.Numbers.Get(bg, "61299999999")
	require.NoError(t, err)
	assert.Equal(t, "61299999999", n.Number)
	assert.Equal(t, NumberTollFree, n.Type)
	assert.Equal(t, map[string]json.RawMessage{"Weird": json.RawMessage(`1`)}, n.Extra)
}

func TestNumbersListWire(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		path string
		list func(c *Client, p *ListNumbersParams) (*Page[Number], error)
	}{
		{"by property", "/v2/Properties/" + testProp + "/Numbers", func(c *Client, p *ListNumbersParams) (*Page[Number], error) {
			return c.Numbers.ListByProperty(bg, testProp, p)
		}},
		{"by account", "/v2/Accounts/" + testSid + "/Numbers", func(c *Client, p *ListNumbersParams) (*Page[Number], error) {
			return c.Numbers.ListByAccount(bg, testSid, p)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, mt := newMockClient(t)
			got := reply(mt, "GET", tc.path, 200, fixture(t, "list_numbers.json"))
			page, err := tc.list(c, &ListNumbersParams{
				Types:        []NumberType{NumberLocal, NumberTollFree},
				Capabilities: []NumberCapability{CapabilityVoice, CapabilitySMS},
				ListParams:   ListParams{Count: 200, Skip: 10},
			})
			require.NoError(t, err)
			assert.Equal(t, "GET", got.Method)
			assert.Equal(t, tc.path, got.Path)
			assertCommonHeaders(t, got.Header)
			assert.Equal(t, url.Values{
				"Type":          {"Local,Toll-Free"},
				"Capabilites":   {"Voice,SMS"},
				"Results_Count": {"200"},
				"Results_Skip":  {"10"},
			}, got.Query, "comma-separated filters, under the documentation's spelling Capabilites")
			assert.Equal(t, 2, page.TotalCount)
			require.Len(t, page.Items, 2)
			assert.Equal(t, NumberCapabilities{CapabilityVoice, CapabilitySMS}, page.Items[0].Capabilities, "an array is read too")
			assert.Equal(t, "61400000000", page.Items[0].EndpointNumber)
			assert.Equal(t, NumberPending, page.Items[1].Status)
			assert.Equal(t, json.RawMessage(`"Telstra"`), page.Items[1].Extra["Carrier"])
		})
	}
}

func TestNumbersListAllCopiesFilters(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t)
	got := sequence(mt, "GET", "/v2/Accounts/"+testSid+"/Numbers",
		`{"Numbers":[{"Number":"1"},{"Number":"2"}]}`, `{"Numbers":[{"Number":"3"}]}`)
	p := &ListNumbersParams{Types: []NumberType{NumberNational}, ListParams: ListParams{Count: 2}}
	var nums []string
	for n, err := range c.Numbers.ListByAccountAll(bg, testSid, p) {
		require.NoError(t, err)
		nums = append(nums, n.Number)
		p.Types[0] = NumberLocal // the iterator holds its own copy
	}
	assert.Equal(t, []string{"1", "2", "3"}, nums)
	require.Len(t, got.Querys, 2)
	assert.Equal(t, "National", got.Querys[1].Get("Type"))
	assert.Equal(t, "2", got.Querys[1].Get("Results_Skip"))
}

func TestNumbersPurchaseWire(t *testing.T) {
	t.Parallel()
	path := "/v2/Properties/" + testProp + "/Numbers"
	for _, number := range []string{"+61299990001", "61299990001"} {
		t.Run(number, func(t *testing.T) {
			c, mt := newMockClient(t)
			got := reply(mt, "POST", path, 200, fixture(t, "purchase_number.json"))
			res, err := c.Numbers.Purchase(bg, testProp, &PurchaseNumberParams{Number: number, AddressSid: "ADQ7"})
			require.NoError(t, err)
			assert.Equal(t, "POST", got.Method)
			assert.Equal(t, path, got.Path)
			assertCommonHeaders(t, got.Header)
			assert.Equal(t, "application/json", got.Header.Get("Content-Type"))
			assert.Equal(t, map[string]any{"Number": "+61299990001", "AddressSid": "ADQ7"}, got.bodyMap(t),
				"Number in E.164 with its +")
			assert.Equal(t, &NumberPurchase{Number: "+61299990001", Status: NumberPending}, res)
		})
	}
}

func TestNumbersPurchaseOmitsAddress(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t)
	got := reply(mt, "POST", "/v2/Properties/"+testProp+"/Numbers", 200, []byte(`{"Number":{"Number":"+61299990001","Status":"Active","Cost":"1.00"}}`))
	res, err := c.Numbers.Purchase(bg, testProp, &PurchaseNumberParams{Number: "+61299990001"})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"Number": "+61299990001"}, got.bodyMap(t))
	assert.Equal(t, NumberActive, res.Status)
	assert.Equal(t, json.RawMessage(`"1.00"`), res.Extra["Cost"])
}

// A purchase is not idempotent: a failure after the request may have
// reached the service is not retried and matches ErrMaybeSent, as a send.
func TestNumbersPurchaseIsNotRetried(t *testing.T) {
	t.Parallel()
	fast := RetryPolicy{MaxRetries: 2, MinWait: time.Millisecond, MaxWait: 2 * time.Millisecond}
	c, mt := newMockClient(t, WithRetryPolicy(fast))
	reply(mt, "POST", "/v2/Properties/"+testProp+"/Numbers", 503,
		[]byte(`{"ResponseStatus":{"ErrorCode":"SERVICE_UNAVAILABLE","Message":"try later"}}`))
	_, err := c.Numbers.Purchase(bg, testProp, &PurchaseNumberParams{Number: "+61299990001"})
	require.Error(t, err)
	assert.Equal(t, 1, mt.GetTotalCallCount(), "one attempt only")
	assert.ErrorIs(t, err, ErrMaybeSent)

	// A 200 without the purchase in it took effect all the same.
	c2, mt2 := newMockClient(t)
	reply(mt2, "POST", "/v2/Properties/"+testProp+"/Numbers", 200, []byte(`{"Other":1}`))
	_, err = c2.Numbers.Purchase(bg, testProp, &PurchaseNumberParams{Number: "+61299990001"})
	assert.ErrorIs(t, err, ErrMaybeSent)

	// A refusal did not buy anything.
	c3, mt3 := newMockClient(t)
	reply(mt3, "POST", "/v2/Properties/"+testProp+"/Numbers", 400,
		[]byte(`{"ResponseStatus":{"ErrorCode":"NUMBER_BELONGS_TO_DIFFERENT_PROPERTY","Message":"taken"}}`))
	_, err = c3.Numbers.Purchase(bg, testProp, &PurchaseNumberParams{Number: "+61299990001"})
	assert.Equal(t, CodeNumberBelongsToDifferentProperty, ErrorCode(err))
	assert.False(t, errors.Is(err, ErrMaybeSent))
}

func TestNumbersListValidation(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, why string
		p         ListNumbersParams
		field     string
	}{
		{"unknown type", "Type takes four documented values", ListNumbersParams{Types: []NumberType{"Mobile"}}, "Type"},
		{"unknown capability", "capabilities are Voice, SMS and MMS", ListNumbersParams{Capabilities: []NumberCapability{"Fax"}}, "Capabilites"},
		{"count over 200", "Results_Count is at most 200", ListNumbersParams{ListParams: ListParams{Count: 201}}, "Results_Count"},
		{"negative skip", "Results_Skip is not negative", ListNumbersParams{ListParams: ListParams{Skip: -1}}, "Results_Skip"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, mt := newMockClient(t)
			_, err := c.Numbers.ListByProperty(bg, testProp, &tc.p)
			requireValidation(t, mt, err, "Numbers.ListByProperty", tc.field, CodeParameterInvalid)
		})
	}
}

// numberSettings is the one list of a number configuration's fields; what
// Go needs declared by hand agrees with it: a setting for each field of
// NumberConfigParams, in order; NumberConfig reading each under its wire
// name; a NumberField constant for each clearable one, and no other.
func TestNumberSettingsMatchTheTypes(t *testing.T) {
	t.Parallel()
	var p NumberConfigParams
	pv := reflect.ValueOf(&p).Elem()
	var fields []reflect.StructField
	for i := range pv.NumField() {
		if f := pv.Type().Field(i); f.Name != "Clear" {
			fields = append(fields, f)
		}
	}
	require.Len(t, numberSettings, len(fields), "a setting for each field of NumberConfigParams")
	answer := reflect.TypeFor[NumberConfig]()
	for i, s := range numberSettings {
		f := fields[i]
		assert.Equal(t, pv.FieldByIndex(f.Index).Addr().Pointer(), reflect.ValueOf(s.of(&p)).Pointer(),
			"setting %d (%s) holds NumberConfigParams.%s", i, s.name, f.Name)
		assert.Empty(t, f.Tag, "NumberConfigParams.%s: a params type is not the wire format", f.Name)
		af, ok := answer.FieldByName(f.Name)
		if assert.True(t, ok, "NumberConfig has %s", f.Name) {
			name, _, _ := strings.Cut(af.Tag.Get("json"), ",")
			assert.Equal(t, string(s.name), name, "NumberConfig.%s reads the wire name", f.Name)
		}
	}
	assert.Equal(t, len(numberSettings)+3, answer.NumField(), "NumberConfig: the settings, Number, AccountSid and PropertySid")

	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "numbers.go", nil, 0)
	require.NoError(t, err)
	var consts []NumberField
	ast.Inspect(file, func(n ast.Node) bool {
		if vs, ok := n.(*ast.ValueSpec); ok {
			if id, ok := vs.Type.(*ast.Ident); ok && id.Name == "NumberField" {
				for _, v := range vs.Values {
					lit, err := strconv.Unquote(v.(*ast.BasicLit).Value)
					require.NoError(t, err)
					consts = append(consts, NumberField(lit))
				}
			}
		}
		return true
	})
	assert.Equal(t, consts, ClearableNumberFields(), "the NumberField constants, in order, are the clearable settings")
}

// Adding a field to the list is what makes it sent, clearable and
// checked: the body, Clear's check and the field rules all follow it.
func TestNumberSettingsDriveTheBodyAndTheRules(t *testing.T) {
	t.Parallel()
	var p NumberConfigParams
	for i, s := range numberSettings {
		*s.of(&p) = "v" + strconv.Itoa(i)
	}
	body := p.wire()
	require.Len(t, body, len(numberSettings), "every field set is sent")
	for i, s := range numberSettings {
		want := "v" + strconv.Itoa(i)
		if s.upper {
			want = strings.ToUpper(want)
		}
		assert.Equal(t, want, body[string(s.name)], s.name)
	}
	// Every clearable field set and cleared at once is a conflict on each.
	p.Clear = ClearableNumberFields()
	var conflicts []string
	for _, fe := range p.check() {
		if fe.Code == CodeConflictingParameters {
			conflicts = append(conflicts, fe.FieldName)
		}
	}
	var clearable []string
	for _, f := range ClearableNumberFields() {
		clearable = append(clearable, string(f))
	}
	assert.Equal(t, clearable, conflicts)
}
