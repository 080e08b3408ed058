package telco

import (
	"errors"
	"net/http"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const testBlock = "NBJ3K4L5M6N7P8Q9R2S3T4U5V6W7X8Y9"

func TestPurchaseNumberBlockWire(t *testing.T) {
	c, mt := newMockClient(t)
	got := reply(mt, "POST", "/v2/Properties/"+testProp+"/NumberBlocks", 200, fixture(t, "purchase_number_block.json"))
	res, err := c.NumberBlocks.Purchase(bg, testProp, &PurchaseNumberBlockParams{
		AnswerPoint: "+61299990000", GroupType: Ptr(0), Preamble: Ptr(2), RoutingAction: Ptr(3), Dialplan: "AU-Std",
		Extra: map[string]any{"BlockSize": 100}})
	require.NoError(t, err)
	assert.Equal(t, "POST", got.Method)
	assertCommonHeaders(t, got.Header)
	assert.Equal(t, "application/json", got.Header.Get("Content-Type"))
	assert.JSONEq(t, `{"AnswerPoint":"+61299990000","PropertySid":"`+testProp+`","GroupType":0,"Preamble":2,
		"RoutingAction":3,"Diaplan":"AU-Std","BlockSize":100}`, string(got.Body),
		"the path's project is the owner when none is given; Dialplan goes by the page's spelling; Extra is merged")

	assert.Equal(t, testBlock, res.NumberBlockSid)
	assert.Nil(t, res.Block, "the confirmation holds no block")
	assert.JSONEq(t, string(fixture(t, "purchase_number_block.json")), string(res.Raw), "the answer stays reachable")

	// An account owner is sent alone.
	_, err = c.NumberBlocks.Purchase(bg, testProp, &PurchaseNumberBlockParams{AnswerPoint: "0299990000", AccountSid: testSid})
	require.NoError(t, err)
	assert.JSONEq(t, `{"AnswerPoint":"0299990000","AccountSid":"`+testSid+`"}`, string(got.Body))
}

func TestPurchaseNumberBlockTolerantAnswers(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		sid        string
		block      bool
	}{
		{"empty", ``, "", false},
		{"bare block", `{"NumberBlockSid":"NB1","Id":7,"BlockSize":100}`, "NB1", true},
		{"wrapped block", `{"NumberBlock":{"NumberBlockSid":"NB2","Id":"8"}}`, "NB2", true},
		{"under Data", `{"Data":{"NumberBlockSid":"NB3"}}`, "NB3", true},
		{"a bare word", `"OK"`, "", false},
		{"unknown object", `{"Confirmation":"C-1"}`, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, mt := newMockClient(t)
			reply(mt, "POST", "/v2/Properties/"+testProp+"/NumberBlocks", 200, []byte(tc.body))
			res, err := c.NumberBlocks.Purchase(bg, testProp, &PurchaseNumberBlockParams{AnswerPoint: "0299990000"})
			require.NoError(t, err)
			assert.Equal(t, tc.sid, res.NumberBlockSid)
			assert.Equal(t, tc.block, res.Block != nil)
			if tc.body != "" {
				assert.JSONEq(t, tc.body, string(res.Raw))
			}
		})
	}
}

// Purchase is not idempotent: a failure after the request may have reached
// the service is not retried and matches ErrMaybeSent.
func TestPurchaseNumberBlockIsNotRetriedBlindly(t *testing.T) {
	c, mt := newMockClient(t, WithRetryPolicy(RetryPolicy{MaxRetries: 3, MinWait: 1, MaxWait: 2}))
	mt.RegisterResponder("POST", testBase+"/v2/Properties/"+testProp+"/NumberBlocks",
		httpmock.NewStringResponder(http.StatusBadGateway, "bad gateway"))
	_, err := c.NumberBlocks.Purchase(bg, testProp, &PurchaseNumberBlockParams{AnswerPoint: "0299990000"})
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrMaybeSent)
	assert.Equal(t, 1, mt.GetTotalCallCount())

	// Configure sets a routing: repeating it is harmless, so it is retried.
	mt.RegisterResponder("POST", testBase+"/v2/numberblocks/NB1", httpmock.ResponderFromMultipleResponses(
		[]*http.Response{httpmock.NewStringResponse(http.StatusBadGateway, ""), httpmock.NewStringResponse(200, `{"NumberBlockSid":"NB1"}`)}))
	res, err := c.NumberBlocks.Configure(bg, "NB1", &ConfigureNumberBlockParams{RoutingMethod: BlockRoutingFlow, Flow: "F1"})
	require.NoError(t, err)
	assert.Equal(t, "NB1", res.NumberBlockSid)
	assert.Equal(t, 3, mt.GetTotalCallCount())
}

func TestPurchaseNumberBlockValidation(t *testing.T) {
	for _, tc := range []struct {
		name        string
		p           PurchaseNumberBlockParams
		field, code string
	}{
		{"the answer point is required", PurchaseNumberBlockParams{}, "AnswerPoint", CodeParameterRequired},
		{"GroupType is 0 or 1", PurchaseNumberBlockParams{AnswerPoint: "0299990000", GroupType: Ptr(2)}, "GroupType", CodeParameterInvalid},
		{"Preamble is 0 to 2", PurchaseNumberBlockParams{AnswerPoint: "0299990000", Preamble: Ptr(-1)}, "Preamble", CodeParameterInvalid},
		{"RoutingAction is 0 to 3", PurchaseNumberBlockParams{AnswerPoint: "0299990000", RoutingAction: Ptr(4)}, "RoutingAction", CodeParameterInvalid},
		{"Extra cannot override a field", PurchaseNumberBlockParams{AnswerPoint: "0299990000", Extra: map[string]any{"answerpoint": "x"}},
			"Extra.answerpoint", CodeConflictingParameters},
		{"the project is the path's", PurchaseNumberBlockParams{AnswerPoint: "0299990000", PropertySid: "PROTHER"}, "PropertySid", CodeConflictingParameters},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, mt := newMockClient(t)
			_, err := c.NumberBlocks.Purchase(bg, testProp, &tc.p)
			requireValidation(t, mt, err, "NumberBlocks.Purchase", tc.field, tc.code)
		})
	}
}

func TestConfigureNumberBlockWire(t *testing.T) {
	c, mt := newMockClient(t)
	got := reply(mt, "POST", "/v2/numberblocks/"+testBlock, 200, fixture(t, "configure_number_block.json"))
	res, err := c.NumberBlocks.Configure(bg, testBlock, &ConfigureNumberBlockParams{RoutingMethod: "Endpoint", EndpointNumber: "+61299990000"})
	require.NoError(t, err)
	assert.Equal(t, "POST", got.Method)
	assertCommonHeaders(t, got.Header)
	assert.JSONEq(t, `{"RoutingMethod":"endpoint","EndpointNumber":"+61299990000"}`, string(got.Body), "sent in lower case, as the page writes it")
	require.NotNil(t, res.Block)
	assert.Equal(t, testBlock, res.NumberBlockSid)
	assert.Equal(t, 4711, res.Block.ID, "an integer sent as a string is read")
	assert.Equal(t, "61299990000", res.Block.TerminationNumber)
	assert.Equal(t, 100, res.Block.BlockSize)
	assert.Contains(t, string(res.Raw), `"Confirmed": true`, "fields the SDK does not know stay in Raw")

	for _, p := range []ConfigureNumberBlockParams{
		{RoutingMethod: BlockRoutingFlow, Flow: "CFG-42"},
		{RoutingMethod: BlockRoutingApplication, Application: "APP-7"},
	} {
		_, err := c.NumberBlocks.Configure(bg, testBlock, &p)
		require.NoError(t, err)
		want := map[string]any{"RoutingMethod": string(p.RoutingMethod)}
		if p.Flow != "" {
			want["Flow"] = p.Flow
		} else {
			want["Application"] = p.Application
		}
		assert.Equal(t, want, got.bodyMap(t))
	}
}

func TestConfigureNumberBlockValidation(t *testing.T) {
	for _, tc := range []struct {
		name        string
		p           ConfigureNumberBlockParams
		field, code string
	}{
		{"a routing method is required", ConfigureNumberBlockParams{}, "RoutingMethod", CodeParameterRequired},
		{"only three methods", ConfigureNumberBlockParams{RoutingMethod: "sip"}, "RoutingMethod", CodeParameterInvalid},
		{"endpoint needs a number", ConfigureNumberBlockParams{RoutingMethod: BlockRoutingEndpoint}, "EndpointNumber", CodeParameterRequired},
		{"flow needs a flow", ConfigureNumberBlockParams{RoutingMethod: BlockRoutingFlow}, "Flow", CodeParameterRequired},
		{"application needs an application", ConfigureNumberBlockParams{RoutingMethod: BlockRoutingApplication}, "Application", CodeParameterRequired},
		{"the answering point is Australian", ConfigureNumberBlockParams{RoutingMethod: BlockRoutingEndpoint, EndpointNumber: "+6491234567"},
			"EndpointNumber", CodeInvalidPhoneNumberFormat},
		{"another method's field would be ignored", ConfigureNumberBlockParams{RoutingMethod: BlockRoutingFlow, Flow: "F", EndpointNumber: "0299990000"},
			"EndpointNumber", CodeConflictingParameters},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, mt := newMockClient(t)
			_, err := c.NumberBlocks.Configure(bg, testBlock, &tc.p)
			requireValidation(t, mt, err, "NumberBlocks.Configure", tc.field, tc.code)
		})
	}
}

func TestConfigureNumberBlockUndecodableAnswer(t *testing.T) {
	c, mt := newMockClient(t)
	reply(mt, "POST", "/v2/numberblocks/NB1", 200, []byte(`<html>ok</html>`))
	_, err := c.NumberBlocks.Configure(bg, "NB1", &ConfigureNumberBlockParams{RoutingMethod: BlockRoutingFlow, Flow: "F"})
	var ae *APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, "undecodable response body", ae.Message)
	assert.False(t, errors.Is(err, ErrMaybeSent), "Configure is idempotent")
}
