package main

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/telcosdk/telco"
)

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

func TestSipTrunksUpdate(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	sid, err := h.srv.Client().SipTrunks.Create(context.Background(), h.srv.PropertySid, &telco.CreateSipTrunkParams{
		Name: "PBX", DefaultCallerID: "+61299999999", Type: telco.SipTrunkIPToIP, IPAddresses: []string{"8.8.8.0/24"}})
	require.NoError(t, err)

	var got struct { // enumerations by name, times as RFC 3339: the CLI's JSON contract
		Name, Type          string
		ChannelLimit        int
		SipTrunkIPAddresses []struct {
			IPAddress string `json:"IpAddress"`
		}
	}
	h.jsonOf(&got, "sip-trunks", "update", sid, "--channels", "4", "--ip", "1.1.1.1", "--ip", "9.9.9.0/24")
	assert.Equal(t, 4, got.ChannelLimit)
	require.Len(t, got.SipTrunkIPAddresses, 2)
	assert.Equal(t, "1.1.1.1/32", got.SipTrunkIPAddresses[0].IPAddress)

	h.jsonOf(&got, "sip-trunks", "update", sid, "--account", h.srv.AccountSid, "--name", "PBX 2")
	assert.Equal(t, "PBX 2", got.Name)
	assert.Equal(t, 4, got.ChannelLimit, "left alone")

	const pw = "Tr0unk!Pass#9"
	r := h.runIn(pw+"\n", "sip-trunks", "update", sid, "--type", "auth", "--realm", "pbx.example.com", "--password-stdin")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "pbx.example.com")
	assert.NotContains(t, r.stdout+r.stderr, pw)

	assert.Equal(t, 2, h.run("sip-trunks", "update", sid).code, "nothing to change")
	assert.Equal(t, 2, h.run("sip-trunks", "update", sid, "--channels", "0").code)
}

func TestNumberBlocksPurchaseAndConfigure(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	var raw struct {
		NumberBlockSid string
		Block          struct{ NumberBlockSid, Created string }
		Raw            struct {
			NumberBlock struct{ NumberBlockSid string }
		} // the service's answer as sent
	}
	h.jsonOf(&raw, "number-blocks", "purchase", "--answer-point", "0299990000", "--group-type", "1")
	require.NotEmpty(t, raw.NumberBlockSid)
	assert.Equal(t, raw.NumberBlockSid, raw.Block.NumberBlockSid)
	assert.Equal(t, raw.NumberBlockSid, raw.Raw.NumberBlock.NumberBlockSid)
	_, err := time.Parse(time.RFC3339, raw.Block.Created)
	assert.NoError(t, err, "the block follows the CLI's JSON contract: %q", raw.Block.Created)

	out := h.ok("number-blocks", "configure", raw.NumberBlockSid, "--routing", "endpoint", "--endpoint", "0399990000")
	assert.Contains(t, out, raw.NumberBlockSid)
	var page []struct{ TerminationNumber string }
	h.jsonOf(&page, "number-blocks", "list-by-property", h.srv.PropertySid)
	require.Len(t, page, 1)
	assert.Equal(t, "61399990000", page[0].TerminationNumber)

	assert.Equal(t, 2, h.run("number-blocks", "configure", raw.NumberBlockSid, "--routing", "flow").code, "flow needs --flow")
	assert.Equal(t, 2, h.run("number-blocks", "purchase", "--answer-point", "0299990000", "--field", "AnswerPoint=1").code)
	assert.Equal(t, 2, h.run("number-blocks", "purchase", "--answer-point", "0299990000", "--preamble", "3").code)
}
