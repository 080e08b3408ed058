package telcotest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/telcosdk/telco"
)

func TestProperties_CreateMatchesTimeZoneWithoutCase(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client()
	prop, err := c.Properties.Create(testCtx(t), &telco.CreatePropertyParams{
		Name: "Sydney", MainDomain: "sydney.example", TimeZone: "  aus EASTERN standard time ",
		CallRecordingEnabled: true,
	})
	require.NoError(t, err)
	assert.Regexp(t, `^[A-Z0-9]{32}$`, prop.PropertySid)
	assert.NotEqual(t, srv.PropertySid, prop.PropertySid)
	assert.Equal(t, srv.AccountSid, prop.AccountSid)
	assert.Equal(t, "Sydney", prop.Name)
	assert.Equal(t, "sydney.example", prop.MainDomain)
	assert.Equal(t, "AUS Eastern Standard Time", prop.TimeZone, "returned in its canonical spelling")
	assert.True(t, prop.Active, "Active defaults to true")
	assert.False(t, prop.SmsEnabled, "SmsEnabled defaults to false")
	assert.True(t, prop.CallRecordingEnabled)
	assert.False(t, prop.IntegrationsEnabled)

	got, err := c.Properties.Get(testCtx(t), prop.PropertySid)
	require.NoError(t, err)
	assert.Equal(t, *prop, *got)
}

// The fake knows every Windows ID of the SDK's CLDR table, and two legacy
// IDs the table leaves out, each in its canonical spelling.
func TestProperties_TimeZonesAreTheCLDRTableAndTwoLegacyIDs(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client(telco.WithClientValidation(false))
	ctx := testCtx(t)
	zones := append(telco.WindowsZones(), "Mid-Atlantic Standard Time", "Kamchatka Standard Time")
	require.Greater(t, len(zones), 100)
	for _, z := range zones {
		prop, err := c.Properties.Create(ctx, &telco.CreatePropertyParams{
			Name: "Z", MainDomain: "z.example", TimeZone: strings.ToUpper(z)})
		require.NoError(t, err, z)
		assert.Equal(t, z, prop.TimeZone)
	}
	_, ok := telco.IANAZone("Kamchatka Standard Time")
	assert.False(t, ok, "the legacy IDs are the fake's own addition, not the table's")
	_, err := c.Properties.Create(ctx, &telco.CreatePropertyParams{
		Name: "Z", MainDomain: "z.example", TimeZone: "Kamchatka Time"})
	requireAPIError(t, err, http.StatusBadRequest, telco.CodeUnknownTimeZone)
}

func TestProperties_CreateInactive(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	prop, err := srv.Client().Properties.Create(testCtx(t), &telco.CreatePropertyParams{
		Name: "Off", MainDomain: "off.example", TimeZone: "UTC", Active: telco.Ptr(false), SmsEnabled: true})
	require.NoError(t, err)
	assert.False(t, prop.Active)
	assert.True(t, prop.SmsEnabled)
}

func TestProperties_ServiceRejectsBadCreates(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client(telco.WithClientValidation(false))
	ctx := testCtx(t)
	for _, tc := range []struct {
		name  string
		p     telco.CreatePropertyParams
		code  string
		field string
	}{
		{"unknown time zone", telco.CreatePropertyParams{Name: "N", MainDomain: "d.example", TimeZone: "Mars/Olympus"}, telco.CodeUnknownTimeZone, "TimeZone"},
		{"IANA name is not a Windows ID", telco.CreatePropertyParams{Name: "N", MainDomain: "d.example", TimeZone: "Australia/Sydney"}, telco.CodeUnknownTimeZone, "TimeZone"},
		{"missing Name", telco.CreatePropertyParams{MainDomain: "d.example", TimeZone: "UTC"}, telco.CodeParameterRequired, "Name"},
		{"blank Name", telco.CreatePropertyParams{Name: "  ", MainDomain: "d.example", TimeZone: "UTC"}, telco.CodeParameterRequired, "Name"},
		{"missing MainDomain", telco.CreatePropertyParams{Name: "N", TimeZone: "UTC"}, telco.CodeParameterRequired, "MainDomain"},
		{"missing TimeZone", telco.CreatePropertyParams{Name: "N", MainDomain: "d.example"}, telco.CodeParameterRequired, "TimeZone"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.Properties.Create(ctx, &tc.p)
			ae := requireAPIError(t, err, http.StatusBadRequest, tc.code)
			require.NotEmpty(t, ae.Fields)
			assert.Equal(t, tc.field, ae.Fields[0].FieldName)
		})
	}
	page, err := c.Properties.List(ctx, nil)
	require.NoError(t, err)
	assert.Equal(t, 1, page.TotalCount, "no rejected create added a project")
}

func TestProperties_ListPagingAndListAll(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client()
	ctx := testCtx(t)
	sids := []string{srv.PropertySid}
	for i := range 4 {
		p, err := c.Properties.Create(ctx, &telco.CreatePropertyParams{Name: fmt.Sprint("P", i), MainDomain: "p.example", TimeZone: "UTC"})
		require.NoError(t, err)
		sids = append(sids, p.PropertySid)
	}
	list := func(lp *telco.ListParams) ([]string, *telco.Page[telco.Property]) {
		t.Helper()
		page, err := c.Properties.List(ctx, lp)
		require.NoError(t, err)
		var out []string
		for _, p := range page.Items {
			out = append(out, p.PropertySid)
		}
		return out, page
	}
	got, page := list(nil)
	assert.Equal(t, sids, got, "in creation order, the seeded project first")
	assert.Equal(t, 5, page.TotalCount)
	assert.Empty(t, page.NextPageToken, "no next page")

	got, page = list(&telco.ListParams{Count: 2})
	assert.Equal(t, sids[:2], got)
	assert.Equal(t, 5, page.TotalCount)
	assert.NotEmpty(t, page.NextPageToken)

	got, page = list(&telco.ListParams{Count: 2, Skip: 4})
	assert.Equal(t, sids[4:], got)
	assert.Equal(t, 5, page.TotalCount)
	assert.Empty(t, page.NextPageToken)

	got, _ = list(&telco.ListParams{Skip: 9})
	assert.Empty(t, got)

	var all []string
	for p, err := range c.Properties.ListAll(ctx, &telco.ListParams{Count: 2}) {
		require.NoError(t, err)
		all = append(all, p.PropertySid)
	}
	assert.Equal(t, sids, all)

	all = nil
	for p, err := range c.Properties.ListAll(ctx, &telco.ListParams{Count: 3, Skip: 1}) {
		require.NoError(t, err)
		all = append(all, p.PropertySid)
	}
	assert.Equal(t, sids[1:], all, "ListAll starts at Skip")
}

func TestProperties_RawListEnvelope(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	r := raw(t, srv, http.MethodGet, "/v2/Properties?Results_Count=1", "")
	require.Equal(t, http.StatusOK, r.Status)
	var body struct {
		Properties    []telco.Property
		TotalCount    int
		NextPageToken *string
	}
	require.NoError(t, json.Unmarshal(r.Body, &body))
	require.Len(t, body.Properties, 1)
	assert.Equal(t, 1, body.TotalCount)
	assert.Nil(t, body.NextPageToken, "null on the last page")

	r = raw(t, srv, http.MethodGet, "/v2/Properties?Results_Count=abc", "")
	assert.Equal(t, http.StatusBadRequest, r.Status)
	errorBody(t, r)
}

func TestProperties_UpdateChangesOnlyGivenFields(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client()
	ctx := testCtx(t)
	prop, err := c.Properties.Create(ctx, &telco.CreatePropertyParams{
		Name: "Before", MainDomain: "before.example", TimeZone: "UTC",
		CallRecordingEnabled: true, IntegrationsEnabled: true,
	})
	require.NoError(t, err)

	require.NoError(t, c.Properties.Update(ctx, prop.PropertySid, &telco.UpdatePropertyParams{
		Name: telco.Ptr("After"), SmsEnabled: telco.Ptr(true), CallRecordingEnabled: telco.Ptr(false)}))
	got, err := c.Properties.Get(ctx, prop.PropertySid)
	require.NoError(t, err)
	want := *prop
	want.Name, want.SmsEnabled, want.CallRecordingEnabled = "After", true, false
	assert.Equal(t, want, *got, "MainDomain, TimeZone, IntegrationsEnabled and Active are unchanged")

	require.NoError(t, c.Properties.Update(ctx, prop.PropertySid, &telco.UpdatePropertyParams{
		TimeZone: telco.Ptr("tokyo standard time"), Active: telco.Ptr(false)}))
	got, err = c.Properties.Get(ctx, prop.PropertySid)
	require.NoError(t, err)
	want.TimeZone, want.Active = "Tokyo Standard Time", false
	assert.Equal(t, want, *got)

	// An empty patch changes nothing.
	require.NoError(t, c.Properties.Update(ctx, prop.PropertySid, &telco.UpdatePropertyParams{}))
	got, err = c.Properties.Get(ctx, prop.PropertySid)
	require.NoError(t, err)
	assert.Equal(t, want, *got)

	// The seeded project is untouched.
	seeded, err := c.Properties.Get(ctx, srv.PropertySid)
	require.NoError(t, err)
	assert.Equal(t, "Default project", seeded.Name)
}

func TestProperties_UpdateRejected(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client(telco.WithClientValidation(false))
	ctx := testCtx(t)

	err := c.Properties.Update(ctx, srv.PropertySid, &telco.UpdatePropertyParams{TimeZone: telco.Ptr("Mars/Olympus")})
	ae := requireAPIError(t, err, http.StatusBadRequest, telco.CodeUnknownTimeZone)
	assert.Equal(t, []string{"TimeZone"}, fieldNames(ae.Fields))

	err = c.Properties.Update(ctx, srv.PropertySid, &telco.UpdatePropertyParams{Name: telco.Ptr(""), SmsEnabled: telco.Ptr(false)})
	requireAPIError(t, err, http.StatusBadRequest, telco.CodeParameterInvalid)

	prop, err := c.Properties.Get(ctx, srv.PropertySid)
	require.NoError(t, err)
	assert.Equal(t, "AUS Eastern Standard Time", prop.TimeZone)
	assert.Equal(t, "Default project", prop.Name)
	assert.True(t, prop.SmsEnabled, "a rejected patch changes nothing")

	err = c.Properties.Update(ctx, "PR"+strings.Repeat("N", 30), &telco.UpdatePropertyParams{Name: telco.Ptr("x")})
	requireAPIError(t, err, http.StatusBadRequest, "PROPERTY_NOT_FOUND")
}

func TestProperties_PatchNeedsAJSONContentType(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	path := "/v2/Properties/" + srv.PropertySid
	auth := basicAuth(srv.AccountSid, srv.Token)

	for _, ct := range []string{"text/plain", "application/x-www-form-urlencoded", ""} {
		r := rawDo(t, srv, auth, http.MethodPatch, path, ct, `{"Name":"Nope"}`)
		assert.Equal(t, http.StatusBadRequest, r.Status, "Content-Type %q", ct)
		e := errorBody(t, r)
		assert.Equal(t, telco.CodeParameterInvalid, e.ResponseStatus.ErrorCode)
		require.Len(t, e.ResponseStatus.Errors, 1)
		assert.Equal(t, "Content-Type", e.ResponseStatus.Errors[0].FieldName)
	}
	prop, err := srv.Client().Properties.Get(testCtx(t), srv.PropertySid)
	require.NoError(t, err)
	assert.Equal(t, "Default project", prop.Name, "a refused patch changes nothing")

	r := rawDo(t, srv, auth, http.MethodPatch, path, "application/merge-patch+json; charset=utf-8", `{"Name":"Yes"}`)
	assert.Equal(t, http.StatusNoContent, r.Status)
	assert.Empty(t, r.Body, "204 has no body")
	prop, err = srv.Client().Properties.Get(testCtx(t), srv.PropertySid)
	require.NoError(t, err)
	assert.Equal(t, "Yes", prop.Name)

	// Plain JSON is a JSON body too.
	r = rawDo(t, srv, auth, http.MethodPatch, path, "application/json", `{"Name":"Plain"}`)
	assert.Equal(t, http.StatusNoContent, r.Status, "%s", r.Body)
	prop, err = srv.Client().Properties.Get(testCtx(t), srv.PropertySid)
	require.NoError(t, err)
	assert.Equal(t, "Plain", prop.Name)
}
