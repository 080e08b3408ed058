package telcotest_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/telcosdk/telco"
)

func TestOnlineLogins_UpdateIsApplied(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client()
	ctx := testCtx(t)
	login, err := c.OnlineLogins.Create(ctx, srv.PropertySid, loginParams("ops@example.com"))
	require.NoError(t, err)

	require.NoError(t, c.OnlineLogins.Update(ctx, login.OnlineLoginSid, &telco.UpdateOnlineLoginParams{
		FirstName: telco.Ptr("Jane"), LastName: telco.Ptr("Doe"), Enabled: telco.Ptr(false)}))
	got, err := c.OnlineLogins.Get(ctx, login.OnlineLoginSid)
	require.NoError(t, err)
	assert.Equal(t, "Jane", got.FirstName)
	assert.Equal(t, "Doe", got.LastName)
	assert.False(t, got.Enabled)
	assert.Equal(t, login.Email, got.Email, "fields left out are left alone")
	assert.Equal(t, login.Permissions, got.Permissions)

	// Permissions replace all: here with the account's own, then none.
	perms := []telco.Permission{{AccountSid: srv.AccountSid, Scopes: telco.Scopes{telco.ScopeManage, telco.ScopeReporting}}}
	require.NoError(t, c.OnlineLogins.Update(ctx, login.OnlineLoginSid, &telco.UpdateOnlineLoginParams{Permissions: perms}))
	got, err = c.OnlineLogins.Get(ctx, login.OnlineLoginSid)
	require.NoError(t, err)
	assert.Equal(t, perms, got.Permissions)
	page, err := c.OnlineLogins.List(ctx, nil)
	require.NoError(t, err)
	assert.Len(t, page.Items, 1, "the login stays the account's whatever its permissions")

	require.NoError(t, c.OnlineLogins.Update(ctx, login.OnlineLoginSid, &telco.UpdateOnlineLoginParams{Permissions: []telco.Permission{}}))
	got, err = c.OnlineLogins.Get(ctx, login.OnlineLoginSid)
	require.NoError(t, err)
	assert.Empty(t, got.Permissions)

	// A new password is accepted and never given back.
	require.NoError(t, c.OnlineLogins.Update(ctx, login.OnlineLoginSid, &telco.UpdateOnlineLoginParams{Password: "Another-Passw0rd!"}))
	var raw json.RawMessage
	require.NoError(t, c.Do(ctx, "GET", "/v2/OnlineLogins/"+login.OnlineLoginSid, nil, &raw))
	assertNoSecret(t, raw, "Another-Passw0rd!")
}

func TestOnlineLogins_UpdateRefusals(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client()
	ctx := testCtx(t)
	login, err := c.OnlineLogins.Create(ctx, srv.PropertySid, loginParams("ops@example.com"))
	require.NoError(t, err)
	_, err = c.OnlineLogins.Create(ctx, srv.PropertySid, loginParams("taken@example.com"))
	require.NoError(t, err)
	b := srv.AddAccount("", "")
	theirs := srv.ClientFor(b.AccountSid)
	raw := srv.Client(telco.WithClientValidation(false))

	err = theirs.OnlineLogins.Update(ctx, login.OnlineLoginSid, &telco.UpdateOnlineLoginParams{Enabled: telco.Ptr(true)})
	requireAPIError(t, err, http.StatusForbidden, telco.CodeForbidden)
	err = c.OnlineLogins.Update(ctx, "9a1c4e27-0b3d-4f58-8e6a-2c7d9b1f0e35", &telco.UpdateOnlineLoginParams{Enabled: telco.Ptr(true)})
	requireAPIError(t, err, http.StatusBadRequest, "ONLINE_LOGIN_NOT_FOUND")
	err = c.OnlineLogins.Update(ctx, login.OnlineLoginSid, &telco.UpdateOnlineLoginParams{Email: telco.Ptr("TAKEN@example.com")})
	requireAPIError(t, err, http.StatusBadRequest, telco.CodeConflictingParameters)
	err = c.OnlineLogins.Update(ctx, login.OnlineLoginSid, &telco.UpdateOnlineLoginParams{Permissions: []telco.Permission{
		{PropertySid: b.PropertySid, Scopes: telco.Scopes{telco.ScopeManage}}}})
	requireAPIError(t, err, http.StatusForbidden, telco.CodeForbidden)
	err = c.OnlineLogins.Update(ctx, login.OnlineLoginSid, &telco.UpdateOnlineLoginParams{Permissions: []telco.Permission{
		{AccountSid: b.AccountSid, Scopes: telco.Scopes{telco.ScopeManage}}}})
	requireAPIError(t, err, http.StatusForbidden, telco.CodeForbidden)

	// The fake applies the SDK's rules itself.
	err = raw.OnlineLogins.Update(ctx, login.OnlineLoginSid, &telco.UpdateOnlineLoginParams{Permissions: []telco.Permission{
		{AccountSid: srv.AccountSid, PropertySid: srv.PropertySid, Scopes: telco.Scopes{telco.ScopeManage}}}})
	ae := requireAPIError(t, err, http.StatusBadRequest, telco.CodeConflictingParameters)
	assert.Equal(t, "Permissions[0].PropertySid", ae.Fields[0].FieldName)
	err = raw.OnlineLogins.Update(ctx, login.OnlineLoginSid, &telco.UpdateOnlineLoginParams{Password: "weak"})
	ae = requireAPIError(t, err, http.StatusBadRequest, telco.CodeParameterInvalid)
	assert.NotContains(t, ae.Error(), "weak")
	err = raw.Do(ctx, "PUT", "/v2/OnlineLogins/"+login.OnlineLoginSid, map[string]any{"FirstName": "x"}, nil)
	requireAPIError(t, err, http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED")

	got, err := c.OnlineLogins.Get(ctx, login.OnlineLoginSid)
	require.NoError(t, err)
	assert.Equal(t, *login, *got, "nothing refused changed the login")
}

func TestSipTrunks_UpdateIsApplied(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client()
	ctx := testCtx(t)
	sid := createTrunk(t, c, srv.PropertySid, ipTrunk("PBX"))

	require.NoError(t, c.SipTrunks.Update(ctx, srv.PropertySid, sid, &telco.UpdateSipTrunkParams{
		Name: telco.Ptr("PBX 2"), ChannelLimit: telco.Ptr(8), IPAddresses: []string{"1.1.1.1"},
		AllowedCountries: []string{"au", "nz"}}))
	tr, err := c.SipTrunks.GetByProperty(ctx, srv.PropertySid, sid)
	require.NoError(t, err)
	assert.Equal(t, "PBX 2", tr.Name)
	assert.Equal(t, 8, tr.ChannelLimit)
	assert.Equal(t, "+61299999999", tr.DefaultCallerID, "left alone")
	require.Len(t, tr.SipTrunkIPAddresses, 1, "the list is replaced")
	assert.Equal(t, "1.1.1.1/32", tr.SipTrunkIPAddresses[0].IPAddress)
	require.Len(t, tr.SipTrunkAllowedCountries, 2)
	assert.Equal(t, "NZ", tr.SipTrunkAllowedCountries[1].CountryCode)

	// Becoming authenticated needs credentials the trunk does not have yet.
	err = c.SipTrunks.UpdateByAccount(ctx, srv.AccountSid, sid, &telco.UpdateSipTrunkParams{Type: telco.Ptr(telco.SipTrunkAuthenticated)})
	requireAPIError(t, err, http.StatusBadRequest, telco.CodeParameterRequired)
	require.NoError(t, c.SipTrunks.UpdateByAccount(ctx, srv.AccountSid, sid, &telco.UpdateSipTrunkParams{
		Type: telco.Ptr(telco.SipTrunkAuthenticated), Credentials: &telco.SipCredentials{Realm: "pbx.example.com", Password: sipPassword}}))
	tr, err = c.SipTrunks.GetByAccount(ctx, srv.AccountSid, sid)
	require.NoError(t, err)
	assert.Equal(t, telco.SipTrunkAuthenticated, tr.Type)
	require.NotNil(t, tr.SipTrunkCredentials)
	assert.Equal(t, "pbx.example.com", tr.SipTrunkCredentials.Realm)

	// Credentials on an IP to IP trunk are refused; back to IP to IP, the
	// trunk drops its credentials.
	err = c.SipTrunks.UpdateByAccount(ctx, srv.AccountSid, createTrunk(t, c, srv.PropertySid, ipTrunk("IP2")),
		&telco.UpdateSipTrunkParams{Credentials: &telco.SipCredentials{Password: sipPassword}})
	requireAPIError(t, err, http.StatusBadRequest, telco.CodeConflictingParameters)
	require.NoError(t, c.SipTrunks.Update(ctx, srv.PropertySid, sid, &telco.UpdateSipTrunkParams{
		Type: telco.Ptr(telco.SipTrunkIPToIP), IPAddresses: []string{"8.8.4.4"}}))
	tr, err = c.SipTrunks.GetByProperty(ctx, srv.PropertySid, sid)
	require.NoError(t, err)
	assert.Nil(t, tr.SipTrunkCredentials)

	// An IP to IP trunk cannot lose its last address.
	ip := createTrunk(t, c, srv.PropertySid, ipTrunk("IP"))
	err = srv.Client(telco.WithClientValidation(false)).SipTrunks.Update(ctx, srv.PropertySid, ip,
		&telco.UpdateSipTrunkParams{IPAddresses: []string{}})
	requireAPIError(t, err, http.StatusBadRequest, telco.CodeParameterRequired)

	other := srv.AddAccount("", "")
	err = srv.ClientFor(other.AccountSid).SipTrunks.UpdateByAccount(ctx, other.AccountSid, sid, &telco.UpdateSipTrunkParams{Name: telco.Ptr("x")})
	requireAPIError(t, err, http.StatusForbidden, telco.CodeForbidden)
}

func TestNumberBlocks_PurchaseThenConfigure(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client()
	ctx := testCtx(t)
	before := srv.Counts()
	res, err := c.NumberBlocks.Purchase(ctx, srv.PropertySid, &telco.PurchaseNumberBlockParams{AnswerPoint: "+61299990000"})
	require.NoError(t, err)
	assert.Equal(t, before.NumberBlocks+1, srv.Counts().NumberBlocks)
	require.NotNil(t, res.Block)
	assert.Equal(t, res.NumberBlockSid, res.Block.NumberBlockSid)
	assert.Equal(t, "61299990000", res.Block.TerminationNumber)

	page, err := c.NumberBlocks.ListByProperty(ctx, srv.PropertySid, nil)
	require.NoError(t, err)
	require.Len(t, page.Data, 1)
	assert.Equal(t, res.NumberBlockSid, page.Data[0].NumberBlockSid)

	srv.AddFlow(srv.PropertySid, telco.Flow{ConfigID: "CFG-42", Name: "Sales"}) // a block routes only to its project's flows
	conf, err := c.NumberBlocks.Configure(ctx, res.NumberBlockSid, &telco.ConfigureNumberBlockParams{
		RoutingMethod: telco.BlockRoutingFlow, Flow: "CFG-42"})
	require.NoError(t, err)
	assert.Equal(t, "flow", conf.Block.RoutingMethod)
	var extra struct{ NumberBlock struct{ Flow string } }
	require.NoError(t, json.Unmarshal(conf.Raw, &extra))
	assert.Equal(t, "CFG-42", extra.NumberBlock.Flow, "the flow is in the answer, beyond NumberBlock's fields")

	_, err = c.NumberBlocks.Configure(ctx, res.NumberBlockSid, &telco.ConfigureNumberBlockParams{
		RoutingMethod: telco.BlockRoutingEndpoint, EndpointNumber: "0399990000"})
	require.NoError(t, err)
	page, err = c.NumberBlocks.ListByProperty(ctx, srv.PropertySid, nil)
	require.NoError(t, err)
	assert.Equal(t, "endpoint", page.Data[0].RoutingMethod)
	assert.Equal(t, "61399990000", page.Data[0].TerminationNumber)
	require.NotNil(t, page.Data[0].Modified)

	_, err = c.NumberBlocks.Configure(ctx, "NB"+strings.Repeat("X", 30), &telco.ConfigureNumberBlockParams{
		RoutingMethod: telco.BlockRoutingApplication, Application: "APP"})
	requireAPIError(t, err, http.StatusBadRequest, "NUMBER_BLOCK_NOT_FOUND")
	b := srv.AddAccount("", "")
	theirs := srv.ClientFor(b.AccountSid)
	_, err = theirs.NumberBlocks.Configure(ctx, res.NumberBlockSid, &telco.ConfigureNumberBlockParams{
		RoutingMethod: telco.BlockRoutingApplication, Application: "APP"})
	requireAPIError(t, err, http.StatusForbidden, telco.CodeForbidden)
	_, err = theirs.NumberBlocks.Purchase(ctx, srv.PropertySid, &telco.PurchaseNumberBlockParams{AnswerPoint: "0299990000"})
	requireAPIError(t, err, http.StatusForbidden, telco.CodeForbidden)
	_, err = c.NumberBlocks.Purchase(ctx, srv.PropertySid, &telco.PurchaseNumberBlockParams{AnswerPoint: "0299990000", AccountSid: b.AccountSid})
	requireAPIError(t, err, http.StatusForbidden, telco.CodeForbidden)
	assert.Equal(t, before.NumberBlocks+1, srv.Counts().NumberBlocks, "nothing refused was bought")
}

// Every answer carries a request id, which telco.CallInfo reads.
func TestServer_AnswersCarryARequestID(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client()
	ctx, info := telco.CaptureResponse(testCtx(t))
	_, err := c.Properties.Get(ctx, srv.PropertySid)
	require.NoError(t, err)
	first := info.RequestID
	assert.Regexp(t, `^RQ[A-Z0-9]{30}$`, first)
	_, err = c.Properties.Get(ctx, "PR"+strings.Repeat("N", 30))
	require.Error(t, err)
	assert.Equal(t, http.StatusBadRequest, info.StatusCode)
	assert.NotEqual(t, first, info.RequestID, "one id per request")
}
