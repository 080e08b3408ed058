package telcotest_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/telcosdk/telco"
)

// sipPassword passes the service's SIP trunk password rule.
const sipPassword = "Tr0unk!Pass#9"

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
		{"toll-free 1802 caller ID", func() *telco.CreateSipTrunkParams {
			p := ipTrunk("x")
			p.DefaultCallerID = "+611802123456"
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
