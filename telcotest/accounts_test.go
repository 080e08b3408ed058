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
)

const (
	loginPassword = "Quickstart-2026!"
	sipPassword   = "Tr0unk!Pass#9"
)

func loginParams(email string) *telco.CreateOnlineLoginParams {
	return &telco.CreateOnlineLoginParams{Email: email, Password: loginPassword, FirstName: "Olive", LastName: "Ops",
		Scopes: telco.Scopes{telco.ScopeManageSms, telco.ScopeReporting}, Enabled: true}
}

// assertNoSecret fails when a response body carries the secret or a
// password field.
func assertNoSecret(t *testing.T, body []byte, secret string) {
	t.Helper()
	assert.NotContains(t, string(body), secret)
	assert.NotContains(t, strings.ToLower(string(body)), "password")
}

func TestOnlineLogins_CreateGetList(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client()
	ctx := testCtx(t)
	before := time.Now().Unix()
	login, err := c.OnlineLogins.Create(ctx, srv.PropertySid, loginParams("ops@example.com"))
	require.NoError(t, err)
	assert.Regexp(t, `^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`, login.OnlineLoginSid, "a lower-case UUID")
	assert.Equal(t, "ops@example.com", login.Email)
	assert.Equal(t, "Olive", login.FirstName)
	assert.Equal(t, "Ops", login.LastName)
	assert.True(t, login.Enabled)
	assert.GreaterOrEqual(t, int64(login.Created), before)
	require.Len(t, login.Permissions, 1)
	assert.Equal(t, srv.PropertySid, login.Permissions[0].PropertySid)
	assert.Equal(t, telco.Scopes{telco.ScopeManageSms, telco.ScopeReporting}, login.Permissions[0].Scopes)

	got, err := c.OnlineLogins.Get(ctx, login.OnlineLoginSid)
	require.NoError(t, err)
	assert.Equal(t, *login, *got)

	got, err = c.OnlineLogins.Get(ctx, strings.ToUpper(login.OnlineLoginSid))
	require.NoError(t, err, "a UUID matches without case")
	assert.Equal(t, login.OnlineLoginSid, got.OnlineLoginSid)

	disabled := loginParams("second@example.com")
	disabled.Enabled = false
	second, err := c.OnlineLogins.Create(ctx, srv.PropertySid, disabled)
	require.NoError(t, err)
	assert.False(t, second.Enabled)
	assert.NotEqual(t, login.OnlineLoginSid, second.OnlineLoginSid)
	third, err := c.OnlineLogins.Create(ctx, srv.PropertySid, loginParams("third@example.com"))
	require.NoError(t, err)

	page, err := c.OnlineLogins.List(ctx, nil)
	require.NoError(t, err)
	assert.Equal(t, 3, page.TotalCount)
	require.Len(t, page.Items, 3)
	assert.Equal(t, login.OnlineLoginSid, page.Items[0].OnlineLoginSid)

	page, err = c.OnlineLogins.List(ctx, &telco.ListParams{Count: 1, Skip: 1})
	require.NoError(t, err)
	require.Len(t, page.Items, 1)
	assert.Equal(t, second.OnlineLoginSid, page.Items[0].OnlineLoginSid)
	assert.Equal(t, 3, page.TotalCount)
	assert.NotEmpty(t, page.NextPageToken)

	var all []string
	for l, err := range c.OnlineLogins.ListAll(ctx, &telco.ListParams{Count: 2}) {
		require.NoError(t, err)
		all = append(all, l.OnlineLoginSid)
	}
	assert.Equal(t, []string{login.OnlineLoginSid, second.OnlineLoginSid, third.OnlineLoginSid}, all)
}

func TestOnlineLogins_DuplicateEmailRejected(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client()
	ctx := testCtx(t)
	_, err := c.OnlineLogins.Create(ctx, srv.PropertySid, loginParams("ops@example.com"))
	require.NoError(t, err)
	prop, err := c.Properties.Create(ctx, &telco.CreatePropertyParams{Name: "Other", MainDomain: "o.example", TimeZone: "UTC"})
	require.NoError(t, err)

	for _, tc := range []struct{ name, propertySid, email string }{
		{"same project", srv.PropertySid, "ops@example.com"},
		{"other project", prop.PropertySid, "ops@example.com"},
		{"other case", srv.PropertySid, "OPS@Example.com"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.OnlineLogins.Create(ctx, tc.propertySid, loginParams(tc.email))
			ae := requireStatus(t, err, http.StatusBadRequest)
			assert.Contains(t, fieldNames(ae.Fields), "Email")
		})
	}
	page, err := c.OnlineLogins.List(ctx, nil)
	require.NoError(t, err)
	assert.Equal(t, 1, page.TotalCount)
}

func TestOnlineLogins_PasswordNeverReturned(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	body := `{"Email":"raw@example.com","Password":"` + loginPassword + `","FirstName":"Raw","LastName":"Login","Scopes":"Manage,Admin","Enabled":true}`
	r := raw(t, srv, http.MethodPost, "/v2/Properties/"+srv.PropertySid+"/OnlineLogins", body)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assertNoSecret(t, r.Body, loginPassword)
	var created struct{ OnlineLogin telco.OnlineLogin }
	require.NoError(t, json.Unmarshal(r.Body, &created))
	require.NotEmpty(t, created.OnlineLogin.OnlineLoginSid)
	assert.Equal(t, telco.Scopes{telco.ScopeManage, telco.ScopeAdmin}, created.OnlineLogin.Permissions[0].Scopes)
	assert.Contains(t, string(r.Body), `"Scopes":"Manage,Admin"`, "scopes travel as one comma-separated string")

	r = raw(t, srv, http.MethodGet, "/v2/OnlineLogins/"+created.OnlineLogin.OnlineLoginSid, "")
	require.Equal(t, http.StatusOK, r.Status)
	assertNoSecret(t, r.Body, loginPassword)
	assert.Contains(t, string(r.Body), "raw@example.com")

	r = raw(t, srv, http.MethodGet, "/v2/OnlineLogins", "")
	require.Equal(t, http.StatusOK, r.Status)
	assertNoSecret(t, r.Body, loginPassword)
	assert.Contains(t, string(r.Body), "raw@example.com")
}

func TestOnlineLogins_ServiceRejectsBadLogins(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client(telco.WithClientValidation(false))
	for _, tc := range []struct {
		name        string
		edit        func(p *telco.CreateOnlineLoginParams)
		code, field string
	}{
		{"weak password", func(p *telco.CreateOnlineLoginParams) { p.Password = "password" }, telco.CodeParameterInvalid, "Password"},
		{"password without a special", func(p *telco.CreateOnlineLoginParams) { p.Password = "Abcdefgh12345" }, telco.CodeParameterInvalid, "Password"},
		{"password of 11", func(p *telco.CreateOnlineLoginParams) { p.Password = "Abcdefg12!x" }, telco.CodeParameterInvalid, "Password"},
		{"missing password", func(p *telco.CreateOnlineLoginParams) { p.Password = "" }, telco.CodeParameterRequired, "Password"},
		{"bad e-mail", func(p *telco.CreateOnlineLoginParams) { p.Email = "not-an-email" }, telco.CodeParameterInvalid, "Email"},
		{"missing first name", func(p *telco.CreateOnlineLoginParams) { p.FirstName = "" }, telco.CodeParameterRequired, "FirstName"},
		{"no scopes", func(p *telco.CreateOnlineLoginParams) { p.Scopes = nil }, telco.CodeParameterRequired, "Scopes"},
		{"unknown scope", func(p *telco.CreateOnlineLoginParams) { p.Scopes = telco.Scopes{"Superuser"} }, telco.CodeParameterInvalid, "Scopes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := loginParams("bad@example.com")
			tc.edit(p)
			_, err := c.OnlineLogins.Create(testCtx(t), srv.PropertySid, p)
			ae := requireAPIError(t, err, http.StatusBadRequest, tc.code)
			assert.Equal(t, []string{tc.field}, fieldNames(ae.Fields))
			if p.Password != "" {
				assert.NotContains(t, ae.Message, p.Password, "the error does not repeat the password")
			}
		})
	}
	page, err := c.OnlineLogins.List(testCtx(t), nil)
	require.NoError(t, err)
	assert.Zero(t, page.TotalCount)
}

func TestOnlineLogins_UnknownIs400(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client()
	_, err := c.OnlineLogins.Get(testCtx(t), "00000000-0000-4000-8000-000000000000")
	requireAPIError(t, err, http.StatusBadRequest, "ONLINE_LOGIN_NOT_FOUND")
	_, err = c.OnlineLogins.Create(testCtx(t), "PR"+strings.Repeat("N", 30), loginParams("x@example.com"))
	requireAPIError(t, err, http.StatusBadRequest, "PROPERTY_NOT_FOUND")
}

func ipTrunk(name string) *telco.CreateSipTrunkParams {
	return &telco.CreateSipTrunkParams{Name: name, DefaultCallerID: "+61299999999", Type: telco.SipTrunkIPToIP,
		IPAddresses: []string{"8.8.8.0/24"}}
}

func authTrunk(name string) *telco.CreateSipTrunkParams {
	return &telco.CreateSipTrunkParams{Name: name, DefaultCallerID: "+61299999999", Type: telco.SipTrunkAuthenticated,
		Credentials: &telco.SipCredentials{Realm: "pbx.example.com", Password: sipPassword}}
}

func createTrunk(t *testing.T, c *telco.Client, propertySid string, p *telco.CreateSipTrunkParams) string {
	t.Helper()
	sid, err := c.SipTrunks.Create(testCtx(t), propertySid, p)
	require.NoError(t, err)
	require.NotEmpty(t, sid)
	return sid
}

func TestSipTrunks_CreateAndRead(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client()
	ctx := testCtx(t)
	p := ipTrunk("Office PBX")
	p.IPAddresses = []string{"8.8.8.0/24", "1.1.1.1"}
	p.AllowedCountries = []string{"au", "NZ"}
	p.ChannelLimit = 10
	p.CustomerReference = "cust-7"
	before := time.Now().Unix()
	ipSid := createTrunk(t, c, srv.PropertySid, p)
	assert.Regexp(t, `^[A-Z0-9]{32}$`, ipSid)

	tr, err := c.SipTrunks.GetByProperty(ctx, srv.PropertySid, ipSid)
	require.NoError(t, err)
	assert.Equal(t, ipSid, tr.SipTrunkSid)
	assert.Equal(t, "Office PBX", tr.Name)
	assert.Equal(t, telco.SipTrunkIPToIP, tr.Type)
	assert.Equal(t, 10, tr.ChannelLimit)
	assert.Equal(t, "cust-7", tr.CustomerReference)
	assert.Equal(t, "+61299999999", tr.DefaultCallerID)
	assert.GreaterOrEqual(t, int64(tr.Created), before)
	assert.Zero(t, tr.EndDate)
	assert.Equal(t, telco.ProvisioningProvisioning, tr.ProvisioningState, "Provisioning on the first read")
	var ips, countries []string
	for _, a := range tr.SipTrunkIPAddresses {
		ips = append(ips, a.IPAddress)
	}
	for _, cc := range tr.SipTrunkAllowedCountries {
		countries = append(countries, cc.CountryCode)
	}
	assert.Equal(t, []string{"8.8.8.0/24", "1.1.1.1/32"}, ips, "a bare address is stored as /32")
	assert.Equal(t, []string{"AU", "NZ"}, countries)
	assert.Nil(t, tr.SipTrunkCredentials, "an IP trunk has no credentials")

	tr, err = c.SipTrunks.GetByAccount(ctx, srv.AccountSid, ipSid)
	require.NoError(t, err)
	assert.Equal(t, telco.ProvisioningActive, tr.ProvisioningState, "Active from the second read on")
	tr, err = c.SipTrunks.GetByProperty(ctx, srv.PropertySid, ipSid)
	require.NoError(t, err)
	assert.Equal(t, telco.ProvisioningActive, tr.ProvisioningState)

	authSid := createTrunk(t, c, srv.PropertySid, authTrunk("Remote"))
	assert.NotEqual(t, ipSid, authSid)
	tr, err = c.SipTrunks.GetByAccount(ctx, srv.AccountSid, authSid)
	require.NoError(t, err)
	assert.Equal(t, telco.ProvisioningProvisioning, tr.ProvisioningState, "Provisioning on the first read, by account too")
	assert.Equal(t, telco.SipTrunkAuthenticated, tr.Type)
	require.NotNil(t, tr.SipTrunkCredentials)
	assert.Equal(t, "pbx.example.com", tr.SipTrunkCredentials.Realm)
	assert.Empty(t, tr.SipTrunkIPAddresses)
	assert.Equal(t, 1, tr.ChannelLimit, "ChannelLimit defaults to 1")
	require.Len(t, tr.SipTrunkAllowedCountries, 1)
	assert.Equal(t, "AU", tr.SipTrunkAllowedCountries[0].CountryCode, "AU is allowed by default")
}

func TestSipTrunks_RawBareAddressStoredAs32(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	body := `{"Name":"Raw","DefaultCallerId":"+61299999999","Type":0,"SipTrunkIpAddresses":[{"IpAddress":"1.1.1.1"}]}`
	r := raw(t, srv, http.MethodPost, "/v2/Properties/"+srv.PropertySid+"/SipTrunk", body)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	var created struct{ SipTrunkSid string }
	require.NoError(t, json.Unmarshal(r.Body, &created))
	tr, err := srv.Client().SipTrunks.GetByProperty(testCtx(t), srv.PropertySid, created.SipTrunkSid)
	require.NoError(t, err)
	require.Len(t, tr.SipTrunkIPAddresses, 1)
	assert.Equal(t, "1.1.1.1/32", tr.SipTrunkIPAddresses[0].IPAddress)

	r = raw(t, srv, http.MethodPost, "/v2/Properties/"+srv.PropertySid+"/SipTrunk",
		`{"Name":"No type","DefaultCallerId":"+61299999999","SipTrunkIpAddresses":[{"IpAddress":"1.1.1.1"}]}`)
	assert.Equal(t, http.StatusBadRequest, r.Status, "Type is required")
	w := errorBody(t, r)
	assert.Equal(t, telco.CodeParameterRequired, w.ResponseStatus.ErrorCode)
}

func TestSipTrunks_ListFilters(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client()
	ctx := testCtx(t)
	a := createTrunk(t, c, srv.PropertySid, ipTrunk("A"))
	// Two reads make A Active.
	for range 2 {
		_, err := c.SipTrunks.GetByProperty(ctx, srv.PropertySid, a)
		require.NoError(t, err)
	}
	b := createTrunk(t, c, srv.PropertySid, authTrunk("B"))

	list := func(p *telco.ListSipTrunksParams) []string {
		t.Helper()
		page, err := c.SipTrunks.List(ctx, srv.PropertySid, p)
		require.NoError(t, err)
		assert.Equal(t, len(page.Items), page.TotalCount)
		var out []string
		for _, tr := range page.Items {
			assert.Empty(t, tr.SipTrunkIPAddresses, "a listing has base fields only")
			assert.Empty(t, tr.SipTrunkAllowedCountries)
			assert.Nil(t, tr.SipTrunkCredentials)
			out = append(out, tr.SipTrunkSid)
		}
		return out
	}
	// This listing is B's first read: B is Provisioning, A Active.
	assert.Equal(t, []string{b}, list(&telco.ListSipTrunksParams{ProvisioningState: telco.Ptr(telco.ProvisioningProvisioning)}))
	// From now on both are Active.
	assert.Equal(t, []string{a, b}, list(&telco.ListSipTrunksParams{ProvisioningState: telco.Ptr(telco.ProvisioningActive)}))
	assert.Equal(t, []string{a, b}, list(&telco.ListSipTrunksParams{Active: telco.Ptr(true)}))
	assert.Empty(t, list(&telco.ListSipTrunksParams{Active: telco.Ptr(false)}))
	assert.Equal(t, []string{a}, list(&telco.ListSipTrunksParams{Type: telco.Ptr(telco.SipTrunkIPToIP)}))
	assert.Equal(t, []string{b}, list(&telco.ListSipTrunksParams{Type: telco.Ptr(telco.SipTrunkAuthenticated)}))
	assert.Equal(t, []string{b}, list(&telco.ListSipTrunksParams{Type: telco.Ptr(telco.SipTrunkAuthenticated), Active: telco.Ptr(true)}))
	assert.Empty(t, list(&telco.ListSipTrunksParams{ProvisioningState: telco.Ptr(telco.ProvisioningInactive)}))
	assert.Equal(t, []string{a, b}, list(nil))

	page, err := c.SipTrunks.List(ctx, srv.PropertySid, &telco.ListSipTrunksParams{ListParams: telco.ListParams{Count: 1, Skip: 1}})
	require.NoError(t, err)
	require.Len(t, page.Items, 1)
	assert.Equal(t, b, page.Items[0].SipTrunkSid)
	assert.Equal(t, 2, page.TotalCount)

	var all []string
	for tr, err := range c.SipTrunks.ListAll(ctx, srv.PropertySid, &telco.ListSipTrunksParams{ListParams: telco.ListParams{Count: 1}}) {
		require.NoError(t, err)
		all = append(all, tr.SipTrunkSid)
	}
	assert.Equal(t, []string{a, b}, all)

	// Another project's listing is its own.
	prop, err := c.Properties.Create(ctx, &telco.CreatePropertyParams{Name: "Other", MainDomain: "o.example", TimeZone: "UTC"})
	require.NoError(t, err)
	page, err = c.SipTrunks.List(ctx, prop.PropertySid, nil)
	require.NoError(t, err)
	assert.Empty(t, page.Items)

	_, err = srv.Client(telco.WithClientValidation(false)).SipTrunks.List(ctx, srv.PropertySid,
		&telco.ListSipTrunksParams{ProvisioningState: telco.Ptr(telco.ProvisioningState(7))})
	requireAPIError(t, err, http.StatusBadRequest, telco.CodeParameterInvalid)
}

func TestSipTrunks_PasswordNeverReturned(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	body := `{"Name":"Raw","DefaultCallerId":"+61299999999","Type":1,"SipTrunkCredentials":{"Realm":"r.example","Password":"` + sipPassword + `"}}`
	r := raw(t, srv, http.MethodPost, "/v2/Properties/"+srv.PropertySid+"/SipTrunk", body)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assertNoSecret(t, r.Body, sipPassword)
	var created struct{ SipTrunkSid string }
	require.NoError(t, json.Unmarshal(r.Body, &created))

	for _, path := range []string{
		"/v2/Properties/" + srv.PropertySid + "/SipTrunk/" + created.SipTrunkSid + "/Details",
		"/v2/Accounts/" + srv.AccountSid + "/SipTrunk/" + created.SipTrunkSid + "/Details",
		"/v2/Properties/" + srv.PropertySid + "/SipTrunks",
	} {
		r = raw(t, srv, http.MethodGet, path, "")
		require.Equal(t, http.StatusOK, r.Status, "%s: %s", path, r.Body)
		assert.Contains(t, string(r.Body), created.SipTrunkSid)
		assertNoSecret(t, r.Body, sipPassword)
	}
}

func TestSipTrunks_OtherProjectOrUnknown400(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client()
	ctx := testCtx(t)
	sid := createTrunk(t, c, srv.PropertySid, ipTrunk("Mine"))
	prop, err := c.Properties.Create(ctx, &telco.CreatePropertyParams{Name: "Other", MainDomain: "o.example", TimeZone: "UTC"})
	require.NoError(t, err)

	_, err = c.SipTrunks.GetByProperty(ctx, prop.PropertySid, sid)
	requireAPIError(t, err, http.StatusBadRequest, "SIP_TRUNK_NOT_FOUND")
	_, err = c.SipTrunks.GetByProperty(ctx, srv.PropertySid, "ST"+strings.Repeat("0", 30))
	requireAPIError(t, err, http.StatusBadRequest, "SIP_TRUNK_NOT_FOUND")
	_, err = c.SipTrunks.GetByAccount(ctx, "AC"+strings.Repeat("X", 30), sid)
	requireAPIError(t, err, http.StatusBadRequest, telco.CodeAccountNotFound)
	_, err = c.SipTrunks.Create(ctx, "PR"+strings.Repeat("N", 30), ipTrunk("Nowhere"))
	requireAPIError(t, err, http.StatusBadRequest, "PROPERTY_NOT_FOUND")
}

func TestSipTrunks_ServiceRejectsBadTrunks(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client(telco.WithClientValidation(false))
	for _, tc := range []struct {
		name        string
		p           *telco.CreateSipTrunkParams
		code, field string
	}{
		{"private range", func() *telco.CreateSipTrunkParams {
			p := ipTrunk("x")
			p.IPAddresses = []string{"10.0.0.0/24"}
			return p
		}(), telco.CodeParameterInvalid, "SipTrunkIpAddresses[0].IpAddress"},
		{"a /23", func() *telco.CreateSipTrunkParams {
			p := ipTrunk("x")
			p.IPAddresses = []string{"8.8.8.0/24", "8.8.8.0/23"}
			return p
		}(), telco.CodeParameterInvalid, "SipTrunkIpAddresses[1].IpAddress"},
		{"IPv6", func() *telco.CreateSipTrunkParams {
			p := ipTrunk("x")
			p.IPAddresses = []string{"2001:4860::/120"}
			return p
		}(), telco.CodeParameterInvalid, "SipTrunkIpAddresses[0].IpAddress"},
		{"no addresses for IP to IP", func() *telco.CreateSipTrunkParams {
			p := ipTrunk("x")
			p.IPAddresses = nil
			return p
		}(), telco.CodeParameterRequired, "SipTrunkIpAddresses"},
		{"toll-free caller ID", func() *telco.CreateSipTrunkParams {
			p := ipTrunk("x")
			p.DefaultCallerID = "+611800123456"
			return p
		}(), telco.CodeParameterInvalid, "DefaultCallerId"},
		{"shared-rate caller ID", func() *telco.CreateSipTrunkParams {
			p := ipTrunk("x")
			p.DefaultCallerID = "+611300123456"
			return p
		}(), telco.CodeParameterInvalid, "DefaultCallerId"},
		{"non-AU caller ID", func() *telco.CreateSipTrunkParams {
			p := ipTrunk("x")
			p.DefaultCallerID = "+6495551234"
			return p
		}(), telco.CodeParameterInvalid, "DefaultCallerId"},
		{"weak SIP password", func() *telco.CreateSipTrunkParams {
			p := authTrunk("x")
			p.Credentials.Password = "password1"
			return p
		}(), telco.CodeParameterInvalid, "SipTrunkCredentials.Password"},
		{"three in a row", func() *telco.CreateSipTrunkParams {
			p := authTrunk("x")
			p.Credentials.Password = "Abc1!xxxYz9"
			return p
		}(), telco.CodeParameterInvalid, "SipTrunkCredentials.Password"},
		{"no credentials for authenticated", func() *telco.CreateSipTrunkParams {
			p := authTrunk("x")
			p.Credentials = nil
			return p
		}(), telco.CodeParameterRequired, "SipTrunkCredentials"},
		{"missing name", ipTrunk(""), telco.CodeParameterRequired, "Name"},
		{"unknown type", func() *telco.CreateSipTrunkParams {
			p := ipTrunk("x")
			p.Type = 5
			return p
		}(), telco.CodeParameterInvalid, "Type"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.SipTrunks.Create(testCtx(t), srv.PropertySid, tc.p)
			ae := requireAPIError(t, err, http.StatusBadRequest, tc.code)
			assert.Contains(t, fieldNames(ae.Fields), tc.field)
			if tc.p.Credentials != nil {
				assert.NotContains(t, ae.Error(), tc.p.Credentials.Password, "the error does not repeat the password")
			}
		})
	}
	page, err := c.SipTrunks.List(testCtx(t), srv.PropertySid, nil)
	require.NoError(t, err)
	assert.Empty(t, page.Items, "no rejected trunk was created")
}

// A new trunk "reads as Provisioning once, then as Active". A listing whose
// filter leaves the trunk out has not shown it, so the trunk's first read
// must still show Provisioning.
func TestSipTrunks_FilteredOutListingDoesNotAdvanceTrunk(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client()
	ctx := testCtx(t)
	sid := createTrunk(t, c, srv.PropertySid, ipTrunk("A"))

	page, err := c.SipTrunks.List(ctx, srv.PropertySid, &telco.ListSipTrunksParams{Type: telco.Ptr(telco.SipTrunkAuthenticated)})
	require.NoError(t, err)
	require.Empty(t, page.Items, "the IP trunk is not in this listing")

	tr, err := c.SipTrunks.GetByProperty(ctx, srv.PropertySid, sid)
	require.NoError(t, err)
	assert.Equal(t, telco.ProvisioningProvisioning, tr.ProvisioningState, "the trunk's first read should show Provisioning")
}

func portingParams(numbers ...string) *telco.PortingRequestParams {
	p := &telco.PortingRequestParams{
		AuthorisedContactName: "Olive Ops", AuthorisedContactEmail: "ops@example.com",
		DaytimeContactNumber: "+61299999999", CurrentCarrier: "Optus", CurrentCarrierAccountNo: "ACC-1",
		PreferredPortSchedule: telco.PortASAP, CustomerDescription: "move the main line",
		WebhookURL: "http://127.0.0.1:1/porting",
	}
	for _, n := range numbers {
		p.PortingNumbers = append(p.PortingNumbers, telco.PortingNumberParams{Number: n, PortType: telco.PortTypeCatA,
			PortAddress: "1 Martin Place, Sydney NSW 2000", IncomingActionType: telco.IncomingAnsweringPoint, IncomingAnswerPoint: "+61400000000"})
	}
	return p
}

func submit(t *testing.T, c *telco.Client, propertySid string, p *telco.PortingRequestParams) *telco.PortingRequest {
	t.Helper()
	req, err := c.Porting.Submit(testCtx(t), propertySid, p)
	require.NoError(t, err)
	return req
}

func portingWindow() *telco.PortingStatusParams {
	return &telco.PortingStatusParams{From: time.Now().Add(-time.Hour), To: time.Now().Add(time.Hour)}
}

func portingNos(p *telco.Page[telco.PortingRequest]) []string {
	var out []string
	for _, r := range p.Items {
		out = append(out, r.PortingNo)
	}
	return out
}

func TestPorting_SubmitAndStatus(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client()
	ctx := testCtx(t)
	before := time.Now().Unix()
	req := submit(t, c, srv.PropertySid, portingParams("+61298765432", "+61298765433"))
	assert.NotEmpty(t, req.PortingNo)
	assert.Equal(t, srv.AccountSid, req.AccountSid)
	assert.Equal(t, srv.PropertySid, req.PropertySid)
	assert.Equal(t, "Olive Ops", req.AuthorisedContactName)
	assert.Equal(t, "ops@example.com", req.AuthorisedContactEmail)
	assert.Equal(t, "Optus", req.CurrentCarrier)
	assert.Equal(t, "ACC-1", req.CurrentCarrierAccountNo)
	assert.Equal(t, telco.PortASAP, req.PreferredPortSchedule)
	assert.Zero(t, req.PreferredPortDate, "no date with ASAP")
	assert.Equal(t, "http://127.0.0.1:1/porting", req.WebhookURL)
	assert.Equal(t, "move the main line", req.CustomerDescription)
	assert.GreaterOrEqual(t, int64(req.Created), before)
	assert.Greater(t, int64(req.PortDate), int64(req.Created), "a port date is scheduled")
	assert.NotEmpty(t, req.Status)
	require.Len(t, req.PortingNumbers, 2)
	n := req.PortingNumbers[0]
	assert.Equal(t, "+61298765432", n.Number)
	assert.Equal(t, telco.PortTypeCatA, n.PortType)
	assert.Equal(t, telco.IncomingAnsweringPoint, n.IncomingActionType)
	assert.Equal(t, "+61400000000", n.IncomingAnswerPoint)
	assert.NotEmpty(t, n.Status)
	assert.NotEmpty(t, n.StatusHistory)

	other, err := c.Properties.Create(ctx, &telco.CreatePropertyParams{Name: "Other", MainDomain: "o.example", TimeZone: "UTC"})
	require.NoError(t, err)
	req2 := submit(t, c, other.PropertySid, portingParams("+61398765432"))
	assert.NotEqual(t, req.PortingNo, req2.PortingNo)

	page, err := c.Porting.StatusByProperty(ctx, srv.PropertySid, portingWindow())
	require.NoError(t, err)
	assert.Equal(t, []string{req.PortingNo}, portingNos(page))
	assert.Equal(t, 1, page.TotalCount)
	assert.Equal(t, *req, page.Items[0])

	page, err = c.Porting.StatusByAccount(ctx, srv.AccountSid, portingWindow())
	require.NoError(t, err)
	assert.Equal(t, []string{req.PortingNo, req2.PortingNo}, portingNos(page))
	assert.Equal(t, 2, page.TotalCount)

	var all []string
	p := portingWindow()
	p.Count = 1
	for r, err := range c.Porting.StatusByAccountAll(ctx, srv.AccountSid, p) {
		require.NoError(t, err)
		all = append(all, r.PortingNo)
	}
	assert.Equal(t, []string{req.PortingNo, req2.PortingNo}, all)

	_, err = c.Porting.StatusByProperty(ctx, "PR"+strings.Repeat("N", 30), portingWindow())
	requireAPIError(t, err, http.StatusBadRequest, "PROPERTY_NOT_FOUND")
	_, err = c.Porting.StatusByAccount(ctx, "AC"+strings.Repeat("X", 30), portingWindow())
	requireAPIError(t, err, http.StatusBadRequest, telco.CodeAccountNotFound)
}

func TestPorting_SubmitOnDate(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	p := portingParams("+61298765432")
	p.PreferredPortSchedule = telco.PortOnDate
	p.PreferredPortDate = time.Date(2031, 3, 15, 0, 0, 0, 0, time.UTC)
	req := submit(t, srv.Client(), srv.PropertySid, p)
	assert.Equal(t, telco.PortOnDate, req.PreferredPortSchedule)
	assert.Equal(t, p.PreferredPortDate.Unix(), int64(req.PreferredPortDate))
	assert.Equal(t, p.PreferredPortDate.Unix(), int64(req.PortDate), "ported on the preferred date")
}

func TestPorting_WindowOutsideFindsNothing(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client()
	ctx := testCtx(t)
	req := submit(t, c, srv.PropertySid, portingParams("+61298765432"))

	for _, tc := range []struct {
		name     string
		from, to time.Time
		want     []string
	}{
		{"ends before the submission", time.Now().Add(-2 * time.Hour), time.Now().Add(-time.Hour), nil},
		{"starts after the submission", time.Now().Add(time.Hour), time.Now().Add(2 * time.Hour), nil},
		{"around the submission", req.Created.Time().Add(-time.Second), req.Created.Time().Add(2 * time.Second), []string{req.PortingNo}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, get := range []func() (*telco.Page[telco.PortingRequest], error){
				func() (*telco.Page[telco.PortingRequest], error) {
					return c.Porting.StatusByProperty(ctx, srv.PropertySid, &telco.PortingStatusParams{From: tc.from, To: tc.to})
				},
				func() (*telco.Page[telco.PortingRequest], error) {
					return c.Porting.StatusByAccount(ctx, srv.AccountSid, &telco.PortingStatusParams{From: tc.from, To: tc.to})
				},
			} {
				page, err := get()
				require.NoError(t, err)
				assert.Equal(t, tc.want, portingNos(page))
				assert.Equal(t, len(tc.want), page.TotalCount)
			}
		})
	}
}

func TestPorting_RequestNumbersFilter(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client()
	ctx := testCtx(t)
	var nos []string
	for i := range 3 {
		nos = append(nos, submit(t, c, srv.PropertySid, portingParams(fmt.Sprintf("+6129876543%d", i))).PortingNo)
	}
	p := portingWindow()
	p.PortingRequestNumbers = []string{nos[2], nos[0]}
	page, err := c.Porting.StatusByProperty(ctx, srv.PropertySid, p)
	require.NoError(t, err)
	assert.Equal(t, []string{nos[0], nos[2]}, portingNos(page), "in submission order")
	assert.Equal(t, 2, page.TotalCount)

	p.PortingRequestNumbers = []string{"PN-UNKNOWN"}
	page, err = c.Porting.StatusByAccount(ctx, srv.AccountSid, p)
	require.NoError(t, err)
	assert.Empty(t, page.Items)

	p.PortingRequestNumbers = nil
	page, err = c.Porting.StatusByProperty(ctx, srv.PropertySid, p)
	require.NoError(t, err)
	assert.Equal(t, nos, portingNos(page))
}

func TestPorting_SetPortingStatus(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client()
	ctx := testCtx(t)
	req := submit(t, c, srv.PropertySid, portingParams("+61298765432", "+61298765433"))
	require.Len(t, req.PortingNumbers[0].StatusHistory, 1)
	initial := req.Status

	assert.True(t, srv.SetPortingStatus(req.PortingNo, "Approved"))
	page, err := c.Porting.StatusByProperty(ctx, srv.PropertySid, portingWindow())
	require.NoError(t, err)
	require.Len(t, page.Items, 1)
	got := page.Items[0]
	assert.Equal(t, "Approved", got.Status)
	require.Len(t, got.PortingNumbers, 2)
	for _, n := range got.PortingNumbers {
		assert.Equal(t, "Approved", n.Status)
		require.Len(t, n.StatusHistory, 2, "the change is appended to the history")
		last := n.StatusHistory[1]
		assert.Equal(t, initial, last.FdxStatusFrom)
		assert.Equal(t, "Approved", last.FdxStatusTo)
		assert.NotZero(t, last.Created)
		assert.Equal(t, req.PortingNumbers[0].StatusHistory[0], n.StatusHistory[0], "earlier history is kept")
	}

	assert.False(t, srv.SetPortingStatus("PN-NO-SUCH-REQUEST", "Approved"))
	page, err = c.Porting.StatusByProperty(ctx, srv.PropertySid, portingWindow())
	require.NoError(t, err)
	assert.Equal(t, "Approved", page.Items[0].Status, "an unknown request changes nothing")
}

// Each history entry records one change, so its "from" side is the "to"
// side of the entry before, for the carrier status as for the internal one.
func TestPorting_StatusHistoryChains(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client()
	req := submit(t, c, srv.PropertySid, portingParams("+61298765432"))
	require.True(t, srv.SetPortingStatus(req.PortingNo, "Approved"))
	require.True(t, srv.SetPortingStatus(req.PortingNo, "Completed"))
	require.True(t, srv.SetPortingStatus(req.PortingNo, "Completed"), "the request exists")

	page, err := c.Porting.StatusByProperty(testCtx(t), srv.PropertySid, portingWindow())
	require.NoError(t, err)
	require.Len(t, page.Items, 1)
	h := page.Items[0].PortingNumbers[0].StatusHistory
	require.Len(t, h, 3, "setting Completed again adds no entry")
	for i := 1; i < len(h); i++ {
		assert.Equal(t, h[i-1].FdxStatusTo, h[i].FdxStatusFrom, "entry %d FdxStatusFrom", i)
		assert.Equal(t, h[i-1].CarrierPortingStatusTo, h[i].CarrierPortingStatusFrom, "entry %d CarrierPortingStatusFrom", i)
	}
	assert.Equal(t, "Completed", h[2].FdxStatusTo)
}

func TestPorting_ServiceRejectsBadRequests(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client(telco.WithClientValidation(false))
	for _, tc := range []struct {
		name        string
		edit        func(p *telco.PortingRequestParams)
		code, field string
	}{
		{"Date schedule without a date", func(p *telco.PortingRequestParams) { p.PreferredPortSchedule = telco.PortOnDate },
			telco.CodeParameterRequired, "PreferredPortDate"},
		{"no schedule", func(p *telco.PortingRequestParams) { p.PreferredPortSchedule = "" },
			telco.CodeParameterRequired, "PreferredPortSchedule"},
		{"missing carrier", func(p *telco.PortingRequestParams) { p.CurrentCarrier = "" },
			telco.CodeParameterRequired, "CurrentCarrier"},
		{"bad contact e-mail", func(p *telco.PortingRequestParams) { p.AuthorisedContactEmail = "nope" },
			telco.CodeParameterInvalid, "AuthorisedContactEmail"},
		{"port type other than Cat-A", func(p *telco.PortingRequestParams) { p.PortingNumbers[0].PortType = "Cat-C" },
			telco.CodeParameterInvalid, "PortingNumbers[0].PortType"},
		{"number not E.164", func(p *telco.PortingRequestParams) { p.PortingNumbers[0].Number = "0298765432" },
			telco.CodeInvalidPhoneNumberFormat, "PortingNumbers[0].Number"},
		{"Flow without an action id", func(p *telco.PortingRequestParams) {
			p.PortingNumbers[0].IncomingActionType, p.PortingNumbers[0].IncomingAnswerPoint = telco.IncomingFlow, ""
		}, telco.CodeParameterRequired, "PortingNumbers[0].IncomingActionId"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := portingParams("+61298765432")
			tc.edit(p)
			_, err := c.Porting.Submit(testCtx(t), srv.PropertySid, p)
			ae := requireAPIError(t, err, http.StatusBadRequest, tc.code)
			assert.Contains(t, fieldNames(ae.Fields), tc.field)
		})
	}
	page, err := c.Porting.StatusByAccount(testCtx(t), srv.AccountSid, portingWindow())
	require.NoError(t, err)
	assert.Empty(t, page.Items, "no rejected request was stored")

	// The status window is the service's to check too.
	_, err = c.Porting.StatusByProperty(testCtx(t), srv.PropertySid, &telco.PortingStatusParams{From: time.Now()})
	ae := requireAPIError(t, err, http.StatusBadRequest, telco.CodeParameterRequired)
	assert.Contains(t, fieldNames(ae.Fields), "To")
}
