package telco

import (
	"net/http"
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
