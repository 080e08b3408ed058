package telco

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/http"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Wire tests of the merge-patch updates of the service's pages beyond the
// interface document: OnlineLogins.Update and SipTrunks.Update.

const testLogin = "3f2b8c1e-7a4d-4e9b-9c2f-5d8e1a6b7c40"

func TestUpdateOnlineLoginWireNamesAndEnabled(t *testing.T) {
	c, mt := newMockClient(t)
	got := reply(mt, "PATCH", "/v2/OnlineLogins/"+testLogin, http.StatusNoContent, nil)
	err := c.OnlineLogins.Update(bg, testLogin, &UpdateOnlineLoginParams{
		FirstName: Ptr("Jane"), LastName: Ptr("Doe"), Enabled: Ptr(true)})
	require.NoError(t, err)
	assert.Equal(t, "PATCH", got.Method)
	assertCommonHeaders(t, got.Header)
	assert.Equal(t, "application/merge-patch+json", got.Header.Get("Content-Type"))
	// The page's first sample, exactly: nothing else is sent.
	assert.JSONEq(t, `{"FirstName": "Jane", "LastName": "Doe", "Enabled": true}`, string(got.Body))
}

func TestUpdateOnlineLoginWirePermissionsReplaceAll(t *testing.T) {
	c, mt := newMockClient(t)
	got := reply(mt, "PATCH", "/v2/OnlineLogins/"+testLogin, http.StatusNoContent, nil)
	err := c.OnlineLogins.Update(bg, testLogin, &UpdateOnlineLoginParams{Permissions: []Permission{
		{AccountSid: "AG5T3HFR5ASD54FS5GB3SDAFJAKSH6DS", Scopes: Scopes{ScopeManage, ScopeReporting}},
		{PropertySid: "S1234567890ABCDEF1234567890ABCDE", Scopes: Scopes{ScopeReporting}},
	}})
	require.NoError(t, err)
	// The page's second sample, exactly.
	assert.JSONEq(t, `{"Permissions": [{"AccountSid": "AG5T3HFR5ASD54FS5GB3SDAFJAKSH6DS", "Scopes": "Manage,Reporting"},`+
		` {"PropertySid": "S1234567890ABCDEF1234567890ABCDE", "Scopes": "Reporting"}]}`, string(got.Body))

	// An empty, non-nil list removes every permission: it must be sent.
	require.NoError(t, c.OnlineLogins.Update(bg, testLogin, &UpdateOnlineLoginParams{Permissions: []Permission{}}))
	assert.JSONEq(t, `{"Permissions": []}`, string(got.Body))

	// Nil leaves them alone: not sent at all.
	require.NoError(t, c.OnlineLogins.Update(bg, testLogin, &UpdateOnlineLoginParams{Enabled: Ptr(false)}))
	assert.JSONEq(t, `{"Enabled": false}`, string(got.Body))
}

func TestUpdateOnlineLoginValidation(t *testing.T) {
	both := Permission{AccountSid: testSid, PropertySid: testProp, Scopes: Scopes{ScopeManage}}
	for _, tc := range []struct {
		name        string
		p           UpdateOnlineLoginParams
		field, code string
	}{
		{"a permission with both owners is ambiguous", UpdateOnlineLoginParams{Permissions: []Permission{both}},
			"Permissions[0].PropertySid", CodeConflictingParameters},
		{"a permission with no owner names nothing", UpdateOnlineLoginParams{Permissions: []Permission{
			{PropertySid: testProp, Scopes: Scopes{ScopeManage}}, {Scopes: Scopes{ScopeManage}}}},
			"Permissions[1].AccountSid", CodeParameterRequired},
		{"a permission needs a scope", UpdateOnlineLoginParams{Permissions: []Permission{{AccountSid: testSid}}},
			"Permissions[0].Scopes", CodeParameterRequired},
		{"scopes are the service's", UpdateOnlineLoginParams{Permissions: []Permission{
			{AccountSid: testSid, Scopes: Scopes{"Everything"}}}}, "Permissions[0].Scopes", CodeParameterInvalid},
		{"a name cannot be blanked", UpdateOnlineLoginParams{LastName: Ptr(" ")}, "LastName", CodeParameterInvalid},
		{"the e-mail address is the user name", UpdateOnlineLoginParams{Email: Ptr("not-an-address")}, "Email", CodeParameterInvalid},
		{"a new password follows the create rules", UpdateOnlineLoginParams{Password: "short"}, "Password", CodeParameterInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, mt := newMockClient(t)
			requireValidation(t, mt, c.OnlineLogins.Update(bg, testLogin, &tc.p), "OnlineLogins.Update", tc.field, tc.code)
			var ve *ValidationError
			require.ErrorAs(t, tc.p.Validate(), &ve, "Validate applies the same rules")
			assert.Equal(t, "OnlineLogins.Update", ve.Op)
		})
	}
	c, mt := newMockClient(t)
	requireValidation(t, mt, c.OnlineLogins.Update(bg, "OL1", &UpdateOnlineLoginParams{Enabled: Ptr(true)}),
		"OnlineLogins.Update", "OnlineLoginSid", CodeParameterInvalid)
}

func TestUpdateOnlineLoginPasswordNeverShown(t *testing.T) {
	const pw = "N3w-Secret-Passw0rd!"
	p := UpdateOnlineLoginParams{FirstName: Ptr("Jane"), Password: pw}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		out := fmt.Sprintf(verb, p)
		assert.NotContains(t, out, pw, verb)
		assert.Contains(t, out, redacted, verb)
		assert.NotContains(t, fmt.Sprintf(verb, &p), pw, verb+" of a pointer")
	}
	var buf bytes.Buffer
	slog.New(slog.NewJSONHandler(&buf, nil)).Info("update", "params", p)
	assert.NotContains(t, buf.String(), pw)
	assert.Contains(t, buf.String(), `"FirstName":"Jane"`)

	// An error answer that echoes the body keeps the password out of the error.
	c, mt := newMockClient(t)
	got := reply(mt, "PATCH", "/v2/OnlineLogins/"+testLogin, http.StatusBadRequest,
		[]byte(`{"ResponseStatus":{"ErrorCode":"PARAMETER_INVALID","Message":"Password `+pw+` was used before"}}`))
	err := c.OnlineLogins.Update(bg, testLogin, &p)
	var ae *APIError
	require.ErrorAs(t, err, &ae)
	assert.NotContains(t, err.Error(), pw)
	assert.Contains(t, got.bodyMap(t), "Password", "the password itself is sent")
}

func TestUpdateSipTrunkWire(t *testing.T) {
	c, mt := newMockClient(t)
	got := reply(mt, "PATCH", "/v2/Properties/"+testProp+"/SipTrunk/ST1", http.StatusNoContent, nil)
	err := c.SipTrunks.Update(bg, testProp, "ST1", &UpdateSipTrunkParams{
		Name: Ptr("PBX 2"), ChannelLimit: Ptr(4), IPAddresses: []string{"8.8.8.8", "1.1.1.0/24"},
		AllowedCountries: []string{"au", "NZ"}, Type: Ptr(SipTrunkIPToIP)})
	require.NoError(t, err)
	assert.Equal(t, "PATCH", got.Method)
	assertCommonHeaders(t, got.Header)
	assert.Equal(t, "application/merge-patch+json", got.Header.Get("Content-Type"))
	assert.JSONEq(t, `{"Name":"PBX 2","ChannelLimit":4,"Type":0,
		"SipTrunkIpAddresses":[{"IpAddress":"8.8.8.8/32"},{"IpAddress":"1.1.1.0/24"}],
		"SipTrunkAllowedCountries":[{"CountryCode":"AU"},{"CountryCode":"NZ"}]}`, string(got.Body))

	// A new password travels inside the credentials' own patch.
	require.NoError(t, c.SipTrunks.Update(bg, testProp, "ST1", &UpdateSipTrunkParams{
		Credentials: &SipCredentials{Password: "Tr0nk-Pa55!x"}}))
	assert.JSONEq(t, `{"SipTrunkCredentials":{"Password":"Tr0nk-Pa55!x"}}`, string(got.Body))

	// The account form, and a 200 with a body the SDK does not need.
	acct := reply(mt, "PATCH", "/v2/Accounts/"+testSid+"/SipTrunk/ST1", http.StatusOK, []byte(`{"SipTrunkSid":"ST1"}`))
	require.NoError(t, c.SipTrunks.UpdateByAccount(bg, testSid, "ST1", &UpdateSipTrunkParams{CustomerReference: Ptr("")}))
	assert.JSONEq(t, `{"CustomerReference":""}`, string(acct.Body), "a reference can be cleared")
}

func TestUpdateSipTrunkValidation(t *testing.T) {
	for _, tc := range []struct {
		name        string
		p           UpdateSipTrunkParams
		field, code string
	}{
		{"the caller ID is Australian", UpdateSipTrunkParams{DefaultCallerID: Ptr("+6491234567")}, "DefaultCallerId", CodeParameterInvalid},
		{"the caller ID is E.164", UpdateSipTrunkParams{DefaultCallerID: Ptr("0299999999")}, "DefaultCallerId", CodeInvalidPhoneNumberFormat},
		{"addresses are public", UpdateSipTrunkParams{IPAddresses: []string{"192.168.1.0/24"}}, "SipTrunkIpAddresses[0].IpAddress", CodeParameterInvalid},
		{"an IP to IP trunk keeps an address", UpdateSipTrunkParams{Type: Ptr(SipTrunkIPToIP), IPAddresses: []string{}}, "SipTrunkIpAddresses", CodeParameterRequired},
		{"the type is 0 or 1", UpdateSipTrunkParams{Type: Ptr(SipTrunkType(2))}, "Type", CodeParameterInvalid},
		{"the password has four classes", UpdateSipTrunkParams{Credentials: &SipCredentials{Password: "password12"}}, "SipTrunkCredentials.Password", CodeParameterInvalid},
		{"credentials change something", UpdateSipTrunkParams{Credentials: &SipCredentials{}}, "SipTrunkCredentials", CodeParameterRequired},
		{"at least one channel", UpdateSipTrunkParams{ChannelLimit: Ptr(0)}, "ChannelLimit", CodeParameterInvalid},
		{"countries are letter codes", UpdateSipTrunkParams{AllowedCountries: []string{"61"}}, "SipTrunkAllowedCountries[0].CountryCode", CodeParameterInvalid},
		{"a name cannot be blanked", UpdateSipTrunkParams{Name: Ptr("")}, "Name", CodeParameterInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, mt := newMockClient(t)
			requireValidation(t, mt, c.SipTrunks.Update(bg, testProp, "ST1", &tc.p), "SipTrunks.Update", tc.field, tc.code)
			c, mt = newMockClient(t)
			requireValidation(t, mt, c.SipTrunks.UpdateByAccount(bg, testSid, "ST1", &tc.p), "SipTrunks.UpdateByAccount", tc.field, tc.code)
		})
	}
}

func TestUpdateSipTrunkPasswordKeptOutOfErrors(t *testing.T) {
	const pw = "Tr0nk-Pa55!x-secret"
	c, mt := newMockClient(t)
	reply(mt, "PATCH", "/v2/Properties/"+testProp+"/SipTrunk/ST1", http.StatusBadRequest,
		[]byte(`<html>bad body {"Password":"`+pw+`"}</html>`))
	err := c.SipTrunks.Update(bg, testProp, "ST1", &UpdateSipTrunkParams{Credentials: &SipCredentials{Password: pw}})
	var ae *APIError
	require.ErrorAs(t, err, &ae)
	assert.NotContains(t, string(ae.Body), pw)
	assert.NotContains(t, err.Error(), pw)
}

// The updates, like every operation, turn a 2xx holding only the service's
// error envelope into that error.
func TestUpdatesRefusalIn2xx(t *testing.T) {
	for op, call := range map[string]func(c *Client) error{
		"OnlineLogins.Update": func(c *Client) error {
			return c.OnlineLogins.Update(bg, testLogin, &UpdateOnlineLoginParams{Enabled: Ptr(true)})
		},
		"SipTrunks.Update": func(c *Client) error {
			return c.SipTrunks.Update(bg, testProp, "ST1", &UpdateSipTrunkParams{Name: Ptr("x")})
		},
		"NumberBlocks.Purchase": func(c *Client) error {
			_, err := c.NumberBlocks.Purchase(bg, testProp, &PurchaseNumberBlockParams{AnswerPoint: "0299999999"})
			return err
		},
		"NumberBlocks.Configure": func(c *Client) error {
			_, err := c.NumberBlocks.Configure(bg, "NB1", &ConfigureNumberBlockParams{RoutingMethod: BlockRoutingFlow, Flow: "F1"})
			return err
		},
	} {
		t.Run(op, func(t *testing.T) {
			c, mt := newMockClient(t)
			mt.RegisterNoResponder(httpmock.NewStringResponder(http.StatusOK, refusalBody))
			var ae *APIError
			require.ErrorAs(t, call(c), &ae)
			assert.Equal(t, op, ae.Op)
			assert.Equal(t, "SerializationException", ae.Code)
		})
	}
}
