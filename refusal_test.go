package telco

import (
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The spec shows a whole-request failure as {"ResponseStatus": {...}}
// without naming its status; these tests answer it with a 2xx.

const refusalBody = `{"ResponseStatus":{"ErrorCode":"SerializationException","Message":"Could not deserialize",` +
	`"Errors":[{"ErrorCode":"PARAMETER_INVALID","FieldName":"Messages","Message":"bad"}]}}`

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

// Every operation that reads a resource or a listing turns a 2xx holding
// only the service's error envelope into that error, instead of a zero
// resource, an empty page or a success.
func TestRefusalIn2xxForEveryOperation(t *testing.T) {
	t.Parallel()
	ops := []struct {
		op   string
		call func(c *Client) error
	}{
		// Validation is off: the answer, not the parameters, is under test.
		{"Messages.Send", func(c *Client) error {
			_, err := c.Messages.Send(bg, testProp, &SendMessageParams{To: "+61499999999", Text: "x"})
			return err
		}},
		{"Messages.Get", func(c *Client) error { _, err := c.Messages.Get(bg, "MG1"); return err }},
		{"Messages.Find", func(c *Client) error {
			_, err := c.Messages.Find(bg, testProp, &FindMessagesParams{})
			return err
		}},
		{"Properties.Get", func(c *Client) error { _, err := c.Properties.Get(bg, testProp); return err }},
		{"Properties.List", func(c *Client) error { _, err := c.Properties.List(bg, nil); return err }},
		{"Properties.Create", func(c *Client) error {
			_, err := c.Properties.Create(bg, &CreatePropertyParams{Name: "a"})
			return err
		}},
		{"OnlineLogins.List", func(c *Client) error { _, err := c.OnlineLogins.List(bg, nil); return err }},
		{"SipTrunks.List", func(c *Client) error { _, err := c.SipTrunks.List(bg, testProp, nil); return err }},
		{"SipTrunks.Create", func(c *Client) error {
			_, err := c.SipTrunks.Create(bg, testProp, &CreateSipTrunkParams{Name: "T"})
			return err
		}},
		{"Addresses.Delete", func(c *Client) error { return c.Addresses.Delete(bg, "AD1") }},
		{"Lookup.NumberDetails", func(c *Client) error { _, err := c.Lookup.NumberDetails(bg, "0299999999"); return err }},
		{"OnlineLogins.Create", func(c *Client) error {
			_, err := c.OnlineLogins.Create(bg, testProp, &CreateOnlineLoginParams{Email: "a@b.example"})
			return err
		}},
		{"OnlineLogins.Get", func(c *Client) error { _, err := c.OnlineLogins.Get(bg, "OL1"); return err }},
		{"Porting.Submit", func(c *Client) error {
			_, err := c.Porting.Submit(bg, testProp, &PortingRequestParams{})
			return err
		}},
		{"Porting.StatusByAccount", func(c *Client) error {
			_, err := c.Porting.StatusByAccount(bg, testSid, &PortingStatusParams{})
			return err
		}},
		{"SipTrunks.GetByProperty", func(c *Client) error {
			_, err := c.SipTrunks.GetByProperty(bg, testProp, "ST1")
			return err
		}},
		{"Numbers.Configure", func(c *Client) error {
			_, err := c.Numbers.Configure(bg, "61299999999", &NumberConfigParams{})
			return err
		}},
		{"Addresses.Create", func(c *Client) error {
			_, err := c.Addresses.Create(bg, testSid, &CreateAddressParams{Line1: "1 Main St"})
			return err
		}},
		{"NumberBlocks.Search", func(c *Client) error {
			_, err := c.NumberBlocks.Search(bg, &NumberBlockSearchParams{AccountSid: testSid})
			return err
		}},
		{"NumberBlocks.ListByProperty", func(c *Client) error {
			_, err := c.NumberBlocks.ListByProperty(bg, testProp, nil)
			return err
		}},
	}
	for _, o := range ops {
		t.Run(o.op, func(t *testing.T) {
			t.Parallel()
			c, mt := newMockClient(t, WithClientValidation(false))
			mt.RegisterNoResponder(httpmock.NewStringResponder(http.StatusOK, refusalBody))
			err := o.call(c)
			var ae *APIError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, o.op, ae.Op)
			assert.Equal(t, http.StatusOK, ae.StatusCode)
			assert.Equal(t, "SerializationException", ae.Code)
			assert.Equal(t, "Could not deserialize", ae.Message)
			require.Len(t, ae.Fields, 1)
			assert.Equal(t, "Messages", ae.Fields[0].FieldName)
			assert.NotErrorIs(t, err, ErrMaybeSent, "the service refused the request")
		})
	}
}

// The envelopes report a refusal only when no resource was found and an
// ErrorCode was given.
func TestEnvelopesFindRefusals(t *testing.T) {
	t.Parallel()
	decoders := map[string]func(b []byte) (found bool, err error){
		"one": func(b []byte) (bool, error) {
			o := one[Message]{shape: messageShape}
			err := o.decodeBody(b)
			return o.ok, err
		},
		"list": func(b []byte) (bool, error) {
			l := list[Property]{shape: propertiesList}
			err := l.decodeBody(b)
			return l.ok, err
		},
		"id": func(b []byte) (bool, error) {
			a := idAnswer{key: "SipTrunkSid"}
			err := a.decodeBody(b)
			return a.id != "", err
		},
		"blocks": func(b []byte) (bool, error) {
			var p blockPage
			err := p.decodeBody(b)
			return p.page.Data != nil, err
		},
	}
	cases := []struct {
		name    string
		body    string
		refused bool
	}{
		{"ResponseStatus", refusalBody, true},
		{"lower-case keys", `{"responseStatus":{"errorCode":"X"}}`, true},
		{"top level", `{"ErrorCode":"X","Message":"m"}`, true},
		{"no ErrorCode", `{"ResponseStatus":{"Message":"m","Errors":[]}}`, false},
		{"empty ResponseStatus", `{"ResponseStatus":{}}`, false},
		{"null ResponseStatus", `{"ResponseStatus":null}`, false},
		{"ResponseStatus not an object", `{"ResponseStatus":"X"}`, false},
		{"empty object", `{}`, false},
		{"null", `null`, false},
	}
	for name, decode := range decoders {
		for _, tc := range cases {
			t.Run(name+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				found, err := decode([]byte(tc.body))
				assert.False(t, found)
				var rf *refusal
				assert.Equal(t, tc.refused, errors.As(err, &rf), "refusal: %v", err)
				if !tc.refused {
					assert.NoError(t, err)
				}
			})
		}
	}
	// A resource found beside an error envelope is the answer.
	withResource := map[string]string{
		"one":    `{"Message":{"MessageSid":"MG1"},"ResponseStatus":{"ErrorCode":"X"}}`,
		"list":   `{"Properties":[],"ResponseStatus":{"ErrorCode":"X"}}`,
		"id":     `{"SipTrunkSid":"ST1","ResponseStatus":{"ErrorCode":"X"}}`,
		"blocks": `{"Data":[],"ResponseStatus":{"ErrorCode":"X"}}`,
	}
	for name, body := range withResource {
		found, err := decoders[name]([]byte(body))
		require.NoError(t, err, name)
		assert.True(t, found, name)
	}
}

func TestRefusalKeepsEveryField(t *testing.T) {
	t.Parallel()
	err := refusedIn([]byte(refusalBody))
	var rf *refusal
	require.ErrorAs(t, err, &rf)
	var want wireError
	require.NoError(t, json.Unmarshal([]byte(refusalBody), &want))
	assert.Equal(t, *want.ResponseStatus, rf.s)
	assert.Contains(t, err.Error(), "SerializationException")
}
