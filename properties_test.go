package telco

import (
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var acmeProperty = Property{
	AccountSid:  testSid,
	PropertySid: testProp,
	Name:        "Acme Marketing",
	MainDomain:  "acme.example.com",
	TimeZone:    "AUS Eastern Standard Time",
	SmsEnabled:  true,
	Active:      true,
}

func TestCreatePropertyWire(t *testing.T) {
	c, mt := newMockClient(t)
	got := reply(mt, "POST", "/v2/Properties", 200, fixture(t, "create_property.json"))
	p, err := c.Properties.Create(bg, &CreatePropertyParams{
		Name: "Acme Marketing", MainDomain: "acme.example.com", TimeZone: "AUS Eastern Standard Time", SmsEnabled: true,
	})
	require.NoError(t, err)
	assert.Equal(t, "POST", got.Method)
	assertCommonHeaders(t, got.Header)
	assert.Equal(t, "application/json", got.Header.Get("Content-Type"))
	assert.Equal(t, map[string]any{
		"Name": "Acme Marketing", "MainDomain": "acme.example.com", "TimeZone": "AUS Eastern Standard Time",
		"SmsEnabled": true, "CallRecordingEnabled": false, "IntegrationsEnabled": false,
	}, got.bodyMap(t), "Active is left to the service default when nil")
	assert.Equal(t, &acmeProperty, p)

	_, err = c.Properties.Create(bg, &CreatePropertyParams{Name: "n", MainDomain: "d", TimeZone: "UTC", Active: Ptr(false)})
	require.NoError(t, err)
	assert.Equal(t, false, got.bodyMap(t)["Active"])
}

func TestCreatePropertyValidation(t *testing.T) {
	for _, field := range []string{"Name", "MainDomain", "TimeZone"} {
		t.Run(field, func(t *testing.T) {
			c, mt := newMockClient(t)
			p := CreatePropertyParams{Name: "n", MainDomain: "d.example", TimeZone: "UTC"}
			switch field {
			case "Name":
				p.Name = ""
			case "MainDomain":
				p.MainDomain = " "
			case "TimeZone":
				p.TimeZone = ""
			}
			_, err := c.Properties.Create(bg, &p)
			requireValidation(t, mt, err, "Properties.Create", field, CodeParameterRequired)
		})
	}
}

func TestGetProperty(t *testing.T) {
	c, mt := newMockClient(t)
	got := reply(mt, "GET", "/v2/Properties/"+testProp, 200, fixture(t, "get_property.json"))
	p, err := c.Properties.Get(bg, testProp)
	require.NoError(t, err)
	assert.Equal(t, "GET", got.Method)
	assert.Equal(t, &acmeProperty, p)
}

func TestGetPropertyUnderProjectKey(t *testing.T) {
	c, mt := newMockClient(t)
	reply(mt, "GET", "/v2/Properties/"+testProp, 200, []byte(`{"Project":{"PropertySid":"`+testProp+`","Name":"P"}}`))
	p, err := c.Properties.Get(bg, testProp)
	require.NoError(t, err)
	assert.Equal(t, "P", p.Name)
}

func TestListPropertiesWire(t *testing.T) {
	c, mt := newMockClient(t)
	got := reply(mt, "GET", "/v2/Properties", 200, fixture(t, "list_properties.json"))
	page, err := c.Properties.List(bg, &ListParams{Count: 10, Skip: 20})
	require.NoError(t, err)
	assert.Equal(t, url.Values{"Results_Count": {"10"}, "Results_Skip": {"20"}}, got.Query)
	require.Len(t, page.Items, 2)
	assert.Equal(t, acmeProperty, page.Items[0])
	assert.Equal(t, "W. Australia Standard Time", page.Items[1].TimeZone)
	assert.True(t, page.Items[1].CallRecordingEnabled)
	assert.False(t, page.Items[1].Active)
	assert.Equal(t, 2, page.TotalCount)
	assert.Empty(t, page.NextPageToken, "null reads as empty")

	_, err = c.Properties.List(bg, nil)
	require.NoError(t, err)
	assert.Empty(t, got.Query, "nil params send no paging")
}

func TestListPropertiesUnderProjects(t *testing.T) {
	c, mt := newMockClient(t)
	reply(mt, "GET", "/v2/Properties", 200, fixture(t, "list_projects.json"))
	page, err := c.Properties.List(bg, nil)
	require.NoError(t, err)
	require.Len(t, page.Items, 1)
	assert.Equal(t, testProp, page.Items[0].PropertySid)
	assert.Equal(t, 1, page.TotalCount)
	assert.Equal(t, "b2Zmc2V0PTE", page.NextPageToken)
}

func TestListPropertiesValidation(t *testing.T) {
	c, mt := newMockClient(t)
	_, err := c.Properties.List(bg, &ListParams{Count: -5})
	requireValidation(t, mt, err, "Properties.List", "Results_Count", CodeParameterInvalid)
}

func TestListAllPropertiesStopsAtTotalCount(t *testing.T) {
	c, mt := newMockClient(t)
	got := sequence(mt, "GET", "/v2/Properties",
		`{"Properties":[{"PropertySid":"P1"},{"PropertySid":"P2"}],"TotalCount":3}`,
		`{"Properties":[{"PropertySid":"P3"}],"TotalCount":3}`,
		`{"Properties":[{"PropertySid":"P4"}],"TotalCount":3}`,
	)
	var sids []string
	for p, err := range c.Properties.ListAll(bg, &ListParams{Count: 2}) {
		require.NoError(t, err)
		sids = append(sids, p.PropertySid)
	}
	assert.Equal(t, []string{"P1", "P2", "P3"}, sids)
	assert.Len(t, got.Querys, 2)
	assert.Equal(t, "2", got.Querys[1].Get("Results_Skip"))
}

func TestListAllPropertiesBreakEarly(t *testing.T) {
	c, mt := newMockClient(t)
	sequence(mt, "GET", "/v2/Properties", `{"Properties":[{"PropertySid":"P1"},{"PropertySid":"P2"}],"TotalCount":100}`)
	for range c.Properties.ListAll(bg, nil) {
		break
	}
	assert.Equal(t, 1, mt.GetTotalCallCount())
}

func TestUpdatePropertyWire(t *testing.T) {
	c, mt := newMockClient(t)
	got := reply(mt, "PATCH", "/v2/Properties/"+testProp, 204, nil)
	err := c.Properties.Update(bg, testProp, &UpdatePropertyParams{Name: Ptr("Renamed"), SmsEnabled: Ptr(false)})
	require.NoError(t, err)
	assert.Equal(t, "PATCH", got.Method)
	assertCommonHeaders(t, got.Header)
	assert.Equal(t, "application/merge-patch+json", got.Header.Get("Content-Type"))
	assert.Equal(t, map[string]any{"Name": "Renamed", "SmsEnabled": false}, got.bodyMap(t), "only non-nil fields")
}

func TestUpdatePropertyValidation(t *testing.T) {
	c, mt := newMockClient(t)
	err := c.Properties.Update(bg, testProp, &UpdatePropertyParams{TimeZone: Ptr("")})
	requireValidation(t, mt, err, "Properties.Update", "TimeZone", CodeParameterInvalid)
}

func TestUpdatePropertyError(t *testing.T) {
	c, mt := newMockClient(t)
	reply(mt, "PATCH", "/v2/Properties/"+testProp, 400, fixture(t, "error_unknown_time_zone.json"))
	err := c.Properties.Update(bg, testProp, &UpdatePropertyParams{TimeZone: Ptr("Mars/Olympus")})
	assert.Equal(t, CodeUnknownTimeZone, ErrorCode(err))
}

// Update expects no body, yet a 2xx carrying the service's error envelope
// is that error, as for every other operation; an empty answer, {} and an
// empty ResponseStatus are successes.
func TestPropertiesUpdateRefusalIn2xx(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		status int
		body   string
		code   string // "" for success
	}{
		{200, refusalBody, "SerializationException"},
		{204, `{"ErrorCode":"FORBIDDEN","Message":"no"}`, CodeForbidden},
		{200, `{"ResponseStatus":{"ErrorCode":"UNKNOWN_TIME_ZONE","Message":"bad zone"}}`, CodeUnknownTimeZone},
		{204, ``, ""},
		{200, `{}`, ""},
		{200, `{"ResponseStatus":{}}`, ""},
		{200, `{"PropertySid":"` + testProp + `"}`, ""},
	} {
		c, mt := newMockClient(t)
		reply(mt, "PATCH", "/v2/Properties/"+testProp, tc.status, []byte(tc.body))
		err := c.Properties.Update(bg, testProp, &UpdatePropertyParams{Name: Ptr("New")})
		if tc.code == "" {
			assert.NoError(t, err, "%d %s", tc.status, tc.body)
			continue
		}
		var ae *APIError
		require.ErrorAs(t, err, &ae, "%d %s", tc.status, tc.body)
		assert.Equal(t, "Properties.Update", ae.Op)
		assert.Equal(t, tc.status, ae.StatusCode)
		assert.Equal(t, tc.code, ae.Code)
		assert.NotEmpty(t, ae.Message)
		assert.NotErrorIs(t, err, ErrMaybeSent)
	}
}
