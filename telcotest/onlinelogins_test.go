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

// loginPassword passes the service's online login password rule.
const loginPassword = "Quickstart-2026!"

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
