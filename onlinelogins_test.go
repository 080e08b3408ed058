package telco

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/telcosdk/telco/internal/rules"
)

const (
	onlineLoginsCreatePath = "/v2/Properties/" + testProp + "/OnlineLogins"
	onlineLoginJaneSid     = "3f2b8c1e-7a4d-4e9b-9c2f-5d8e1a6b7c40"
	onlineLoginSamSid      = "9a1c4e27-0b3d-4f58-8e6a-2c7d9b1f0e35"
	onlineLoginPassword    = "Sup3r$ecretPw!"
)

// onlineLoginAllScopes are the 13 scopes of the interface document.
var onlineLoginAllScopes = []Scope{
	ScopeManage, ScopeReporting, ScopeManageSms, ScopeReportingSms, ScopeIntegrations,
	ScopeBilling, ScopeProjectManagement, ScopeUserManagement, ScopeSipManagement,
	ScopeProvisionSms, ScopeOutboundCallReporting, ScopeDisconnectNumbers, ScopeAdmin,
}

func onlineLoginValidParams() CreateOnlineLoginParams {
	return CreateOnlineLoginParams{
		Email:     "jane.citizen@acme.example.com",
		Password:  onlineLoginPassword,
		FirstName: "Jane",
		LastName:  "Citizen",
		Scopes:    Scopes{ScopeManage, ScopeReportingSms},
		Enabled:   true,
	}
}

var onlineLoginJane = OnlineLogin{
	OnlineLoginSid: onlineLoginJaneSid,
	Email:          "jane.citizen@acme.example.com",
	Enabled:        true,
	Created:        1704067200,
	FirstName:      "Jane",
	LastName:       "Citizen",
	Permissions:    []Permission{{PropertySid: testProp, Scopes: Scopes{ScopeManage, ScopeReportingSms}}},
}

func TestOnlineLoginCreateWire(t *testing.T) {
	c, mt := newMockClient(t)
	got := reply(mt, "POST", onlineLoginsCreatePath, 200, fixture(t, "create_online_login.json"))
	p := onlineLoginValidParams()
	login, err := c.OnlineLogins.Create(bg, testProp, &p)
	require.NoError(t, err)

	assert.Equal(t, 1, mt.GetTotalCallCount())
	assert.Equal(t, "POST", got.Method)
	assert.Equal(t, onlineLoginsCreatePath, got.Path)
	assert.Empty(t, got.Query)
	assertCommonHeaders(t, got.Header)
	assert.Equal(t, "application/json", got.Header.Get("Content-Type"))
	assert.Equal(t, map[string]any{
		"Email":     "jane.citizen@acme.example.com",
		"Password":  onlineLoginPassword,
		"FirstName": "Jane",
		"LastName":  "Citizen",
		"Scopes":    "Manage,ReportingSms",
		"Enabled":   true,
	}, got.bodyMap(t), "Scopes travel as one comma-separated string")

	require.NotNil(t, login)
	assert.Equal(t, &onlineLoginJane, login)
	assert.Equal(t, time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), login.Created.Time().UTC())
	require.Len(t, login.Permissions, 1)
	assert.Equal(t, testProp, login.Permissions[0].PropertySid)
	assert.Empty(t, login.Permissions[0].AccountSid)
	assert.True(t, login.Permissions[0].Scopes.Has(ScopeReportingSms))
	assert.False(t, login.Permissions[0].Scopes.Has(ScopeAdmin))
}

func TestOnlineLoginCreateSendsEnabledFalse(t *testing.T) {
	c, mt := newMockClient(t)
	got := reply(mt, "POST", onlineLoginsCreatePath, 200, fixture(t, "create_online_login.json"))
	p := onlineLoginValidParams()
	p.Enabled = false
	p.Scopes = Scopes{ScopeAdmin}
	_, err := c.OnlineLogins.Create(bg, testProp, &p)
	require.NoError(t, err)
	body := got.bodyMap(t)
	assert.Equal(t, false, body["Enabled"])
	assert.Equal(t, "Admin", body["Scopes"])
}

func TestOnlineLoginCreateBareResponse(t *testing.T) {
	c, mt := newMockClient(t)
	reply(mt, "POST", onlineLoginsCreatePath, 200,
		[]byte(`{"OnlineLoginSid":"`+onlineLoginJaneSid+`","Email":"jane.citizen@acme.example.com","Created":1704067200,"Permissions":[{"PropertySid":"`+testProp+`","Scopes":["Manage","Billing"]}]}`))
	p := onlineLoginValidParams()
	login, err := c.OnlineLogins.Create(bg, testProp, &p)
	require.NoError(t, err)
	assert.Equal(t, onlineLoginJaneSid, login.OnlineLoginSid)
	assert.Equal(t, Timestamp(1704067200), login.Created)
	require.Len(t, login.Permissions, 1)
	assert.Equal(t, Scopes{ScopeManage, ScopeBilling}, login.Permissions[0].Scopes)
}

func TestOnlineLoginCreateResponseWithoutLogin(t *testing.T) {
	c, mt := newMockClient(t)
	reply(mt, "POST", onlineLoginsCreatePath, 200, []byte(`{}`))
	p := onlineLoginValidParams()
	login, err := c.OnlineLogins.Create(bg, testProp, &p)
	assert.Nil(t, login)
	var ae *APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, "OnlineLogins.Create", ae.Op)
	assert.ErrorIs(t, err, ErrMaybeSent, "a 200 to a create means it may have taken effect")
	assert.False(t, strings.Contains(err.Error(), onlineLoginPassword), "a secret is shown")
}

func TestOnlineLoginCreateServiceError(t *testing.T) {
	c, mt := newMockClient(t)
	reply(mt, "POST", onlineLoginsCreatePath, 400,
		[]byte(`{"ResponseStatus":{"ErrorCode":"PARAMETER_REQUIRED","Message":"The Email parameter is required.","Errors":[{"FieldName":"Email"}]}}`))
	p := onlineLoginValidParams()
	_, err := c.OnlineLogins.Create(bg, testProp, &p)
	var ae *APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, 400, ae.StatusCode)
	assert.Equal(t, CodeParameterRequired, ErrorCode(err))
	require.Len(t, ae.Fields, 1)
	assert.Equal(t, "Email", ae.Fields[0].FieldName)
}

func TestOnlineLoginCreateValidation(t *testing.T) {
	cases := []struct {
		why   string
		edit  func(p *CreateOnlineLoginParams)
		field string
		code  string
	}{
		{"Email is required", func(p *CreateOnlineLoginParams) { p.Email = "" }, "Email", CodeParameterRequired},
		{"Email of spaces is missing", func(p *CreateOnlineLoginParams) { p.Email = "   " }, "Email", CodeParameterRequired},
		{"Email without an @", func(p *CreateOnlineLoginParams) { p.Email = "jane.citizen.acme.example.com" }, "Email", CodeParameterInvalid},
		{"Email without a dotted domain", func(p *CreateOnlineLoginParams) { p.Email = "jane@acme" }, "Email", CodeParameterInvalid},
		{"Email without a local part", func(p *CreateOnlineLoginParams) { p.Email = "@acme.example.com" }, "Email", CodeParameterInvalid},
		{"Email with a display name", func(p *CreateOnlineLoginParams) { p.Email = "Jane <jane@acme.example.com>" }, "Email", CodeParameterInvalid},
		{"Password is required", func(p *CreateOnlineLoginParams) { p.Password = "" }, "Password", CodeParameterRequired},
		{"Password of 11 characters is too short", func(p *CreateOnlineLoginParams) { p.Password = "Abcdefg1!xy" }, "Password", CodeParameterInvalid},
		{"Password without a lower-case letter", func(p *CreateOnlineLoginParams) { p.Password = "ABCDEFGH1!XY" }, "Password", CodeParameterInvalid},
		{"Password without an upper-case letter", func(p *CreateOnlineLoginParams) { p.Password = "abcdefgh1!xy" }, "Password", CodeParameterInvalid},
		{"Password without a digit", func(p *CreateOnlineLoginParams) { p.Password = "Abcdefghi!xy" }, "Password", CodeParameterInvalid},
		{"Password without a special", func(p *CreateOnlineLoginParams) { p.Password = "Abcdefgh1xyz" }, "Password", CodeParameterInvalid},
		{"Password whose only special is -", func(p *CreateOnlineLoginParams) { p.Password = "Abcdefgh1-xyz" }, "Password", CodeParameterInvalid},
		{"Password whose only special is ?", func(p *CreateOnlineLoginParams) { p.Password = "Abcdefgh1?xyz" }, "Password", CodeParameterInvalid},
		{"Password whose only special is =", func(p *CreateOnlineLoginParams) { p.Password = "Abcdefgh1=xyz" }, "Password", CodeParameterInvalid},
		{"Password whose only special is a space", func(p *CreateOnlineLoginParams) { p.Password = "Abcdefgh1 xyz" }, "Password", CodeParameterInvalid},
		{"FirstName is required", func(p *CreateOnlineLoginParams) { p.FirstName = "" }, "FirstName", CodeParameterRequired},
		{"FirstName of spaces is missing", func(p *CreateOnlineLoginParams) { p.FirstName = " " }, "FirstName", CodeParameterRequired},
		{"LastName is required", func(p *CreateOnlineLoginParams) { p.LastName = "" }, "LastName", CodeParameterRequired},
		{"no scopes (nil)", func(p *CreateOnlineLoginParams) { p.Scopes = nil }, "Scopes", CodeParameterRequired},
		{"no scopes (empty)", func(p *CreateOnlineLoginParams) { p.Scopes = Scopes{} }, "Scopes", CodeParameterRequired},
		{"an unknown scope SuperUser", func(p *CreateOnlineLoginParams) { p.Scopes = Scopes{"SuperUser"} }, "Scopes", CodeParameterInvalid},
		{"a known scope with an unknown one", func(p *CreateOnlineLoginParams) { p.Scopes = Scopes{ScopeManage, "SuperUser"} }, "Scopes", CodeParameterInvalid},
		{"an empty scope name", func(p *CreateOnlineLoginParams) { p.Scopes = Scopes{ScopeManage, ""} }, "Scopes", CodeParameterInvalid},
	}
	for _, tc := range cases {
		t.Run(tc.why, func(t *testing.T) {
			c, mt := newMockClient(t)
			p := onlineLoginValidParams()
			tc.edit(&p)
			_, err := c.OnlineLogins.Create(bg, testProp, &p)
			requireValidation(t, mt, err, "OnlineLogins.Create", tc.field, tc.code)
			assert.Equal(t, tc.code, ErrorCode(err))
			verr := p.Validate()
			require.ErrorAs(t, verr, new(*ValidationError), "Validate agrees")
			if p.Password != "" {
				assert.False(t, strings.Contains(err.Error(), p.Password), "the error never repeats the password")
				assert.False(t, strings.Contains(verr.Error(), p.Password), "a secret is shown")
			}
		})
	}
}

func TestOnlineLoginCreateValidationBoundariesPass(t *testing.T) {
	type tcase struct {
		why  string
		edit func(p *CreateOnlineLoginParams)
	}
	cases := []tcase{
		{"a password of exactly 12 characters with all four classes", func(p *CreateOnlineLoginParams) { p.Password = "Abcdefgh1!xy" }},
		{"a password of 12 with the classes in another order", func(p *CreateOnlineLoginParams) { p.Password = "9_zzzzzzzzzQ" }},
		{"a long password", func(p *CreateOnlineLoginParams) { p.Password = "Correct Horse Battery Staple 4 ever!" }},
		{"an e-mail with a plus and sub-domain", func(p *CreateOnlineLoginParams) { p.Email = "jane+portal@mail.acme.example.com" }},
		{"all 13 scopes at once", func(p *CreateOnlineLoginParams) { p.Scopes = append(Scopes(nil), onlineLoginAllScopes...) }},
	}
	for _, sp := range rules.LoginPasswordSpecials {
		pw := "Abcdefgh1" + string(sp) + "xy"
		cases = append(cases, tcase{fmt.Sprintf("a 12-character password whose special is %q", sp),
			func(p *CreateOnlineLoginParams) { p.Password = pw }})
	}
	for _, sc := range onlineLoginAllScopes {
		cases = append(cases, tcase{"the scope " + string(sc) + " alone",
			func(p *CreateOnlineLoginParams) { p.Scopes = Scopes{sc} }})
	}
	require.Len(t, cases, 5+12+13)
	for _, tc := range cases {
		t.Run(tc.why, func(t *testing.T) {
			c, mt := newMockClient(t)
			got := reply(mt, "POST", onlineLoginsCreatePath, 200, fixture(t, "create_online_login.json"))
			p := onlineLoginValidParams()
			tc.edit(&p)
			require.NoError(t, p.Validate())
			_, err := c.OnlineLogins.Create(bg, testProp, &p)
			require.NoError(t, err)
			assert.Equal(t, 1, mt.GetTotalCallCount())
			assert.True(t, got.bodyMap(t)["Password"] == any(p.Password), "the password is sent")
			assert.Equal(t, p.Scopes.String(), got.bodyMap(t)["Scopes"])
		})
	}
}

func TestOnlineLoginCreateValidationOffSendsWeakPassword(t *testing.T) {
	c, mt := newMockClient(t, WithClientValidation(false))
	got := reply(mt, "POST", onlineLoginsCreatePath, 200, fixture(t, "create_online_login.json"))
	p := onlineLoginValidParams()
	p.Password = "short"
	p.Scopes = Scopes{"SuperUser"}
	_, err := c.OnlineLogins.Create(bg, testProp, &p)
	require.NoError(t, err)
	assert.Equal(t, 1, mt.GetTotalCallCount())
	assert.True(t, got.bodyMap(t)["Password"] == any("short"), "the password is sent as given")
	assert.Equal(t, "SuperUser", got.bodyMap(t)["Scopes"])
}

func TestOnlineLoginPasswordNeverPrinted(t *testing.T) {
	p := onlineLoginValidParams()
	pwHex := hex.EncodeToString([]byte(onlineLoginPassword))
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		for _, arg := range []struct {
			name string
			v    any
		}{{"value", p}, {"pointer", &p}} {
			out := fmt.Sprintf(verb, arg.v)
			assert.False(t, strings.Contains(out, onlineLoginPassword), "%s of the %s", verb, arg.name)
			assert.Contains(t, out, redacted, "%s of the %s: %s", verb, arg.name, out)
			assert.Contains(t, out, "jane.citizen@acme.example.com", "%s of the %s shows the other fields", verb, arg.name)
		}
	}
	for _, verb := range []string{"%q", "%x", "%X", "%d", "%10v", "%-40s"} {
		for _, arg := range []any{p, &p} {
			out := fmt.Sprintf(verb, arg)
			assert.False(t, strings.Contains(out, onlineLoginPassword), verb)
			assert.NotContains(t, strings.ToLower(out), pwHex, verb)
		}
	}
	// Inside other values fmt still reaches the Format method.
	wrapped := struct{ Params CreateOnlineLoginParams }{p}
	for _, out := range []string{
		fmt.Sprintf("%+v", wrapped),
		fmt.Sprintf("%v", []CreateOnlineLoginParams{p}),
		fmt.Sprintf("%v", []*CreateOnlineLoginParams{&p}),
		fmt.Sprint(p), fmt.Sprintln(&p),
	} {
		assert.False(t, strings.Contains(out, onlineLoginPassword), "a secret is shown")
	}
	assert.True(t, p.Password == onlineLoginPassword, "printing does not change the value")

	b, err := json.Marshal(p)
	require.NoError(t, err)
	assert.False(t, strings.Contains(string(b), onlineLoginPassword), "a secret is shown")
	assert.False(t, strings.Contains(string(b), "Password"), "JSON shows a Password")
	assert.Contains(t, string(b), `"Scopes":"Manage,ReportingSms"`)
	b, err = json.Marshal(&p)
	require.NoError(t, err)
	assert.False(t, strings.Contains(string(b), onlineLoginPassword), "a secret is shown")

	// An unset password prints as empty, not as [REDACTED].
	assert.NotContains(t, fmt.Sprintf("%+v", CreateOnlineLoginParams{Email: "a@b.example"}), redacted)
	assert.Equal(t, "<nil>", fmt.Sprintf("%v", (*CreateOnlineLoginParams)(nil)))

	// Structured logging of the params by the caller does not leak it either.
	var buf bytes.Buffer
	for _, h := range []slog.Handler{slog.NewTextHandler(&buf, nil), slog.NewJSONHandler(&buf, nil)} {
		slog.New(h).Info("creating login", "params", p, "ptr", &p)
	}
	assert.Contains(t, buf.String(), "jane.citizen@acme.example.com")
	assert.False(t, strings.Contains(buf.String(), onlineLoginPassword), "a secret is shown")
}

func TestOnlineLoginPasswordNotInValidationError(t *testing.T) {
	for _, pw := range []string{"Abcdefg1!xy", "Abcdefgh1-xyz", "abcdefghijklmnop", "ALLUPPER12345!"} {
		p := onlineLoginValidParams()
		p.Password = pw
		err := p.Validate()
		var ve *ValidationError
		require.ErrorAs(t, err, &ve, pw)
		assert.NotContains(t, err.Error(), pw)
		assert.NotContains(t, fmt.Sprintf("%+v", ve), pw)
		for _, f := range ve.Fields {
			assert.NotContains(t, f.Message, pw)
		}
	}
}

func TestOnlineLoginPasswordNotLogged(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c, mt := newMockClient(t, WithLogger(logger))
	reply(mt, "POST", onlineLoginsCreatePath, 200, fixture(t, "create_online_login.json"))
	p := onlineLoginValidParams()
	_, err := c.OnlineLogins.Create(bg, testProp, &p)
	require.NoError(t, err)
	assert.Contains(t, buf.String(), "OnlineLogins.Create", "the attempt was logged")
	assert.False(t, strings.Contains(buf.String(), onlineLoginPassword), "a secret is shown")
}

func TestOnlineLoginScopesJSON(t *testing.T) {
	b, err := json.Marshal(Scopes{ScopeManage, ScopeReporting})
	require.NoError(t, err)
	assert.JSONEq(t, `"Manage,Reporting"`, string(b))

	b, err = json.Marshal(Scopes{ScopeAdmin})
	require.NoError(t, err)
	assert.Equal(t, `"Admin"`, string(b))

	b, err = json.Marshal(Scopes(nil))
	require.NoError(t, err)
	assert.Equal(t, `""`, string(b))

	b, err = json.Marshal(Permission{PropertySid: testProp, Scopes: Scopes{ScopeBilling, ScopeSipManagement}})
	require.NoError(t, err)
	assert.JSONEq(t, `{"PropertySid":"`+testProp+`","Scopes":"Billing,SipManagement"}`, string(b))

	cases := []struct {
		why  string
		in   string
		want Scopes
	}{
		{"a comma string with spaces", `"Manage, Reporting"`, Scopes{ScopeManage, ScopeReporting}},
		{"a comma string without spaces", `"Manage,ReportingSms,Admin"`, Scopes{ScopeManage, ScopeReportingSms, ScopeAdmin}},
		{"a string with empty entries", `" Manage ,, Billing ,"`, Scopes{ScopeManage, ScopeBilling}},
		{"an array", `["Manage","Billing"]`, Scopes{ScopeManage, ScopeBilling}},
		{"an array with spaces", ` [ " Manage", "Billing " ] `, Scopes{ScopeManage, ScopeBilling}},
		{"null", `null`, nil},
		{"an empty string", `""`, nil},
		{"an empty array", `[]`, nil},
		{"an unknown scope kept", `"Manage,FutureScope"`, Scopes{ScopeManage, "FutureScope"}},
	}
	for _, tc := range cases {
		t.Run(tc.why, func(t *testing.T) {
			s := Scopes{ScopeAdmin} // decoding replaces what was there
			require.NoError(t, json.Unmarshal([]byte(tc.in), &s))
			assert.Equal(t, tc.want, s)
		})
	}

	for _, bad := range []string{`5`, `true`, `{"Scopes":"Manage"}`, `[1,2]`} {
		var s Scopes
		assert.Error(t, json.Unmarshal([]byte(bad), &s), bad)
	}

	var p Permission
	require.NoError(t, json.Unmarshal([]byte(`{"AccountSid":"`+testSid+`","Scopes":null}`), &p))
	assert.Equal(t, testSid, p.AccountSid)
	assert.Nil(t, p.Scopes)
}

func TestOnlineLoginScopesHelpers(t *testing.T) {
	s := Scopes{ScopeManage, ScopeReportingSms}
	assert.Equal(t, "Manage,ReportingSms", s.String())
	assert.Equal(t, "", Scopes(nil).String())
	assert.Equal(t, "Admin", Scopes{ScopeAdmin}.String())
	assert.Equal(t, "Manage,ReportingSms", fmt.Sprint(s), "fmt uses String")

	assert.True(t, s.Has(ScopeManage))
	assert.True(t, s.Has(ScopeReportingSms))
	assert.False(t, s.Has(ScopeReporting), "ReportingSms is not Reporting")
	assert.False(t, s.Has(ScopeAdmin))
	assert.False(t, Scopes(nil).Has(ScopeManage))

	assert.Equal(t, Scopes{ScopeManage, ScopeReporting}, ParseScopes("Manage,Reporting"))
	assert.Equal(t, Scopes{ScopeManage, ScopeReporting}, ParseScopes(" Manage , Reporting "))
	assert.Equal(t, Scopes{ScopeBilling}, ParseScopes(",,Billing,"))
	assert.Nil(t, ParseScopes(""))
	assert.Nil(t, ParseScopes(" , ,"))
	all := make([]string, len(onlineLoginAllScopes))
	for i, sc := range onlineLoginAllScopes {
		all[i] = string(sc)
	}
	assert.Equal(t, Scopes(onlineLoginAllScopes), ParseScopes(strings.Join(all, ",")))
	assert.Equal(t, strings.Join(all, ","), Scopes(onlineLoginAllScopes).String(), "round trip")
}

func TestOnlineLoginScopeKnown(t *testing.T) {
	want := []string{"Manage", "Reporting", "ManageSms", "ReportingSms", "Integrations", "Billing",
		"ProjectManagement", "UserManagement", "SipManagement", "ProvisionSms", "OutboundCallReporting",
		"DisconnectNumbers", "Admin"}
	require.Len(t, onlineLoginAllScopes, 13)
	for i, name := range want {
		assert.Equal(t, Scope(name), onlineLoginAllScopes[i], "constant spelling")
		assert.True(t, Scope(name).Known(), name)
	}
	for _, s := range []Scope{"SuperUser", "", "Manage,Reporting", "Reports", "SMS", "Owner"} {
		assert.False(t, s.Known(), "%q", s)
	}
}

func TestOnlineLoginGetWire(t *testing.T) {
	c, mt := newMockClient(t)
	path := "/v2/OnlineLogins/" + onlineLoginSamSid
	got := reply(mt, "GET", path, 200, fixture(t, "get_online_login.json"))
	login, err := c.OnlineLogins.Get(bg, onlineLoginSamSid)
	require.NoError(t, err)
	assert.Equal(t, "GET", got.Method)
	assert.Equal(t, path, got.Path)
	assert.Empty(t, got.Query)
	assert.Empty(t, got.Body, "a GET has no body")
	assertCommonHeaders(t, got.Header)
	assert.Equal(t, &OnlineLogin{
		OnlineLoginSid: onlineLoginSamSid,
		Email:          "sam.ops@acme.example.com",
		Enabled:        false,
		Created:        1696118400,
		FirstName:      "Sam",
		LastName:       "Ops",
		Permissions: []Permission{
			{AccountSid: testSid, Scopes: Scopes{ScopeBilling, ScopeUserManagement}},
			{PropertySid: testProp, Scopes: Scopes{ScopeReporting, ScopeSipManagement}},
		},
	}, login)
	assert.Equal(t, time.Date(2023, 10, 1, 0, 0, 0, 0, time.UTC), login.Created.Time().UTC())
}

func TestOnlineLoginGetBareAndMissing(t *testing.T) {
	c, mt := newMockClient(t)
	path := "/v2/OnlineLogins/" + onlineLoginJaneSid
	reply(mt, "GET", path, 200, []byte(`{"OnlineLoginSid":"`+onlineLoginJaneSid+`","Email":"jane.citizen@acme.example.com","Enabled":true}`))
	login, err := c.OnlineLogins.Get(bg, onlineLoginJaneSid)
	require.NoError(t, err)
	assert.Equal(t, onlineLoginJaneSid, login.OnlineLoginSid)
	assert.True(t, login.Enabled)

	c, mt = newMockClient(t)
	reply(mt, "GET", path, 200, []byte(`{"Something":"else"}`))
	login, err = c.OnlineLogins.Get(bg, onlineLoginJaneSid)
	assert.Nil(t, login)
	var ae *APIError
	require.ErrorAs(t, err, &ae)
	assert.NotErrorIs(t, err, ErrMaybeSent, "a GET changes nothing")
}

// The interface document gives operation 5 one answer for the list and
// the single form: {"OnlineLogins": [...], "TotalCount", "NextPageToken"}.
// Get reads the one login of that array as it reads the wrapped form.
func TestOnlineLoginGetListEnvelope(t *testing.T) {
	path := "/v2/OnlineLogins/" + onlineLoginSamSid
	c, mt := newMockClient(t)
	reply(mt, "GET", path, 200, fixture(t, "get_online_login.json"))
	wrapped, err := c.OnlineLogins.Get(bg, onlineLoginSamSid)
	require.NoError(t, err)

	c, mt = newMockClient(t)
	reply(mt, "GET", path, 200, fixture(t, "get_online_login_listing.json"))
	login, err := c.OnlineLogins.Get(bg, onlineLoginSamSid)
	require.NoError(t, err)
	assert.Equal(t, wrapped, login, "the same login as the wrapped answer")

	// A bare array is the same listing.
	c, mt = newMockClient(t)
	reply(mt, "GET", path, 200, []byte(`[{"OnlineLoginSid":"`+onlineLoginSamSid+`","Email":"sam.ops@acme.example.com"}]`))
	login, err = c.OnlineLogins.Get(bg, onlineLoginSamSid)
	require.NoError(t, err)
	assert.Equal(t, "sam.ops@acme.example.com", login.Email)

	// Several logins: the one asked for, its SID in any case.
	c, mt = newMockClient(t)
	reply(mt, "GET", path, 200, []byte(`{"OnlineLogins":[{"OnlineLoginSid":"`+onlineLoginJaneSid+`","Email":"jane"},`+
		`{"OnlineLoginSid":"`+strings.ToUpper(onlineLoginSamSid)+`","Email":"sam"}],"TotalCount":2,"NextPageToken":""}`))
	login, err = c.OnlineLogins.Get(bg, onlineLoginSamSid)
	require.NoError(t, err)
	assert.Equal(t, "sam", login.Email)
}

// An array without the login asked for is a clear *APIError, never a nil
// login with a nil error; a refusal inside the envelope stays the service's.
func TestOnlineLoginGetListEnvelopeWithoutTheLogin(t *testing.T) {
	path := "/v2/OnlineLogins/" + onlineLoginSamSid
	for name, tc := range map[string]struct{ body, msg string }{
		"empty array":  {`{"OnlineLogins":[],"TotalCount":0,"NextPageToken":""}`, "response has an empty OnlineLogins array"},
		"bare empty":   {`[]`, "response has an empty OnlineLogins array"},
		"null array":   {`{"OnlineLogins":null,"TotalCount":0}`, "response has no OnlineLogin"},
		"other logins": {`{"OnlineLogins":[{"OnlineLoginSid":"` + onlineLoginJaneSid + `"},{"OnlineLoginSid":"x"}],"TotalCount":2}`, "none of the 2 logins"},
	} {
		t.Run(name, func(t *testing.T) {
			c, mt := newMockClient(t)
			reply(mt, "GET", path, 200, []byte(tc.body))
			login, err := c.OnlineLogins.Get(bg, onlineLoginSamSid)
			assert.Nil(t, login)
			var ae *APIError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, "OnlineLogins.Get", ae.Op)
			assert.Equal(t, http.StatusOK, ae.StatusCode)
			assert.Contains(t, ae.Message, tc.msg)
			assert.NotErrorIs(t, err, ErrMaybeSent, "a GET changes nothing")
		})
	}
	c, mt := newMockClient(t)
	reply(mt, "GET", path, 200, []byte(`{"OnlineLogins":[],"ResponseStatus":{"ErrorCode":"FORBIDDEN","Message":"no"}}`))
	_, err := c.OnlineLogins.Get(bg, onlineLoginSamSid)
	assert.Equal(t, CodeForbidden, ErrorCode(err))
}

func TestOnlineLoginGetNonUUID(t *testing.T) {
	for _, sid := range []string{
		"not-a-uuid",
		"3f2b8c1e7a4d4e9b9c2f5d8e1a6b7c40",       // no hyphens
		"3f2b8c1e-7a4d-4e9b-9c2f-5d8e1a6b7c4",    // 35 characters
		"3f2b8c1e-7a4d-4e9b-9c2f-5d8e1a6b7c400",  // 37 characters
		"3f2b8c1e-7a4d-4e9b-9c2f-5d8e1a6b7g40",   // g is not hex
		"3f2b8c1e7-a4d-4e9b-9c2f-5d8e1a6b7c40",   // hyphen misplaced
		"{3f2b8c1e-7a4d-4e9b-9c2f-5d8e1a6b7c40}", // braces
		testProp,                                 // a 32-character SID
	} {
		t.Run(sid, func(t *testing.T) {
			c, mt := newMockClient(t)
			_, err := c.OnlineLogins.Get(bg, sid)
			requireValidation(t, mt, err, "OnlineLogins.Get", "OnlineLoginSid", CodeParameterInvalid)
		})
	}
}

func TestOnlineLoginGetValidationOffSendsNonUUID(t *testing.T) {
	c, mt := newMockClient(t, WithClientValidation(false))
	got := reply(mt, "GET", "/v2/OnlineLogins/legacy-login-42", 200,
		[]byte(`{"OnlineLogin":{"OnlineLoginSid":"legacy-login-42","Email":"old@acme.example.com"}}`))
	login, err := c.OnlineLogins.Get(bg, "legacy-login-42")
	require.NoError(t, err)
	assert.Equal(t, 1, mt.GetTotalCallCount())
	assert.Equal(t, "/v2/OnlineLogins/legacy-login-42", got.Path)
	assert.Equal(t, "legacy-login-42", login.OnlineLoginSid)
}

func TestOnlineLoginGetEscapesSid(t *testing.T) {
	c, mt := newMockClient(t, WithClientValidation(false))
	var path string
	mt.RegisterNoResponder(func(r *http.Request) (*http.Response, error) {
		path = r.URL.EscapedPath()
		return httpmock.NewStringResponse(200, `{"OnlineLogin":{"OnlineLoginSid":"a/b"}}`), nil
	})
	_, err := c.OnlineLogins.Get(bg, "a/b?c")
	require.NoError(t, err)
	assert.Equal(t, "/v2/OnlineLogins/a%2Fb%3Fc", path, "the SID stays one path segment")
}

func TestOnlineLoginGetUpperCaseUUIDPasses(t *testing.T) {
	c, mt := newMockClient(t)
	sid := strings.ToUpper(onlineLoginJaneSid)
	reply(mt, "GET", "/v2/OnlineLogins/"+sid, 200, fixture(t, "create_online_login.json"))
	_, err := c.OnlineLogins.Get(bg, sid)
	require.NoError(t, err)
	assert.Equal(t, 1, mt.GetTotalCallCount())
}

func TestOnlineLoginListWire(t *testing.T) {
	c, mt := newMockClient(t)
	got := reply(mt, "GET", "/v2/OnlineLogins", 200, fixture(t, "list_online_logins.json"))
	page, err := c.OnlineLogins.List(bg, &ListParams{Count: 2, Skip: 4})
	require.NoError(t, err)
	assert.Equal(t, "GET", got.Method)
	assert.Equal(t, "/v2/OnlineLogins", got.Path)
	assert.Equal(t, url.Values{"Results_Count": {"2"}, "Results_Skip": {"4"}}, got.Query)
	assert.Empty(t, got.Body)
	assertCommonHeaders(t, got.Header)

	require.Len(t, page.Items, 2)
	assert.Equal(t, onlineLoginJane, page.Items[0])
	assert.Equal(t, onlineLoginSamSid, page.Items[1].OnlineLoginSid)
	assert.False(t, page.Items[1].Enabled)
	assert.Equal(t, Timestamp(1696118400), page.Items[1].Created)
	require.Len(t, page.Items[1].Permissions, 1)
	assert.Equal(t, Permission{AccountSid: testSid, Scopes: Scopes{ScopeAdmin}}, page.Items[1].Permissions[0])
	assert.Equal(t, 7, page.TotalCount)
	assert.Equal(t, "b2Zmc2V0PTQ", page.NextPageToken)

	_, err = c.OnlineLogins.List(bg, nil)
	require.NoError(t, err)
	assert.Empty(t, got.Query, "nil params leave the service defaults")
}

func TestOnlineLoginListValidation(t *testing.T) {
	c, mt := newMockClient(t)
	_, err := c.OnlineLogins.List(bg, &ListParams{Skip: -1})
	requireValidation(t, mt, err, "OnlineLogins.List", "Results_Skip", CodeParameterInvalid)
	_, err = c.OnlineLogins.List(bg, &ListParams{Count: -10})
	requireValidation(t, mt, err, "OnlineLogins.List", "Results_Count", CodeParameterInvalid)
}

func TestOnlineLoginListAllPagesBySkip(t *testing.T) {
	c, mt := newMockClient(t)
	got := sequence(mt, "GET", "/v2/OnlineLogins",
		`{"OnlineLogins":[{"OnlineLoginSid":"00000000-0000-4000-8000-000000000001"},{"OnlineLoginSid":"00000000-0000-4000-8000-000000000002"}],"TotalCount":5,"NextPageToken":"p2"}`,
		`{"OnlineLogins":[{"OnlineLoginSid":"00000000-0000-4000-8000-000000000003"},{"OnlineLoginSid":"00000000-0000-4000-8000-000000000004"}],"TotalCount":5,"NextPageToken":"p3"}`,
		`{"OnlineLogins":[{"OnlineLoginSid":"00000000-0000-4000-8000-000000000005"}],"TotalCount":5,"NextPageToken":""}`,
		`{"OnlineLogins":[{"OnlineLoginSid":"00000000-0000-4000-8000-000000000006"}],"TotalCount":5}`,
	)
	lp := &ListParams{Count: 2}
	var sids []string
	for l, err := range c.OnlineLogins.ListAll(bg, lp) {
		require.NoError(t, err)
		sids = append(sids, l.OnlineLoginSid)
	}
	assert.Equal(t, []string{
		"00000000-0000-4000-8000-000000000001", "00000000-0000-4000-8000-000000000002",
		"00000000-0000-4000-8000-000000000003", "00000000-0000-4000-8000-000000000004",
		"00000000-0000-4000-8000-000000000005",
	}, sids)
	require.Len(t, got.Querys, 3, "stops once TotalCount items are seen")
	assert.Equal(t, url.Values{"Results_Count": {"2"}}, got.Querys[0])
	assert.Equal(t, url.Values{"Results_Count": {"2"}, "Results_Skip": {"2"}}, got.Querys[1])
	assert.Equal(t, url.Values{"Results_Count": {"2"}, "Results_Skip": {"4"}}, got.Querys[2])
	assert.Equal(t, &ListParams{Count: 2}, lp, "the caller's params are not changed")
}

func TestOnlineLoginListAllFromSkip(t *testing.T) {
	c, mt := newMockClient(t)
	got := sequence(mt, "GET", "/v2/OnlineLogins",
		`{"OnlineLogins":[{"OnlineLoginSid":"00000000-0000-4000-8000-000000000011"},{"OnlineLoginSid":"00000000-0000-4000-8000-000000000012"}],"TotalCount":13}`,
		`{"OnlineLogins":[{"OnlineLoginSid":"00000000-0000-4000-8000-000000000013"}],"TotalCount":13}`,
	)
	n := 0
	for _, err := range c.OnlineLogins.ListAll(bg, &ListParams{Count: 2, Skip: 10}) {
		require.NoError(t, err)
		n++
	}
	assert.Equal(t, 3, n)
	require.Len(t, got.Querys, 2)
	assert.Equal(t, "10", got.Querys[0].Get("Results_Skip"))
	assert.Equal(t, "12", got.Querys[1].Get("Results_Skip"))
}

func TestOnlineLoginListAllStopsAtError(t *testing.T) {
	c, mt := newMockClient(t)
	calls := 0
	mt.RegisterResponder("GET", testBase+"/v2/OnlineLogins", func(r *http.Request) (*http.Response, error) {
		calls++
		if calls == 1 {
			return httpmock.NewStringResponse(200, `{"OnlineLogins":[{"OnlineLoginSid":"00000000-0000-4000-8000-000000000001"}],"TotalCount":3}`), nil
		}
		return httpmock.NewStringResponse(403, `{"ResponseStatus":{"ErrorCode":"FORBIDDEN","Message":"no"}}`), nil
	})
	var errs []error
	n := 0
	for _, err := range c.OnlineLogins.ListAll(bg, nil) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		n++
	}
	assert.Equal(t, 1, n)
	require.Len(t, errs, 1, "the error is yielded once")
	assert.Equal(t, CodeForbidden, ErrorCode(errs[0]))
	assert.Equal(t, 2, calls)
}

func TestOnlineLoginGetRetriedOn503(t *testing.T) {
	c, mt := newMockClient(t, WithRetryPolicy(addressFastRetries))
	n := addressStatusSequence(mt, "GET", "/v2/OnlineLogins/"+onlineLoginJaneSid,
		string(fixture(t, "create_online_login.json")), 503, 200)
	login, err := c.OnlineLogins.Get(bg, onlineLoginJaneSid)
	require.NoError(t, err)
	assert.Equal(t, onlineLoginJaneSid, login.OnlineLoginSid)
	assert.Equal(t, int32(2), n.Load(), "a GET is idempotent and retried")
}

func TestOnlineLoginCreateNotRetriedOn503(t *testing.T) {
	c, mt := newMockClient(t, WithRetryPolicy(addressFastRetries))
	n := addressStatusSequence(mt, "POST", onlineLoginsCreatePath,
		string(fixture(t, "create_online_login.json")), 503, 200)
	p := onlineLoginValidParams()
	_, err := c.OnlineLogins.Create(bg, testProp, &p)
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrMaybeSent)
	assert.Equal(t, int32(1), n.Load(), "a create is not retried without RetryUnsafe")
	assert.False(t, strings.Contains(err.Error(), onlineLoginPassword), "a secret is shown")
}

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
