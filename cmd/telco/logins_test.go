package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/telcosdk/telco"
)

func TestLoginListingsAndUnknownLogin(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	var logins []telco.OnlineLogin
	h.jsonOf(&logins, "logins", "list", "--all")
	assert.Empty(t, logins)
	var ls []telco.OnlineLogin
	h.jsonOf(&ls, "logins", "list", "--count", "5")
	assert.Empty(t, ls, "one page has the shape of --all: an array")
	r := h.run("logins", "get", "00000000-0000-4000-8000-000000000000")
	assert.Equal(t, 1, r.code, r.stderr)
}

func TestLoginsUpdate(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ctx := context.Background()
	l, err := h.srv.Client().OnlineLogins.Create(ctx, h.srv.PropertySid, &telco.CreateOnlineLoginParams{
		Email: "ops@example.com", Password: "Str0ng-Passw0rd!", FirstName: "Olive", LastName: "Ops",
		Scopes: telco.Scopes{telco.ScopeReporting}})
	require.NoError(t, err)

	var got telco.OnlineLogin
	h.jsonOf(&got, "logins", "update", l.OnlineLoginSid, "--first-name", "Jane", "--enabled",
		"--permission", "account:"+h.srv.AccountSid+"=Manage,Reporting", "--permission", "property:"+h.srv.PropertySid+"=ManageSms")
	assert.Equal(t, "Jane", got.FirstName)
	assert.True(t, got.Enabled)
	assert.Equal(t, []telco.Permission{
		{AccountSid: h.srv.AccountSid, Scopes: telco.Scopes{telco.ScopeManage, telco.ScopeReporting}},
		{PropertySid: h.srv.PropertySid, Scopes: telco.Scopes{telco.ScopeManageSms}}}, got.Permissions)

	const pw = "An0ther-Passw0rd!"
	r := h.runIn(pw+"\n", "logins", "update", l.OnlineLoginSid, "--password-stdin", "--no-permissions")
	require.Equal(t, 0, r.code, r.stderr)
	assert.NotContains(t, r.stdout+r.stderr, pw)
	var after telco.OnlineLogin
	h.jsonOf(&after, "logins", "get", l.OnlineLoginSid)
	assert.Equal(t, l.OnlineLoginSid, after.OnlineLoginSid)
	assert.Empty(t, after.Permissions)

	for _, args := range [][]string{
		{"logins", "update", l.OnlineLoginSid},
		{"logins", "update", l.OnlineLoginSid, "--permission", "team:X=Manage"},
		{"logins", "update", l.OnlineLoginSid, "--permission", "account:X"},
		{"logins", "update", l.OnlineLoginSid, "--no-permissions", "--permission", "account:X=Manage"},
		{"logins", "update", l.OnlineLoginSid, "--password", "weak"},
	} {
		r := h.run(args...)
		assert.Equal(t, 2, r.code, "%v: %s", args, r.stderr)
		assert.NotContains(t, r.stderr, "weak", "a refused password is not echoed")
	}
}
